/* The device server: runs under qemu-hexagon, serves one host session over the shared arena
 * (runtime-support/common/protocol.h).
 *
 *   dspc_server --arena-fd=FD --arena-bytes=BYTES [--spin=POLLS]
 *
 * 1. Map the arena (the host's memfd, inherited as FD) MAP_SHARED; check the control block the
 *    host wrote; put the VTCM pool and the device heap in their regions; mark it ready.
 * 2. Wait for request_seq to move: spin, then FUTEX_WAIT (the host FUTEX_WAKEs after posting);
 *    FUTEX_WAIT at once when the host asks (park_request: it is about to touch device memory).
 * 3. Copy the request out of the shared slot, check every field, act, write the reply (status
 *    and error text always) into the reply slot, publish reply_seq, FUTEX_WAKE it.
 * A malformed request gets a DSPC_PROTO_MALFORMED reply; only SHUTDOWN ends the loop (exit 0).
 * Exit status 2 with a message on stderr when the command line or the arena is unusable. */
#include "dispatch.h"
#include "dspc_runtime.h"
#include "heap.h"
#include "platform.h"
#include "runtime-support/common/protocol.h"
#include "runtime-support/common/text.h"
#include "sys.h"

static uint64_t spin_polls = 20000; /* --spin: polls of the request word before FUTEX_WAIT */
static dspc_proto_control* ctl;

static __attribute__((noreturn)) void die(const char* a, const char* b) {
  char msg[256];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, "dspc_server: ");
  dspc_text_str(&t, a);
  dspc_text_str(&t, b);
  dspc_text_str(&t, "\n");
  dspc_platform_write(2, msg, t.len);
  dspc_platform_exit(2);
}

static void serve(void) {
  uint32_t seen = ctl->reply_seq;
  for (;;) {
    uint32_t seq;
    for (uint32_t i = 0; (seq = __atomic_load_n(&ctl->request_seq, __ATOMIC_ACQUIRE)) == seen; i++) {
      if (i < spin_polls && !__atomic_load_n(&ctl->park_request, __ATOMIC_RELAXED)) continue;
      /* The exchange is a full fence (LL/SC, which qemu runs as a host compare-and-swap): the
       * host either sees the flag and wakes us, or we see its new request_seq here. */
      __atomic_exchange_n(&ctl->server_waiting, 1u, __ATOMIC_SEQ_CST);
      if (__atomic_load_n(&ctl->request_seq, __ATOMIC_SEQ_CST) == seen) srv_futex_wait(&ctl->request_seq, seen);
      __atomic_store_n(&ctl->server_waiting, 0u, __ATOMIC_RELEASE);
    }
    int shutdown = dspc_server_handle(seq);
    if (shutdown) ctl->server_state = DSPC_PROTO_SERVER_EXITED;
    __atomic_exchange_n(&ctl->reply_seq, seq, __ATOMIC_SEQ_CST); /* a full fence before the flag */
    if (__atomic_load_n(&ctl->host_waiting, __ATOMIC_SEQ_CST)) srv_futex_wake(&ctl->reply_seq);
    seen = seq;
    if (shutdown) dspc_platform_exit(0);
  }
}

static const char* option(const char* arg, const char* name) {
  while (*name && *arg == *name) arg++, name++;
  return *name ? 0 : arg;
}

int dspc_main(int argc, char** argv) {
  uint64_t fd = ~0ull, bytes = 0;
  for (int i = 1; i < argc; i++) {
    const char* v;
    if ((v = option(argv[i], "--arena-fd=")) && dspc_parse_u64(v, &fd) == 0) continue;
    if ((v = option(argv[i], "--arena-bytes=")) && dspc_parse_u64(v, &bytes) == 0) continue;
    if ((v = option(argv[i], "--spin=")) && dspc_parse_u64(v, &spin_polls) == 0) continue;
    die("bad argument: ", argv[i]);
  }
  if (fd == ~0ull || bytes == 0)
    die("usage: dspc_server --arena-fd=FD --arena-bytes=BYTES [--spin=POLLS]", "");
  if (bytes % DSPC_PROTO_PAGE || bytes > 0xc0000000ull)
    die("the arena size must be a multiple of 64 KiB, at most 3 GiB", "");
  char* arena = (char*)srv_mmap((size_t)bytes, SRV_PROT_READ | SRV_PROT_WRITE, SRV_MAP_SHARED, (int)fd);
  if (!arena) die("cannot map the arena", "");
  dspc_server_attach(arena);
  ctl = (dspc_proto_control*)arena;
  if (ctl->magic != DSPC_PROTO_ARENA_MAGIC || ctl->version != DSPC_PROTO_VERSION || ctl->arena_bytes != bytes)
    die("the arena's control block does not match (magic, version or size)", "");
  uint64_t regions[2][2] = {{ctl->vtcm_offset, ctl->vtcm_bytes}, {ctl->heap_offset, ctl->heap_bytes}};
  for (int i = 0; i < 2; i++)
    if (regions[i][0] % DSPC_PROTO_PAGE || regions[i][0] < DSPC_PROTO_PAGE || regions[i][0] > bytes ||
        regions[i][1] > bytes - regions[i][0])
      die("the arena's regions are not 64 KiB aligned inside the arena", "");
  /* The server serves one session, so the process's default context is that session's device
   * context: its VTCM pool lives in the arena, and every call gets it as its final argument. */
  if (ctl->vtcm_bytes > (1u << 30) ||
      dspc_vtcm_use_memory(arena + ctl->vtcm_offset, (uint32_t)ctl->vtcm_bytes, dspc_context_default()))
    die("cannot place the VTCM pool: ", dspc_get_last_error(dspc_context_default()));
  dspc_heap_init(ctl->heap_offset, ctl->heap_bytes);
  __atomic_store_n(&ctl->server_state, DSPC_PROTO_SERVER_READY, __ATOMIC_RELEASE);
  srv_futex_wake(&ctl->server_state);
  serve();
  return 0;
}
