/* bench_call for Halide 14: the pipeline is int halide_NAME(halide_buffer_t*...), built by
 * bench/halide/halide_kernels.cpp, its buffers in the harness's parameter order (inputs, then
 * outputs). halide_buffer_t is declared here with the layout of Halide 14's HalideRuntime.h
 * (which needs a libc's headers we do not have); Halide orders dimensions innermost first, so
 * the row-major extents are reversed. run.py passes the kernel's name as -DBENCH_NAME=NAME. */
#include "bench.h"

typedef struct {
  int32_t min, extent, stride;
  uint32_t flags;
} halide_dimension_t;
typedef struct {
  uint8_t code, bits;
  uint16_t lanes;
} halide_type_t;
typedef struct {
  uint64_t device;
  const void* device_interface;
  uint8_t* host;
  uint64_t flags;
  halide_type_t type;
  int32_t dimensions;
  halide_dimension_t* dim;
  void* padding;
} halide_buffer_t;
_Static_assert(sizeof(halide_buffer_t) == 40, "Halide 14 buffer layout, 32-bit");

#ifndef BENCH_NAME
#error "compile with -DBENCH_NAME=<kernel>"
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FN CAT(halide_, BENCH_NAME)
typedef halide_buffer_t* hb_t;

#if defined(BENCH_KERNEL_threshold_u8)
/* The threshold is a Param<uint8_t>: the pipeline takes its value, not a buffer. */
int halide_threshold_u8(hb_t, uint8_t, hb_t);
#define CALL(hb, b) halide_threshold_u8(&hb[0], *(const uint8_t*)b[1], &hb[2])
#else
int FN(void); /* its real type is one of the casts below */
typedef int (*fn2)(hb_t, hb_t);
typedef int (*fn3)(hb_t, hb_t, hb_t);
typedef int (*fn4)(hb_t, hb_t, hb_t, hb_t);
typedef int (*fn5)(hb_t, hb_t, hb_t, hb_t, hb_t);
typedef int (*fn6)(hb_t, hb_t, hb_t, hb_t, hb_t, hb_t);
static int call(hb_t hb) {
  switch (bench_num_params) {
    case 2: return ((fn2)FN)(&hb[0], &hb[1]);
    case 3: return ((fn3)FN)(&hb[0], &hb[1], &hb[2]);
    case 4: return ((fn4)FN)(&hb[0], &hb[1], &hb[2], &hb[3]);
    case 5: return ((fn5)FN)(&hb[0], &hb[1], &hb[2], &hb[3], &hb[4]);
    case 6: return ((fn6)FN)(&hb[0], &hb[1], &hb[2], &hb[3], &hb[4], &hb[5]);
  }
  bench_puts("error: impl_halide.c has no call for this many parameters\n");
  return -1;
}
#define CALL(hb, b) call(hb)
#endif

int bench_call(void** b) {
  static halide_buffer_t hb[BENCH_MAX_PARAMS];
  static halide_dimension_t dims[BENCH_MAX_PARAMS][3];
  for (int i = 0; i < bench_num_params; i++) {
    const bench_param* p = &bench_params[i];
    int32_t stride = 1;
    for (int d = 0; d < p->ndim; d++) {
      int32_t extent = p->dims[p->ndim - 1 - d];
      dims[i][d] = (halide_dimension_t){0, extent, stride, 0};
      stride *= extent;
    }
    hb[i] = (halide_buffer_t){0, 0, b[i], 0, {p->code, p->bits, 1}, p->ndim, dims[i], 0};
  }
  return CALL(hb, b);
}
