/* Linux system calls on Hexagon (qemu-hexagon user mode), for platform_linux.c.
 *
 * A system call is `trap0(#1)` with the number in r6, arguments in r0..r5 and the result in
 * r0. Hexagon uses the asm-generic numbers. */
#ifndef DSPC_SYSCALL_HEXAGON_H
#define DSPC_SYSCALL_HEXAGON_H

#include <stddef.h>

enum {
  SYS_OPENAT = 56,
  SYS_CLOSE = 57,
  SYS_READ = 63,
  SYS_WRITE = 64,
  SYS_EXIT_GROUP = 94,
  SYS_MUNMAP = 215,
  SYS_MMAP2 = 222,
};

/* A 32-bit address space: larger requests cannot succeed and would wrap `long`. */
#define DSPC_MAP_MAX_BYTES ((size_t)0x7fffffff)

static inline long syscall6(long nr, long a, long b, long c, long d, long e, long f) {
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

/* This 32-bit ABI has no plain mmap, only mmap2, whose offset is in 4096-byte units. */
static inline long sys_mmap(long addr, long len, long prot, long flags, long fd, long offset) {
  return syscall6(SYS_MMAP2, addr, len, prot, flags, fd, offset >> 12);
}

#endif
