/* The device server's request handling: decode, check and act on one request of
 * runtime-support/common/protocol.h, and write its reply. Apart from server.c's wait loop and
 * start-up (the only parts that make system calls), so that it also builds for the host, where
 * tests/fuzz/fuzz_protocol.cpp drives it. */
#ifndef DSPC_SERVER_DISPATCH_H
#define DSPC_SERVER_DISPATCH_H

#include <stdint.h>

/* The shared arena; its control block (at offset 0) is already checked, and the VTCM pool and
 * the heap already placed in their regions. */
void dspc_server_attach(char* arena);

/* Handles the request in the arena's request slot as request number seq: copies it out of the
 * shared slot (its length read once), checks every field, acts, and writes the reply (header,
 * payload, error text) into the arena's reply slot. Returns 1 for a SHUTDOWN that succeeded
 * (the caller exits after publishing the reply), else 0. */
int dspc_server_handle(uint32_t seq);

#endif
