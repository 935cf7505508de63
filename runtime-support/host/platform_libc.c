/* The platform layer of libdspc_host.so: the device runtime's pool and workspace, compiled for
 * the in-process host target, map memory through libc. */
#define _DEFAULT_SOURCE
#include <sys/mman.h>

#include "platform.h"

void* dspc_platform_map(size_t nbytes) {
  if (nbytes == 0) return NULL;
  void* p = mmap(NULL, nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void dspc_platform_unmap(void* ptr, size_t nbytes) {
  if (ptr) munmap(ptr, nbytes);
}
