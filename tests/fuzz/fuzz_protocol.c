/* Fuzz target: the device server's request decoding and handling
 * (runtime-support/server/dispatch.c, the protocol of runtime-support/common/protocol.h), built
 * for the host over an arena in this process.
 *
 * The arena: the control page, 64 KiB of VTCM, 192 KiB of heap. The ELF loader is replaced by a
 * fake one: a LOAD of bytes that start with "FAKE" gives a module of host functions (the real
 * loader has its own target, fuzz_elf), anything else fails as a bad ELF would.
 *
 * Input: a sequence of records, each a kind byte then:
 *   kind % 2 == 0: a request. u16 n, then n bytes written into the request slot. Unless bit 7
 *                  is set, the header's magic, version and seq are made right (so mutations
 *                  reach the operations); unless bit 6 is set, its length is 16 + n too.
 *                  The server handles it; the reply must be well formed.
 *   kind % 2 == 1: an arena write. u32 offset, u16 n, then n bytes (clipped to the arena,
 *                  never over the control block): file bytes for LOAD, data for CALL.
 * Every run starts from a closed session (CLOSE frees everything). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dispatch.h"
#include "dspc_runtime.h"
#include "elf_loader.h"
#include "heap.h"
#include "runtime-support/common/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
/* Defined by replay_main.c only: prints each reply for the regression tests. */
void dspc_fuzz_report(const char* outcome) __attribute__((weak));

enum {
  kVtcmOffset = 65536,
  kVtcmBytes = 65536,
  kHeapOffset = 131072,
  kHeapBytes = 196608,
  kArenaBytes = kHeapOffset + kHeapBytes
};

static char* arena;
static uint32_t seq;

static void finding(const char* what) {
  fprintf(stderr, "dspc fuzz finding: %s\n", what);
  fflush(stderr);
  abort();
}

/* ---- the fake module ------------------------------------------------------------------------ */

static const int64_t kShape[2] = {4, 8};

/* Touches every byte of every argument, as a kernel would: ASan reports data outside the arena. */
static int32_t touch(void** data, uint32_t n) {
  unsigned sum = 0;
  for (uint32_t i = 0; i < n; i++) {
    volatile uint8_t* p = (volatile uint8_t*)data[i];
    for (int k = 0; k < 32; k++) sum += p[k];
    if (i == n - 1)
      for (int k = 0; k < 32; k++) p[k] = (uint8_t)sum;
  }
  return 0;
}

static int32_t fake_packed(void** args, dspc_context* ctx) {
  return touch(args, 3);
}

static int32_t fake_call(const dspc_arg* args, int32_t num_args, dspc_context* ctx) {
  if (num_args != 3) {
    dspc_set_last_error("fake: wrong number of arguments", ctx);
    return DSPC_ERR_BAD_ARGUMENT;
  }
  void* data[3];
  for (int i = 0; i < 3; i++) {
    if (!args[i].data || args[i].type_code != DSPC_TYPE_UINT || args[i].bits != 8 || args[i].ndim != 2 ||
        !args[i].shape || args[i].shape[0] != 4 || args[i].shape[1] != 8) {
      dspc_set_last_error("fake: bad argument", ctx);
      return DSPC_ERR_BAD_ARGUMENT;
    }
    data[i] = args[i].data;
  }
  return touch(data, 3);
}

static int32_t fake_fail(void** args, dspc_context* ctx) {
  return 7; /* a kernel failing without a message */
}

/* The image: the table, then parameters, shapes and names, in 64 KiB of fresh memory. */
int dspc_elf_load(const uint8_t* file, uint64_t nbytes, dspc_symbol_resolver resolve, dspc_module_image* out) {
  if (nbytes < 4 || memcmp(file, "FAKE", 4) != 0) {
    dspc_set_last_error("bad ELF: not a fake module", dspc_context_default());
    return -1;
  }
  size_t mapped = 65536;
  char* base = (char*)mmap(0, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) finding("mmap failed");
  dspc_func_desc* funcs = (dspc_func_desc*)base;
  dspc_param_desc* params = (dspc_param_desc*)(base + 1024);
  int64_t* shape = (int64_t*)(base + 2048);
  char* names = base + 3072;
  memcpy(shape, kShape, sizeof kShape);
  const char* strings[] = {"add", "add_unchecked", "broken", "fails", "A", "B", "C"};
  char* name_at[7];
  for (int i = 0; i < 7; i++) {
    name_at[i] = names;
    strcpy(names, strings[i]);
    names += strlen(strings[i]) + 1;
  }
  for (int i = 0; i < 3; i++)
    params[i] = (dspc_param_desc){name_at[4 + i], DSPC_TYPE_UINT, 8, i == 2, 2, shape};
  funcs[0] = (dspc_func_desc){name_at[0], fake_packed, 3, params, fake_call};
  funcs[1] = (dspc_func_desc){name_at[1], fake_packed, 3, params, 0};
  funcs[2] = (dspc_func_desc){name_at[2], fake_packed, 3, (const dspc_param_desc*)(base + mapped - 8), 0};
  funcs[3] = (dspc_func_desc){name_at[3], fake_fail, 3, params, 0};
  *out = (dspc_module_image){base, mapped, funcs, 4};
  return 0;
}

void* dspc_server_resolve(const char* name) {
  return 0;
}

/* ---- driving the server --------------------------------------------------------------------- */

static void init(void) {
  arena = (char*)aligned_alloc(65536, kArenaBytes);
  memset(arena, 0, kArenaBytes);
  dspc_proto_control* ctl = (dspc_proto_control*)arena;
  ctl->magic = DSPC_PROTO_ARENA_MAGIC;
  ctl->version = DSPC_PROTO_VERSION;
  ctl->arena_bytes = kArenaBytes;
  ctl->vtcm_offset = kVtcmOffset;
  ctl->vtcm_bytes = kVtcmBytes;
  ctl->heap_offset = kHeapOffset;
  ctl->heap_bytes = kHeapBytes;
  dspc_server_attach(arena);
  if (dspc_vtcm_use_memory(arena + kVtcmOffset, kVtcmBytes, dspc_context_default())) finding("cannot place the VTCM pool");
  dspc_heap_init(kHeapOffset, kHeapBytes);
}

static dspc_proto_request* slot(void) {
  return (dspc_proto_request*)(arena + DSPC_PROTO_REQUEST_OFFSET);
}

/* Handles the request in the slot and checks the reply. Returns 1 after a SHUTDOWN. */
static int handle(void) {
  uint16_t op = slot()->op;
  uint32_t request_seq = ++seq;
  int shutdown = dspc_server_handle(request_seq);
  const dspc_proto_reply* r = (const dspc_proto_reply*)(arena + DSPC_PROTO_REPLY_OFFSET);
  if (op == DSPC_OP_TEST_BAD_REPLY) return shutdown; /* deliberately malformed */
  if (r->magic != DSPC_PROTO_REPLY_MAGIC || r->version != DSPC_PROTO_VERSION) finding("reply: bad magic");
  if (r->seq != request_seq) finding("reply: wrong seq");
  if (r->error_bytes > DSPC_PROTO_MAX_ERROR) finding("reply: error text too long");
  if (r->length > DSPC_PROTO_SLOT_BYTES || r->length != sizeof *r + r->payload_bytes + r->error_bytes)
    finding("reply: bad length");
  if (r->status < DSPC_PROTO_OK || r->status > DSPC_PROTO_NOT_FOUND) finding("reply: unknown status");
  if (r->status != DSPC_PROTO_OK && r->error_bytes == 0) finding("reply: a failure without a message");
  if (dspc_fuzz_report) {
    char text[DSPC_PROTO_MAX_ERROR + 64];
    snprintf(text, sizeof text, "op %u status %d: %.*s", op, r->status, (int)r->error_bytes,
             (const char*)r + sizeof *r + r->payload_bytes);
    dspc_fuzz_report(text);
  }
  return shutdown;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!arena) init();
  /* A fresh session: CLOSE (sequence 0) frees every allocation and module. */
  memset(slot(), 0, sizeof(dspc_proto_request));
  *slot() = (dspc_proto_request){DSPC_PROTO_REQUEST_MAGIC, DSPC_PROTO_VERSION, DSPC_OP_CLOSE, 16, 0};
  seq = 0;
  dspc_server_handle(0);
  dspc_set_last_error("", dspc_context_default());
  seq = 0;

  size_t i = 0;
  while (i < size) {
    uint8_t kind = data[i++];
    if (kind % 2 == 0) {
      if (size - i < 2) break;
      uint32_t n = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8;
      i += 2;
      if (n > size - i) n = (uint32_t)(size - i);
      if (n > DSPC_PROTO_SLOT_BYTES) n = DSPC_PROTO_SLOT_BYTES;
      memset(slot(), 0, sizeof(dspc_proto_request));
      memcpy(slot(), data + i, n);
      i += n;
      if (!(kind & 0x80)) {
        slot()->magic = DSPC_PROTO_REQUEST_MAGIC;
        slot()->version = DSPC_PROTO_VERSION;
        slot()->seq = seq + 1;
        if (!(kind & 0x40)) slot()->length = 16 + (n > 16 ? n - 16 : 0);
      }
      if (handle()) break;
    } else {
      if (size - i < 6) break;
      uint32_t offset;
      memcpy(&offset, data + i, 4);
      uint32_t n = (uint32_t)data[i + 4] | (uint32_t)data[i + 5] << 8;
      i += 6;
      if (n > size - i) n = (uint32_t)(size - i);
      offset %= kArenaBytes;
      if (offset < DSPC_PROTO_CONTROL_BYTES) offset = DSPC_PROTO_CONTROL_BYTES;
      if (n > kArenaBytes - offset) n = kArenaBytes - offset;
      memcpy(arena + offset, data + i, n);
      i += n;
    }
  }
  return 0;
}
