/* Platform layer for x86-64 Linux: start-up and system calls, no libc. The host target runs
 * the same runner natively. */
#include "platform.h"

enum {
  SYS_READ = 0,
  SYS_WRITE = 1,
  SYS_CLOSE = 3,
  SYS_MMAP = 9,
  SYS_MUNMAP = 11,
  SYS_EXIT_GROUP = 231,
  SYS_OPENAT = 257,
};

enum { AT_FDCWD = -100, O_RDONLY = 0, O_WRONLY = 1, O_CREAT = 0100, O_TRUNC = 01000 };
enum { PROT_READ = 1, PROT_WRITE = 2, MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20 };

static long syscall6(long nr, long a, long b, long c, long d, long e, long f) {
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

static int is_error(long r) {
  return (unsigned long)r > (unsigned long)-4096L;
}

void* dspc_platform_map(size_t nbytes) {
  if (nbytes == 0 || nbytes > ((size_t)1 << 40)) return NULL;
  long r = syscall6(SYS_MMAP, 0, (long)nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

/* The kernel leaves rsp pointing at argc, then argv[0..argc-1], NULL, envp. */
__attribute__((used)) static void dspc_start_c(long* sp) {
  int argc = (int)sp[0];
  char** argv = (char**)(sp + 1);
  dspc_platform_exit(dspc_main(argc, argv));
}

/* The ABI wants rsp 16-byte aligned before a call; align to 128 like the Hexagon side. */
__attribute__((naked, noreturn)) void _start(void) {
  __asm__ volatile(
      "xor %ebp, %ebp\n"
      "mov %rsp, %rdi\n"
      "and $-128, %rsp\n"
      "call dspc_start_c\n"
      "hlt\n");
}
