/* Linux system calls on x86-64 (the host target), for platform_linux.c. */
#ifndef DSPC_SYSCALL_X86_64_H
#define DSPC_SYSCALL_X86_64_H

#include <stddef.h>

enum {
  SYS_READ = 0,
  SYS_WRITE = 1,
  SYS_CLOSE = 3,
  SYS_MMAP = 9,
  SYS_MUNMAP = 11,
  SYS_EXIT_GROUP = 231,
  SYS_OPENAT = 257,
};

#define DSPC_MAP_MAX_BYTES ((size_t)1 << 40)

static inline long syscall6(long nr, long a, long b, long c, long d, long e, long f) {
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

/* The offset is in bytes. */
static inline long sys_mmap(long addr, long len, long prot, long flags, long fd, long offset) {
  return syscall6(SYS_MMAP, addr, len, prot, flags, fd, offset);
}

#endif
