/* bench_call for dspc: the kernel is int32_t NAME(buffers..., dspc_context* ctx) from
 * `dspc NAME.dsp --emit=obj` (prototype as --emit=header gives it, with untyped pointers: every
 * parameter but the last is a buffer). The context is runtime-support's default one. */
#include "bench.h"

typedef struct dspc_context dspc_context;
dspc_context* dspc_context_default(void); /* runtime-support (dspc_runtime.h) */

#if defined(BENCH_KERNEL_vadd_u8)
int32_t vadd_u8(void*, void*, void*, dspc_context*);
int bench_call(void** b) { return vadd_u8(b[0], b[1], b[2], dspc_context_default()); }
#elif defined(BENCH_KERNEL_conv3x3a16)
int32_t conv3x3a16(void*, void*, void*, dspc_context*);
int bench_call(void** b) { return conv3x3a16(b[0], b[1], b[2], dspc_context_default()); }
#elif defined(BENCH_KERNEL_dense)
int32_t dense(void*, void*, void*, dspc_context*);
int bench_call(void** b) { return dense(b[0], b[1], b[2], dspc_context_default()); }
#elif defined(BENCH_KERNEL_dilate3x3)
int32_t dilate3x3(void*, void*, dspc_context*);
int bench_call(void** b) { return dilate3x3(b[0], b[1], dspc_context_default()); }
#elif defined(BENCH_KERNEL_median3x3)
int32_t median3x3(void*, void*, dspc_context*);
int bench_call(void** b) { return median3x3(b[0], b[1], dspc_context_default()); }
#elif defined(BENCH_KERNEL_gaussian5x5)
int32_t gaussian5x5(void*, void*, dspc_context*);
int bench_call(void** b) { return gaussian5x5(b[0], b[1], dspc_context_default()); }
#elif defined(BENCH_KERNEL_sobel)
int32_t sobel(void*, void*, dspc_context*);
int bench_call(void** b) { return sobel(b[0], b[1], dspc_context_default()); }
#elif defined(BENCH_KERNEL_downscale2x2_u8)
int32_t downscale2x2_u8(void*, void*, dspc_context*);
int bench_call(void** b) { return downscale2x2_u8(b[0], b[1], dspc_context_default()); }
#elif defined(BENCH_KERNEL_row_sad_u8)
int32_t row_sad_u8(void*, void*, void*, dspc_context*);
int bench_call(void** b) { return row_sad_u8(b[0], b[1], b[2], dspc_context_default()); }
#elif defined(BENCH_KERNEL_fir16_i16)
int32_t fir16_i16(void*, void*, dspc_context*);
int bench_call(void** b) { return fir16_i16(b[0], b[1], dspc_context_default()); }
#elif defined(BENCH_KERNEL_matmul_i8)
int32_t matmul_i8(void*, void*, void*, dspc_context*);
int bench_call(void** b) { return matmul_i8(b[0], b[1], b[2], dspc_context_default()); }
#elif defined(BENCH_KERNEL_box5x5_u8)
int32_t box5x5_u8(void*, void*, dspc_context*);
int bench_call(void** b) { return box5x5_u8(b[0], b[1], dspc_context_default()); }
#elif defined(BENCH_KERNEL_add_sat_u16)
int32_t add_sat_u16(void*, void*, void*, dspc_context*);
int bench_call(void** b) { return add_sat_u16(b[0], b[1], b[2], dspc_context_default()); }
#elif defined(BENCH_KERNEL_rgb_to_gray_u8)
int32_t rgb_to_gray_u8(void*, void*, void*, void*, dspc_context*);
int bench_call(void** b) { return rgb_to_gray_u8(b[0], b[1], b[2], b[3], dspc_context_default()); }
#elif defined(BENCH_KERNEL_transpose_u8)
int32_t transpose_u8(void*, void*, dspc_context*);
int bench_call(void** b) { return transpose_u8(b[0], b[1], dspc_context_default()); }
#elif defined(BENCH_KERNEL_threshold_u8)
/* T, the threshold, is a one-element tensor. */
int32_t threshold_u8(void*, void*, void*, dspc_context*);
int bench_call(void** b) { return threshold_u8(b[0], b[1], b[2], dspc_context_default()); }
#elif defined(BENCH_KERNEL_box3x3_u16)
int32_t box3x3_u16(void*, void*, dspc_context*);
int bench_call(void** b) { return box3x3_u16(b[0], b[1], dspc_context_default()); }
#endif
