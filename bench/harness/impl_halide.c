/* bench_call for Halide 14: the pipeline is int halide_NAME(halide_buffer_t*...), built by
 * bench/halide/halide_kernels.cpp. halide_buffer_t is declared here with the layout of
 * Halide 14's HalideRuntime.h (which needs a libc's headers we do not have); Halide orders
 * dimensions innermost first, so the row-major extents are reversed. */
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

#if defined(BENCH_KERNEL_vadd_u8)
#define FN halide_vadd_u8
#define ARGS 3
#elif defined(BENCH_KERNEL_conv3x3a16)
#define FN halide_conv3x3a16
#define ARGS 3
#elif defined(BENCH_KERNEL_dense)
#define FN halide_dense
#define ARGS 3
#elif defined(BENCH_KERNEL_dilate3x3)
#define FN halide_dilate3x3
#define ARGS 2
#elif defined(BENCH_KERNEL_median3x3)
#define FN halide_median3x3
#define ARGS 2
#elif defined(BENCH_KERNEL_gaussian5x5)
#define FN halide_gaussian5x5
#define ARGS 2
#elif defined(BENCH_KERNEL_sobel)
#define FN halide_sobel
#define ARGS 2
#elif defined(BENCH_KERNEL_downscale2x2_u8)
#define FN halide_downscale2x2_u8
#define ARGS 2
#elif defined(BENCH_KERNEL_row_sad_u8)
#define FN halide_row_sad_u8
#define ARGS 3
#elif defined(BENCH_KERNEL_fir16_i16)
#define FN halide_fir16_i16
#define ARGS 2
#elif defined(BENCH_KERNEL_matmul_i8)
#define FN halide_matmul_i8
#define ARGS 3
#elif defined(BENCH_KERNEL_box5x5_u8)
#define FN halide_box5x5_u8
#define ARGS 2
#elif defined(BENCH_KERNEL_add_sat_u16)
#define FN halide_add_sat_u16
#define ARGS 3
#elif defined(BENCH_KERNEL_rgb_to_gray_u8)
#define FN halide_rgb_to_gray_u8
#define ARGS 4
#elif defined(BENCH_KERNEL_transpose_u8)
#define FN halide_transpose_u8
#define ARGS 2
#elif defined(BENCH_KERNEL_threshold_u8)
/* The threshold is a Param<uint8_t>: the pipeline takes its value, not a buffer. */
#define FN halide_threshold_u8
#define ARGS 3
#define SCALAR_ARG1 1
#elif defined(BENCH_KERNEL_box3x3_u16)
#define FN halide_box3x3_u16
#define ARGS 2
#endif

#if defined(SCALAR_ARG1)
int FN(halide_buffer_t*, uint8_t, halide_buffer_t*);
#elif ARGS == 4
int FN(halide_buffer_t*, halide_buffer_t*, halide_buffer_t*, halide_buffer_t*);
#elif ARGS == 3
int FN(halide_buffer_t*, halide_buffer_t*, halide_buffer_t*);
#else
int FN(halide_buffer_t*, halide_buffer_t*);
#endif

int bench_call(void** b) {
  static halide_buffer_t hb[4];
  static halide_dimension_t dims[4][2];
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
#if defined(SCALAR_ARG1)
  return FN(&hb[0], *(const uint8_t*)b[1], &hb[2]);
#elif ARGS == 4
  return FN(&hb[0], &hb[1], &hb[2], &hb[3]);
#elif ARGS == 3
  return FN(&hb[0], &hb[1], &hb[2]);
#else
  return FN(&hb[0], &hb[1]);
#endif
}
