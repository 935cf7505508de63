/* Modules that attack the host from inside a session, for the sandbox tests
 * (runtime-support/host/tests/sandbox_test.cpp, docs/security.md): plain C for Hexagon with
 * raw system calls (syscall_hexagon.h: asm-generic numbers, as qemu-hexagon takes them), in a
 * hand-written __dspc_funcs table without checked entries (the server checks the arguments'
 * count, dtypes and shapes against the table). Each function does one thing a module must not
 * get away with, and writes the system call's result where the test can read it if the call
 * returns at all. */
#include <stdint.h>

#include "dspc_runtime.h"
#include "runtime-support/common/protocol.h"
#include "syscall_hexagon.h"

enum {
  NR_FCNTL64 = 25,
  NR_LLSEEK = 62,
  NR_FUTEX = 98,
  NR_PTRACE = 117,
  NR_KILL = 129,
  NR_SOCKET = 198,
  NR_CLONE = 220,
  NR_EXECVE = 221,
};
enum { AT_FDCWD = -100, O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_CREAT = 0100, O_TRUNC = 01000 };
enum { SIGCHLD = 17, SIGUSR1 = 10, PTRACE_ATTACH = 16, F_GETFD = 1, FUTEX_WAKE = 1 };
enum { CLONE_THREAD_FLAGS = 0x00000100 | 0x00000200 | 0x00000400 | 0x00000800 | 0x00010000 | 0x00040000 };

enum { PATH_BYTES = 256, CHUNK = 65536 };

static long sys(long nr, long a, long b, long c, long d, long e) {
  return syscall6(nr, a, b, c, d, e, 0);
}

/* write_file(PATH: u8[256], R: i32[1]): creates the file PATH and writes to it. */
static int32_t write_file(void** args, dspc_context* ctx) {
  long fd = sys(SYS_OPENAT, AT_FDCWD, (long)args[0], O_WRONLY | O_CREAT | O_TRUNC, 0644, 0);
  if (fd >= 0) sys(SYS_WRITE, fd, (long)"written by a module\n", 20, 0, 0);
  ((int32_t*)args[1])[0] = (int32_t)fd;
  return 0;
}

/* proc_mem_write(PATH: u8[256], ADDR: u64[1], R: i32[1]): writes 8 bytes over ADDR through
 * PATH (the host's /proc/<pid>/mem), opened read-write. */
static int32_t proc_mem_write(void** args, dspc_context* ctx) {
  uint64_t addr = ((uint64_t*)args[1])[0], where = 0;
  long fd = sys(SYS_OPENAT, AT_FDCWD, (long)args[0], O_RDWR, 0, 0);
  long r = fd;
  if (fd >= 0) r = sys(NR_LLSEEK, fd, (long)(addr >> 32), (long)(uint32_t)addr, (long)&where, 0);
  if (fd >= 0 && r == 0) r = sys(SYS_WRITE, fd, (long)"\x01\x02\x03\x04\x05\x06\x07\x08", 8, 0, 0);
  ((int32_t*)args[2])[0] = (int32_t)r;
  return 0;
}

/* read_at(PATH: u8[256], ADDR: u64[1], R: i64[2]): reads 8 bytes at offset ADDR of PATH (a
 * file of the host's user, or the host's /proc/<pid>/mem), opened read-only: what the
 * system-call filter lets through, and Landlock must refuse. R[0] = the last result, R[1] =
 * the bytes read. */
static int32_t read_at(void** args, dspc_context* ctx) {
  uint64_t addr = ((uint64_t*)args[1])[0], where = 0;
  int64_t* out = args[2];
  long fd = sys(SYS_OPENAT, AT_FDCWD, (long)args[0], O_RDONLY, 0, 0);
  long r = fd;
  if (fd >= 0) r = sys(NR_LLSEEK, fd, (long)(addr >> 32), (long)(uint32_t)addr, (long)&where, 0);
  if (fd >= 0 && r == 0) r = sys(SYS_READ, fd, (long)&out[1], 8, 0, 0);
  out[0] = r;
  return 0;
}

/* fork_child(R: i32[1]): a new process (clone without CLONE_VM), which spins forever. */
static int32_t fork_child(void** args, dspc_context* ctx) {
  long pid = sys(NR_CLONE, SIGCHLD, 0, 0, 0, 0);
  if (pid == 0)
    for (;;) {
    }
  ((int32_t*)args[0])[0] = (int32_t)pid;
  return 0;
}

/* open_socket(R: i32[1]): an IPv4 TCP socket. */
static int32_t open_socket(void** args, dspc_context* ctx) {
  ((int32_t*)args[0])[0] = (int32_t)sys(NR_SOCKET, 2, 1, 0, 0, 0);
  return 0;
}

/* run_program(PATH: u8[256], R: i32[1]): execve(PATH) with no arguments. */
static int32_t run_program(void** args, dspc_context* ctx) {
  const char* argv[2] = {(const char*)args[0], 0};
  const char* envp[1] = {0};
  ((int32_t*)args[1])[0] = (int32_t)sys(NR_EXECVE, (long)args[0], (long)argv, (long)envp, 0, 0);
  return 0;
}

/* ptrace_host(PID: i32[1], R: i32[1]): PTRACE_ATTACH to the host process. */
static int32_t ptrace_host(void** args, dspc_context* ctx) {
  ((int32_t*)args[1])[0] = (int32_t)sys(NR_PTRACE, PTRACE_ATTACH, ((int32_t*)args[0])[0], 0, 0, 0);
  return 0;
}

/* signal_host(PID: i32[1], R: i32[1]): kill(PID, SIGUSR1). */
static int32_t signal_host(void** args, dspc_context* ctx) {
  ((int32_t*)args[1])[0] = (int32_t)sys(NR_KILL, ((int32_t*)args[0])[0], SIGUSR1, 0, 0, 0);
  return 0;
}

/* probe_fd(FD: i32[1], R: i32[1]): fcntl(FD, F_GETFD): -9 (EBADF) when FD is not open. */
static int32_t probe_fd(void** args, dspc_context* ctx) {
  ((int32_t*)args[1])[0] = (int32_t)sys(NR_FCNTL64, ((int32_t*)args[0])[0], F_GETFD, 0, 0, 0);
  return 0;
}

/* write_stdout(CHUNK: u8[65536], TIMES: i32[1]): writes CHUNK to stdout TIMES times. */
static int32_t write_stdout(void** args, dspc_context* ctx) {
  int32_t times = ((int32_t*)args[1])[0];
  for (int32_t i = 0; i < times; i++)
    for (long done = 0; done < CHUNK;) {
      long n = sys(SYS_WRITE, 1, (long)args[0] + done, CHUNK - done, 0, 0);
      if (n <= 0) return DSPC_ERR_KERNEL;
      done += n;
    }
  return 0;
}

/* The control block of the arena that holds p: the arena starts on a 64 KiB boundary below it. */
static dspc_proto_control* control_block(void* p) {
  uintptr_t a = (uintptr_t)p & ~(uintptr_t)(DSPC_PROTO_PAGE - 1);
  while (((dspc_proto_control*)a)->magic != DSPC_PROTO_ARENA_MAGIC) a -= DSPC_PROTO_PAGE;
  return (dspc_proto_control*)a;
}

/* forge_reply(A: i32[1024]): answers its own CALL with a success reply, as the server would,
 * then keeps writing A forever: the host must not read A while this runs. */
static int32_t forge_reply(void** args, dspc_context* ctx) {
  volatile int32_t* a = args[0];
  dspc_proto_control* ctl = control_block(args[0]);
  char* arena = (char*)ctl;
  uint32_t seq = ((const dspc_proto_request*)(arena + DSPC_PROTO_REQUEST_OFFSET))->seq;
  dspc_proto_reply* r = (dspc_proto_reply*)(arena + DSPC_PROTO_REPLY_OFFSET);
  r->magic = DSPC_PROTO_REPLY_MAGIC;
  r->version = DSPC_PROTO_VERSION;
  r->op = DSPC_OP_CALL;
  r->length = sizeof *r + 4;
  r->seq = seq;
  r->status = DSPC_PROTO_OK;
  r->payload_bytes = 4;
  r->error_bytes = 0;
  *(int32_t*)(r + 1) = 0; /* the kernel's status */
  __atomic_store_n(&ctl->reply_seq, seq, __ATOMIC_SEQ_CST);
  sys(NR_FUTEX, (long)&ctl->reply_seq, FUTEX_WAKE, 1, 0, 0);
  for (int32_t k = 0;; k++) a[k & 1023] = k;
}

/* forge_twice(A: i32[1024]): answers its own CALL as forge_reply does; once the host asks the
 * server to wait (park_request), moves reply_seq on as a second reply would, and waits on
 * request_seq as the server does: it looks parked, but has answered a request never sent. */
static int32_t forge_twice(void** args, dspc_context* ctx) {
  dspc_proto_control* ctl = control_block(args[0]);
  char* arena = (char*)ctl;
  uint32_t seq = ((const dspc_proto_request*)(arena + DSPC_PROTO_REQUEST_OFFSET))->seq;
  dspc_proto_reply* r = (dspc_proto_reply*)(arena + DSPC_PROTO_REPLY_OFFSET);
  *r = (dspc_proto_reply){DSPC_PROTO_REPLY_MAGIC, DSPC_PROTO_VERSION, DSPC_OP_CALL, sizeof *r + 4, seq, 0, 4, 0, 0};
  *(int32_t*)(r + 1) = 0;
  __atomic_store_n(&ctl->reply_seq, seq, __ATOMIC_SEQ_CST);
  sys(NR_FUTEX, (long)&ctl->reply_seq, FUTEX_WAKE, 1, 0, 0);
  while (!__atomic_load_n(&ctl->park_request, __ATOMIC_SEQ_CST)) {
  }
  __atomic_store_n(&ctl->reply_seq, seq + 1, __ATOMIC_SEQ_CST);
  for (;;) sys(NR_FUTEX, (long)&ctl->request_seq, 0 /* FUTEX_WAIT */, (long)ctl->request_seq, 0, 0);
}

/* start_thread(A: i32[1024]): starts a thread (clone with the thread flags) that increments A[0]
 * forever, and returns. The thread runs on a stack of its own and touches no memory but A. */
static int32_t start_thread(void** args, dspc_context* ctx) {
  static char stack[4096] __attribute__((aligned(8)));
  register long r0 __asm__("r0") = CLONE_THREAD_FLAGS;
  register long r1 __asm__("r1") = (long)(stack + sizeof stack);
  register long r2 __asm__("r2") = 0;
  register long r3 __asm__("r3") = 0;
  register long r4 __asm__("r4") = 0;
  register long r6 __asm__("r6") = NR_CLONE;
  register long r7 __asm__("r7") = (long)args[0];
  __asm__ volatile(
      "trap0(#1)\n"
      "p0 = cmp.eq(r0, #0)\n"
      "if (!p0) jump 1f\n"
      "2:\n"
      "r9 = memw(r7+#0)\n"
      "r9 = add(r9, #1)\n"
      "memw(r7+#0) = r9\n"
      "jump 2b\n"
      "1:\n"
      : "+r"(r0)
      : "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r6), "r"(r7)
      : "r9", "p0", "memory");
  return r0 > 0 ? 0 : DSPC_ERR_KERNEL;
}

static const int64_t shape_1[] = {1}, shape_2[] = {2}, shape_path[] = {PATH_BYTES}, shape_chunk[] = {CHUNK},
                     shape_1024[] = {1024};
#define PATH_PARAM {"PATH", DSPC_TYPE_UINT, 8, 0, 1, shape_path}
#define I32_1(name, out) {name, DSPC_TYPE_INT, 32, out, 1, shape_1}
static const dspc_param_desc path_result[] = {PATH_PARAM, I32_1("R", 1)};
static const dspc_param_desc mem_write[] = {PATH_PARAM, {"ADDR", DSPC_TYPE_UINT, 64, 0, 1, shape_1}, I32_1("R", 1)};
static const dspc_param_desc mem_read[] = {
    PATH_PARAM, {"ADDR", DSPC_TYPE_UINT, 64, 0, 1, shape_1}, {"R", DSPC_TYPE_INT, 64, 1, 1, shape_2}};
static const dspc_param_desc result[] = {I32_1("R", 1)};
static const dspc_param_desc value_result[] = {I32_1("X", 0), I32_1("R", 1)};
static const dspc_param_desc chunk_times[] = {{"CHUNK", DSPC_TYPE_UINT, 8, 0, 1, shape_chunk}, I32_1("TIMES", 0)};
static const dspc_param_desc buffer[] = {{"A", DSPC_TYPE_INT, 32, 1, 1, shape_1024}};

#define N(params) (sizeof params / sizeof params[0])
const dspc_func_desc __dspc_funcs[] = {
    {"write_file", write_file, N(path_result), path_result, 0},
    {"proc_mem_write", proc_mem_write, N(mem_write), mem_write, 0},
    {"read_at", read_at, N(mem_read), mem_read, 0},
    {"fork_child", fork_child, N(result), result, 0},
    {"open_socket", open_socket, N(result), result, 0},
    {"run_program", run_program, N(path_result), path_result, 0},
    {"ptrace_host", ptrace_host, N(value_result), value_result, 0},
    {"signal_host", signal_host, N(value_result), value_result, 0},
    {"probe_fd", probe_fd, N(value_result), value_result, 0},
    {"write_stdout", write_stdout, N(chunk_times), chunk_times, 0},
    {"forge_reply", forge_reply, N(buffer), buffer, 0},
    {"forge_twice", forge_twice, N(buffer), buffer, 0},
    {"start_thread", start_thread, N(buffer), buffer, 0},
};
const uint32_t __dspc_num_funcs = sizeof __dspc_funcs / sizeof __dspc_funcs[0];
