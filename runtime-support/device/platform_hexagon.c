/* Platform layer for Hexagon Linux user mode (qemu-hexagon): start-up and system calls.
 *
 * System calls are `trap0(#1)` with the number in r6, arguments in r0..r5 and the result in
 * r0. Hexagon uses the asm-generic numbers; on this 32-bit ABI number 222 is mmap2, whose
 * offset is in pages (we only map anonymous memory at offset 0, so that makes no difference). */
#include "platform.h"

enum {
  SYS_OPENAT = 56,
  SYS_CLOSE = 57,
  SYS_READ = 63,
  SYS_WRITE = 64,
  SYS_EXIT_GROUP = 94,
  SYS_MUNMAP = 215,
  SYS_MMAP2 = 222,
};

enum { AT_FDCWD = -100, O_RDONLY = 0, O_WRONLY = 1, O_CREAT = 0100, O_TRUNC = 01000 };
enum { PROT_READ = 1, PROT_WRITE = 2, MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20 };

static long syscall6(long nr, long a, long b, long c, long d, long e, long f) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r3 __asm__("r3") = d;
  register long r4 __asm__("r4") = e;
  register long r5 __asm__("r5") = f;
  register long r6 __asm__("r6") = nr;
  __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5), "r"(r6) : "memory");
  return r0;
}

/* A result in [-4095, -1] is -errno; mmap addresses above 2 GiB look negative too. */
static int is_error(long r) {
  return (unsigned long)r > (unsigned long)-4096L;
}

void* dspc_platform_map(size_t nbytes) {
  if (nbytes == 0 || nbytes > 0x7fffffffu) return NULL;
  long r = syscall6(SYS_MMAP2, 0, (long)nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return is_error(r) ? NULL : (void*)r;
}

void dspc_platform_unmap(void* ptr, size_t nbytes) {
  if (ptr) syscall6(SYS_MUNMAP, (long)ptr, (long)nbytes, 0, 0, 0, 0);
}

int dspc_platform_open_read(const char* path) {
  return (int)syscall6(SYS_OPENAT, AT_FDCWD, (long)path, O_RDONLY, 0, 0, 0);
}

int dspc_platform_open_write(const char* path) {
  return (int)syscall6(SYS_OPENAT, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644, 0, 0);
}

long dspc_platform_read(int fd, void* buf, size_t n) {
  return syscall6(SYS_READ, fd, (long)buf, (long)n, 0, 0, 0);
}

long dspc_platform_write(int fd, const void* buf, size_t n) {
  return syscall6(SYS_WRITE, fd, (long)buf, (long)n, 0, 0, 0);
}

int dspc_platform_close(int fd) {
  return (int)syscall6(SYS_CLOSE, fd, 0, 0, 0, 0, 0);
}

void dspc_platform_exit(int code) {
  for (;;) syscall6(SYS_EXIT_GROUP, code, 0, 0, 0, 0, 0);
}

/* The kernel leaves sp pointing at argc, then argv[0..argc-1], NULL, envp. */
__attribute__((used)) static void dspc_start_c(long* sp) {
  int argc = (int)sp[0];
  char** argv = (char**)(sp + 1);
  dspc_platform_exit(dspc_main(argc, argv));
}

/* Align sp for HVX spills (128 bytes) and clear the frame pointer for debuggers. */
__attribute__((naked, noreturn)) void _start(void) {
  __asm__ volatile(
      "r0 = r29\n"
      "r29 = and(r29, #-128)\n"
      "r30 = #0\n"
      "call dspc_start_c\n");
}
