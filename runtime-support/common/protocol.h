/* The host <-> device server protocol (docs/runtime.md).
 *
 * Both sides map one shared arena (a memfd the host creates; the server maps it MAP_SHARED):
 *
 *   [0, 64 KiB)                  the control page: dspc_proto_control, then the request slot
 *                                and the reply slot (DSPC_PROTO_SLOT_BYTES each)
 *   [vtcm_offset, +vtcm_bytes)   the VTCM pool's memory (qemu has no VTCM address range)
 *   [heap_offset, arena_bytes)   device global memory, handed out by the server
 *
 * Offsets and sizes of the regions are 64 KiB multiples (qemu-hexagon's guest page size).
 * Device memory is named by its arena offset; copying in and out is a host memcpy and needs no
 * request. The ring has one slot each way (calls are synchronous): the host writes a request
 * into the request slot, then bumps request_seq and FUTEX_WAKEs it; the server spins, then
 * FUTEX_WAITs, on request_seq, writes the reply into the reply slot, sets reply_seq to the same
 * value and FUTEX_WAKEs it. Every message is length framed (a header with its total length),
 * versioned, and every reply carries a status and an error text (empty on success). The server
 * checks every field of a request and answers a malformed one with DSPC_PROTO_MALFORMED; the
 * host checks every reply likewise. Plain C, no platform calls: the device server and the host
 * library both include it. All integers are little-endian (both sides are). */
#ifndef DSPC_PROTOCOL_H
#define DSPC_PROTOCOL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DSPC_PROTO_VERSION 1u
#define DSPC_PROTO_ARENA_MAGIC 0x41435044u   /* "DPCA": the control block */
#define DSPC_PROTO_REQUEST_MAGIC 0x51435044u /* "DPCQ" */
#define DSPC_PROTO_REPLY_MAGIC 0x52435044u   /* "DPCR" */
#define DSPC_PROTO_PAGE 65536u               /* qemu-hexagon's guest page */
#define DSPC_PROTO_CONTROL_BYTES 256u
#define DSPC_PROTO_SLOT_BYTES 32000u
#define DSPC_PROTO_REQUEST_OFFSET DSPC_PROTO_CONTROL_BYTES
#define DSPC_PROTO_REPLY_OFFSET (DSPC_PROTO_CONTROL_BYTES + DSPC_PROTO_SLOT_BYTES)
#define DSPC_PROTO_MAX_ERROR 1024u /* error text bytes in a reply, at most */
#define DSPC_PROTO_MAX_ARGS 64u
#define DSPC_PROTO_MAX_NDIM 8u
#define DSPC_PROTO_MAX_NAME 256u

/* The control block at arena offset 0. The host fills it before starting the server; the
 * server checks magic, version and sizes against what it was told on its command line. */
typedef struct {
  uint32_t magic;   /* DSPC_PROTO_ARENA_MAGIC */
  uint32_t version; /* DSPC_PROTO_VERSION */
  uint64_t arena_bytes;
  uint64_t vtcm_offset, vtcm_bytes;
  uint64_t heap_offset, heap_bytes;
  volatile uint32_t request_seq;  /* futex word: the host bumps it after writing a request */
  volatile uint32_t reply_seq;    /* futex word: the server copies request_seq after replying */
  volatile uint32_t server_state; /* DSPC_PROTO_SERVER_* */
  /* 1 while that side is (about to be) asleep in FUTEX_WAIT: the other side makes the wake-up
   * syscall only then. Each side sets its flag with a full fence, then re-reads the word it
   * waits on; the other publishes its word with a full fence, then reads the flag. */
  volatile uint32_t server_waiting;
  volatile uint32_t host_waiting;
  /* 1: the host is about to touch device memory; the server stops spinning and waits in
   * FUTEX_WAIT on request_seq at once (the host checks that from outside: see host/Remote.cpp).
   * The host clears it before it posts the next request. */
  volatile uint32_t park_request;
  uint32_t reserved[2];
} dspc_proto_control;

enum { DSPC_PROTO_SERVER_STARTING = 0, DSPC_PROTO_SERVER_READY = 1, DSPC_PROTO_SERVER_EXITED = 2 };

enum {
  DSPC_OP_HELLO = 1,      /* open: u32 version -> u32 version, u64 vtcm_bytes, u64 heap_bytes */
  DSPC_OP_CLOSE = 2,      /* frees every allocation and module of the session -> - */
  DSPC_OP_ALLOC = 3,      /* dspc_proto_alloc -> dspc_proto_alloc_reply */
  DSPC_OP_FREE = 4,       /* u64 offset -> - */
  DSPC_OP_LOAD = 5,       /* dspc_proto_load (the file's bytes in device memory) -> u32 module */
  DSPC_OP_UNLOAD = 6,     /* u32 module -> - */
  DSPC_OP_LOOKUP = 7,     /* u32 module, name -> dspc_proto_lookup_reply */
  DSPC_OP_CALL = 8,       /* dspc_proto_call -> i32 kernel status (status = its status) */
  DSPC_OP_LAST_ERROR = 9, /* - -> the device's last error as the error text */
  DSPC_OP_SHUTDOWN = 10,  /* - -> reply, then the server exits with status 0 */
  DSPC_OP_SYNC_COPY = 11, /* bookkeeping only: u64 offset, u64 bytes -> - (checks the range) */
  DSPC_OP_CALL_BATCH = 12, /* dspc_proto_call_batch -> dspc_proto_call_batch_reply (queued calls) */
  /* For failure tests only: the server answers with a deliberately malformed reply. */
  DSPC_OP_TEST_BAD_REPLY = 100, /* u32 DSPC_PROTO_BAD_* */
};

enum { DSPC_PROTO_BAD_MAGIC = 1, DSPC_PROTO_BAD_LENGTH = 2, DSPC_PROTO_BAD_SEQ = 3 };

/* Reply statuses. A CALL's reply has status DSPC_PROTO_OK and the kernel's own status in its
 * payload; anything else means the request itself failed. */
enum {
  DSPC_PROTO_OK = 0,
  DSPC_PROTO_MALFORMED = 1,   /* bad magic, version, length, opcode or field */
  DSPC_PROTO_NO_MEMORY = 2,   /* device memory or VTCM exhausted */
  DSPC_PROTO_BAD_HANDLE = 3,  /* unknown module, function or allocation */
  DSPC_PROTO_LOAD_FAILED = 4, /* the ELF loader refused the module */
  DSPC_PROTO_NOT_FOUND = 5,   /* no such function in the module */
};

typedef struct {
  uint32_t magic; /* DSPC_PROTO_REQUEST_MAGIC */
  uint16_t version;
  uint16_t op;
  uint32_t length; /* header included */
  uint32_t seq;
} dspc_proto_request;

typedef struct {
  uint32_t magic; /* DSPC_PROTO_REPLY_MAGIC */
  uint16_t version;
  uint16_t op;     /* the request's op */
  uint32_t length; /* header, payload and error text */
  uint32_t seq;    /* the request's seq */
  int32_t status;  /* DSPC_PROTO_* */
  uint32_t payload_bytes;
  uint32_t error_bytes; /* the error text follows the payload; no terminating NUL */
  uint32_t reserved;
} dspc_proto_reply;

enum { DSPC_MEM_GLOBAL = 0, DSPC_MEM_VTCM = 1 };

typedef struct {
  uint64_t nbytes;
  uint32_t align; /* a power of two; 0: 128 */
  uint32_t kind;  /* DSPC_MEM_* */
} dspc_proto_alloc;

typedef struct {
  uint64_t offset; /* in the arena */
} dspc_proto_alloc_reply;

typedef struct {
  uint64_t offset; /* the ELF file's bytes, in device memory */
  uint64_t nbytes;
} dspc_proto_load;

/* LOOKUP request: u32 module, u32 name_bytes, then the name (no NUL).
 * Reply: dspc_proto_lookup_reply, then num_params dspc_proto_param. */
typedef struct {
  uint32_t function; /* handle for CALL */
  uint32_t num_params;
} dspc_proto_lookup_reply;

typedef struct {
  char name[32]; /* NUL-terminated, truncated */
  uint8_t type_code, bits, is_output, ndim;
  uint32_t reserved;
  int64_t shape[DSPC_PROTO_MAX_NDIM];
} dspc_proto_param;

/* CALL request: dspc_proto_call, then num_args dspc_proto_arg. */
typedef struct {
  uint32_t function;
  uint32_t num_args;
} dspc_proto_call;

typedef struct {
  uint64_t offset; /* the data's arena offset */
  uint8_t type_code, bits;
  uint16_t flags;
  uint32_t ndim;
  int64_t shape[DSPC_PROTO_MAX_NDIM];
} dspc_proto_arg;

/* CALL_BATCH request: dspc_proto_call_batch, then num_calls CALL payloads (dspc_proto_call and
 * its arguments) back to back. The server runs them in order and stops at the first whose
 * kernel status is not 0: the reply says how many ran without failing (`done`, num_calls when
 * all did) and that call's status, with its message as the error text. */
typedef struct {
  uint32_t num_calls;
  uint32_t reserved;
} dspc_proto_call_batch;

typedef struct {
  uint32_t done;
  int32_t status;
} dspc_proto_call_batch_reply;

/* The layout is the contract: both sides are compiled by different compilers for different
 * architectures (clang for Hexagon, the host C++ compiler for x86-64). */
#ifdef __cplusplus
#define DSPC_PROTO_ASSERT(c, m) static_assert(c, m)
#else
#define DSPC_PROTO_ASSERT(c, m) _Static_assert(c, m)
#endif
DSPC_PROTO_ASSERT(sizeof(dspc_proto_control) <= DSPC_PROTO_CONTROL_BYTES, "control block size");
DSPC_PROTO_ASSERT(DSPC_PROTO_REPLY_OFFSET + DSPC_PROTO_SLOT_BYTES <= DSPC_PROTO_PAGE, "slots fit the page");
DSPC_PROTO_ASSERT(sizeof(dspc_proto_request) == 16, "request header");
DSPC_PROTO_ASSERT(sizeof(dspc_proto_reply) == 32, "reply header");
DSPC_PROTO_ASSERT(sizeof(dspc_proto_alloc) == 16, "alloc");
DSPC_PROTO_ASSERT(sizeof(dspc_proto_param) == 104, "param");
DSPC_PROTO_ASSERT(sizeof(dspc_proto_arg) == 80, "arg");
DSPC_PROTO_ASSERT(sizeof(dspc_proto_call) + DSPC_PROTO_MAX_ARGS * sizeof(dspc_proto_arg) + 16 <=
                      DSPC_PROTO_SLOT_BYTES,
                  "a call with the most arguments fits the request slot");

#ifdef __cplusplus
}
#endif

#endif
