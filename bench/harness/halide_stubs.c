/* The symbols a Halide 14 object compiled with no_runtime leaves undefined, for a
 * freestanding single-threaded program. malloc maps fresh zeroed pages (the kernels allocate
 * only a few scratch rows, once per call); halide_error prints and the pipeline then returns
 * its non-zero status to the harness. */
#include <stddef.h>
#include <stdint.h>

#include "../../runtime-support/device/platform.h"
#include "bench.h"

void* malloc(size_t n) {
  /* 128 bytes of header keep the block 128-byte aligned and remember the size. */
  uint8_t* p = dspc_platform_map(n + 128);
  if (!p) return NULL;
  *(size_t*)p = n + 128;
  return p + 128;
}

void free(void* ptr) {
  if (!ptr) return;
  uint8_t* p = (uint8_t*)ptr - 128;
  dspc_platform_unmap(p, *(size_t*)p);
}

void halide_error(void* user_context, const char* msg) {
  (void)user_context;
  bench_puts("halide_error: ");
  bench_puts(msg);
  bench_puts("\n");
}

int halide_msan_annotate_memory_is_initialized(void* user_context, const void* ptr, uint64_t len) {
  (void)user_context;
  (void)ptr;
  (void)len;
  return 0;
}

char* halide_string_to_string(char* dst, char* end, const char* arg) {
  if (dst >= end) return dst;
  if (!arg) arg = "<NULL>";
  while (*arg && dst < end - 1) *dst++ = *arg++;
  *dst = 0;
  return dst;
}

int qurt_hvx_lock(int mode) {
  (void)mode;
  return 0;
}

int qurt_hvx_unlock(void) { return 0; }

/* compute_root Funcs (dense's swizzled B) allocate through these. */
void* halide_malloc(void* user_context, size_t n) {
  (void)user_context;
  return malloc(n);
}

void halide_free(void* user_context, void* ptr) {
  (void)user_context;
  free(ptr);
}
