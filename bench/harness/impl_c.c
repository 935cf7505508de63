/* bench_call for the plain C kernels in bench/c/: void c_NAME(buffers...). */
#include "bench.h"

#if defined(BENCH_KERNEL_vadd_u8) || defined(BENCH_KERNEL_conv3x3a16) || defined(BENCH_KERNEL_dense) || \
    defined(BENCH_KERNEL_row_sad_u8) || defined(BENCH_KERNEL_matmul_i8) || defined(BENCH_KERNEL_add_sat_u16)
#if defined(BENCH_KERNEL_vadd_u8)
#define FN c_vadd_u8
#elif defined(BENCH_KERNEL_conv3x3a16)
#define FN c_conv3x3a16
#elif defined(BENCH_KERNEL_row_sad_u8)
#define FN c_row_sad_u8
#elif defined(BENCH_KERNEL_matmul_i8)
#define FN c_matmul_i8
#elif defined(BENCH_KERNEL_add_sat_u16)
#define FN c_add_sat_u16
#else
#define FN c_dense
#endif
void FN(void*, void*, void*);
int bench_call(void** b) {
  FN(b[0], b[1], b[2]);
  return 0;
}
#elif defined(BENCH_KERNEL_rgb_to_gray_u8)
void c_rgb_to_gray_u8(void*, void*, void*, void*);
int bench_call(void** b) {
  c_rgb_to_gray_u8(b[0], b[1], b[2], b[3]);
  return 0;
}
#elif defined(BENCH_KERNEL_threshold_u8)
/* The threshold is a scalar argument: the value of the one-element tensor T. */
void c_threshold_u8(void*, uint8_t, void*);
int bench_call(void** b) {
  c_threshold_u8(b[0], *(const uint8_t*)b[1], b[2]);
  return 0;
}
#else
#if defined(BENCH_KERNEL_dilate3x3)
#define FN c_dilate3x3
#elif defined(BENCH_KERNEL_median3x3)
#define FN c_median3x3
#elif defined(BENCH_KERNEL_gaussian5x5)
#define FN c_gaussian5x5
#elif defined(BENCH_KERNEL_downscale2x2_u8)
#define FN c_downscale2x2_u8
#elif defined(BENCH_KERNEL_fir16_i16)
#define FN c_fir16_i16
#elif defined(BENCH_KERNEL_box5x5_u8)
#define FN c_box5x5_u8
#elif defined(BENCH_KERNEL_transpose_u8)
#define FN c_transpose_u8
#elif defined(BENCH_KERNEL_box3x3_u16)
#define FN c_box3x3_u16
#else
#define FN c_sobel
#endif
void FN(void*, void*);
int bench_call(void** b) {
  FN(b[0], b[1]);
  return 0;
}
#endif
