/* bench_call for the plain C kernels in bench/c/: void c_NAME(buffers...). */
#include "bench.h"

#if defined(BENCH_KERNEL_vadd_u8) || defined(BENCH_KERNEL_conv3x3a16) || defined(BENCH_KERNEL_dense)
#if defined(BENCH_KERNEL_vadd_u8)
#define FN c_vadd_u8
#elif defined(BENCH_KERNEL_conv3x3a16)
#define FN c_conv3x3a16
#else
#define FN c_dense
#endif
void FN(void*, void*, void*);
int bench_call(void** b) {
  FN(b[0], b[1], b[2]);
  return 0;
}
#else
#if defined(BENCH_KERNEL_dilate3x3)
#define FN c_dilate3x3
#elif defined(BENCH_KERNEL_median3x3)
#define FN c_median3x3
#elif defined(BENCH_KERNEL_gaussian5x5)
#define FN c_gaussian5x5
#else
#define FN c_sobel
#endif
void FN(void*, void*);
int bench_call(void** b) {
  FN(b[0], b[1]);
  return 0;
}
#endif
