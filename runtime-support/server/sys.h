/* The system calls the device server needs beyond platform.h: shared and executable mappings
 * and futexes. The server runs under qemu-hexagon; a host build (the ELF loader and the request
 * handling, for tests/fuzz/) gets libc's equivalents instead. */
#ifndef DSPC_SERVER_SYS_H
#define DSPC_SERVER_SYS_H

#ifndef __hexagon__
#include "sys_host.h"
#else

#include "syscall_hexagon.h"

enum {
  SRV_SYS_FUTEX = 98,
  SRV_PROT_READ = 1,
  SRV_PROT_WRITE = 2,
  SRV_PROT_EXEC = 4,
  SRV_MAP_SHARED = 0x01,
  SRV_MAP_PRIVATE = 0x02,
  SRV_MAP_ANONYMOUS = 0x20,
  SRV_FUTEX_WAIT = 0,
  SRV_FUTEX_WAKE = 1,
};

static inline int srv_is_error(long r) {
  return (unsigned long)r > (unsigned long)-4096L;
}

/* NULL on failure. */
static inline void* srv_mmap(size_t nbytes, int prot, int flags, int fd) {
  long r = sys_mmap(0, (long)nbytes, prot, flags, fd, 0);
  return srv_is_error(r) ? 0 : (void*)r;
}

/* 0 on success. */
static inline int srv_mprotect(void* p, size_t nbytes, int prot) {
  return srv_is_error(syscall6(226 /* mprotect */, (long)p, (long)nbytes, prot, 0, 0, 0)) ? -1 : 0;
}

static inline void srv_munmap(void* p, size_t nbytes) {
  syscall6(SYS_MUNMAP, (long)p, (long)nbytes, 0, 0, 0, 0);
}

/* Not FUTEX_PRIVATE: the word is in memory shared with the host process. */
static inline void srv_futex_wait(volatile uint32_t* word, uint32_t expected) {
  syscall6(SRV_SYS_FUTEX, (long)word, SRV_FUTEX_WAIT, (long)expected, 0, 0, 0);
}

static inline void srv_futex_wake(volatile uint32_t* word) {
  syscall6(SRV_SYS_FUTEX, (long)word, SRV_FUTEX_WAKE, 0x7fffffff, 0, 0, 0);
}

#endif /* __hexagon__ */

#endif
