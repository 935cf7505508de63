/* The platform layer for the host unit tests: libc's mmap, with a count of live mappings so
 * that tests can check that frees give memory back. */
#define _DEFAULT_SOURCE
#include <sys/mman.h>

#include "platform.h"

static int live_mappings;

int dspc_test_live_mappings(void) {
  return live_mappings;
}

void* dspc_platform_map(size_t nbytes) {
  if (nbytes == 0) return NULL;
  void* p = mmap(NULL, nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  live_mappings++;
  return p;
}

void dspc_platform_unmap(void* ptr, size_t nbytes) {
  if (!ptr) return;
  munmap(ptr, nbytes);
  live_mappings--;
}
