// Decoding the device server's replies (runtime-support/common/protocol.h) on the host. Pure
// functions of the reply slot's bytes, so the Remote backend and the fuzz target
// (tests/fuzz/fuzz_reply.cpp) run the same code: a reply from a confused or hostile server is a
// MalformedReply, never a read outside the slot or an absurd value handed on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "Backend.h"

namespace dspc::detail {

struct Reply {
  int32_t status;
  uint16_t op;
  std::vector<uint8_t> payload;
  std::string error;
};

// What is wrong with a reply, for "malformed reply from the device server...: <what>".
struct MalformedReply {
  std::string what;
};

// The reply in `slot` (its first `slot_bytes` bytes) to request `seq` of operation `op` (0: any
// operation, for raw test messages). Checks the header: magic, version, sequence number,
// operation, and that the payload and the error text lie inside the length and the slot.
Reply decode_reply(const uint8_t* slot, size_t slot_bytes, uint32_t seq, uint16_t op);

// `bytes` (at most 8) little-endian bytes of the payload at `at`.
uint64_t reply_u64(const Reply& r, size_t at, size_t bytes = 8);
// ALLOC: the block's arena offset; the block of `nbytes` must lie inside the arena.
uint64_t decode_alloc_reply(const Reply& r, uint64_t nbytes, uint64_t arena_bytes);
// LOOKUP: the function handle and its parameters (names NUL-terminated, ranks at most 8).
Lookup decode_lookup_reply(const Reply& r);
// CALL_BATCH of `sent` calls: how many succeeded and the failing call's status. A reply
// claiming more calls than were sent, or a failure with status 0, is malformed.
struct BatchReply {
  uint32_t done;
  int32_t status;
};
BatchReply decode_call_batch_reply(const Reply& r, uint32_t sent);

}  // namespace dspc::detail
