/* sys.h for a host build of the server's ELF loader (tests/fuzz/): libc's mmap, mprotect and
 * munmap for the module's image. Futexes are not needed there. */
#ifndef DSPC_SERVER_SYS_HOST_H
#define DSPC_SERVER_SYS_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

enum {
  SRV_PROT_READ = PROT_READ,
  SRV_PROT_WRITE = PROT_WRITE,
  SRV_PROT_EXEC = PROT_EXEC,
  SRV_MAP_SHARED = MAP_SHARED,
  SRV_MAP_PRIVATE = MAP_PRIVATE,
  SRV_MAP_ANONYMOUS = MAP_ANONYMOUS,
};

static inline void* srv_mmap(size_t nbytes, int prot, int flags, int fd) {
  void* p = mmap(0, nbytes, prot, flags, fd, 0);
  return p == MAP_FAILED ? 0 : p;
}

static inline int srv_mprotect(void* p, size_t nbytes, int prot) {
  return mprotect(p, nbytes, prot) ? -1 : 0;
}

static inline void srv_munmap(void* p, size_t nbytes) {
  munmap(p, nbytes);
}

#endif
