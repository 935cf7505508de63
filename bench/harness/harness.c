/* The checking program around one kernel: fills the inputs with fixed pseudo-random data,
 * runs the implementation under test once (bench_call), computes the output again with a
 * scalar reference (reference_<kernel>, compiled without vectorisation) and compares every
 * element. Exit status 0 when all match, 1 on a mismatch or a failing kernel.
 *
 * Compiled with -DBENCH_KERNEL_<name> for one of the kernels of bench/run.py. */
#include "bench.h"

#include "../../runtime-support/device/platform.h"

#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static inline uint8_t px(const uint8_t* in, int y, int x) {
  return in[CLAMP(y, 0, H - 1) * W + CLAMP(x, 0, W - 1)];
}

/* The references. noinline keeps each one a separately named function, so the packet
 * count of the kernel never includes it. */
#define REF __attribute__((noinline))

// conv3x3a16 and conv3x3a32: u8 by i8 3x3 taps, the sum in ACC (wrapping at its width), >> 4,
// clamped to u8.
#define CONV3X3_KERNEL(ACC)                                                                          \
  const bench_param bench_params[] = {                                                               \
      {"I", 1, 8, 0, 2, {H, W}}, {"K", 0, 8, 0, 2, {3, 3}}, {"O", 1, 8, 1, 2, {H, W}}};             \
  REF static void reference(void** b) {                                                              \
    const uint8_t* in = b[0];                                                                        \
    const int8_t* k = b[1];                                                                          \
    uint8_t* o = b[2];                                                                               \
    for (int y = 0; y < H; y++)                                                                      \
      for (int x = 0; x < W; x++) {                                                                  \
        ACC s = 0;                                                                                   \
        for (int r = 0; r < 3; r++)                                                                  \
          for (int c = 0; c < 3; c++) s = (ACC)(s + (ACC)px(in, y + r - 1, x + c - 1) * k[r * 3 + c]); \
        int v = s >> 4;                                                                              \
        o[y * W + x] = (uint8_t)CLAMP(v, 0, 255);                                                    \
      }                                                                                              \
  }

#if defined(BENCH_NN_OPS) /* the op library's Halide peers: nn_bench.py */
#include "nn_refs.h"
#elif defined(BENCH_KERNEL_vadd_u8)
const bench_param bench_params[] = {
    {"A", 1, 8, 0, 1, {65536}}, {"B", 1, 8, 0, 1, {65536}}, {"C", 1, 8, 1, 1, {65536}}};
REF static void reference(void** b) {
  const uint8_t *a = b[0], *bb = b[1];
  uint8_t* c = b[2];
  for (int i = 0; i < 65536; i++) c[i] = (uint8_t)(a[i] + bb[i]);
}
#elif defined(BENCH_KERNEL_conv3x3a16)
CONV3X3_KERNEL(int16_t)
#elif defined(BENCH_KERNEL_dilate3x3)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H, W}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int m = 0;
      for (int r = -1; r <= 1; r++)
        for (int c = -1; c <= 1; c++) m = MAX(m, px(in, y + r, x + c));
      o[y * W + x] = (uint8_t)m;
    }
}
#elif defined(BENCH_KERNEL_median3x3)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H, W}}, {"O", 1, 8, 1, 2, {H, W}}};
/* A different network from the kernels' column sort: Paeth's 19-exchange median of nine
 * (as in N. Devillard's opt_med9), checked against sorting on the host. */
#define SORT2(a, b)                           \
  {                                           \
    int lo_ = MIN(v[a], v[b]), hi_ = MAX(v[a], v[b]); \
    v[a] = lo_;                               \
    v[b] = hi_;                               \
  }
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int v[9], n = 0;
      for (int r = -1; r <= 1; r++)
        for (int c = -1; c <= 1; c++) v[n++] = px(in, y + r, x + c);
      SORT2(1, 2) SORT2(4, 5) SORT2(7, 8) SORT2(0, 1) SORT2(3, 4) SORT2(6, 7) SORT2(1, 2)
      SORT2(4, 5) SORT2(7, 8) SORT2(0, 3) SORT2(5, 8) SORT2(4, 7) SORT2(3, 6) SORT2(1, 4)
      SORT2(2, 5) SORT2(4, 7) SORT2(4, 2) SORT2(6, 4) SORT2(4, 2)
      o[y * W + x] = (uint8_t)v[4];
    }
}
#elif defined(BENCH_KERNEL_gaussian5x5)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H, W}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  static const int w[5] = {1, 4, 6, 4, 1};
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int s = 0;
      for (int r = 0; r < 5; r++)
        for (int c = 0; c < 5; c++) s += w[r] * w[c] * px(in, y + r - 2, x + c - 2);
      o[y * W + x] = (uint8_t)(s >> 8);
    }
}
#elif defined(BENCH_KERNEL_sobel)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H, W}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int gx = px(in, y - 1, x - 1) + 2 * px(in, y - 1, x) + px(in, y - 1, x + 1) -
               px(in, y + 1, x - 1) - 2 * px(in, y + 1, x) - px(in, y + 1, x + 1);
      int gy = px(in, y - 1, x - 1) + 2 * px(in, y, x - 1) + px(in, y + 1, x - 1) -
               px(in, y - 1, x + 1) - 2 * px(in, y, x + 1) - px(in, y + 1, x + 1);
      int v = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
      o[y * W + x] = (uint8_t)MIN(v, 255);
    }
}
#elif defined(BENCH_KERNEL_dense)
const bench_param bench_params[] = {
    {"A", 1, 8, 0, 2, {DM, DK}}, {"B", 1, 8, 0, 2, {DK, DN}}, {"C", 1, 32, 1, 2, {DM, DN}}};
REF static void reference(void** b) {
  const uint8_t *a = b[0], *bb = b[1];
  uint32_t* c = b[2];
  for (int m = 0; m < DM; m++)
    for (int n = 0; n < DN; n++) {
      uint32_t s = 0;
      for (int k = 0; k < DK; k++) s += (uint32_t)a[m * DK + k] * bb[k * DN + n];
      c[m * DN + n] = s;
    }
}
#elif defined(BENCH_KERNEL_downscale2x2_u8)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {2 * H, 2 * W}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int s = 2;
      for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++) s += in[(2 * y + r) * 2 * W + 2 * x + c];
      o[y * W + x] = (uint8_t)(s >> 2);
    }
}
#elif defined(BENCH_KERNEL_row_sad_u8)
const bench_param bench_params[] = {
    {"A", 1, 8, 0, 2, {H, W}}, {"B", 1, 8, 0, 2, {H, W}}, {"S", 1, 32, 1, 1, {H}}};
REF static void reference(void** b) {
  const uint8_t *a = b[0], *bb = b[1];
  uint32_t* s = b[2];
  for (int y = 0; y < H; y++) {
    uint32_t acc = 0;
    for (int x = 0; x < W; x++) acc += (uint32_t)(MAX(a[y * W + x], bb[y * W + x]) - MIN(a[y * W + x], bb[y * W + x]));
    s[y] = acc;
  }
}
#elif defined(BENCH_KERNEL_fir16_i16)
enum { FIR_TAPS = 16, FIR_IW = W + FIR_TAPS - 1 };
const bench_param bench_params[] = {{"I", 0, 16, 0, 2, {H, FIR_IW}}, {"O", 0, 32, 1, 2, {H, W}}};
REF static void reference(void** b) {
  static const int taps[FIR_TAPS] = {3, -7, 12, -20, 33, -51, 90, 300, 250, 80, -45, 27, -18, 11, -6, 2};
  const int16_t* in = b[0];
  int32_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int32_t s = 0;
      for (int k = 0; k < FIR_TAPS; k++) s += taps[k] * in[y * FIR_IW + x + k];
      o[y * W + x] = s;
    }
}
#elif defined(BENCH_KERNEL_matmul_i8)
enum { MM = 64, MK = 192, MN = 96 };
const bench_param bench_params[] = {
    {"A", 0, 8, 0, 2, {MM, MK}}, {"B", 0, 8, 0, 2, {MK, MN}}, {"C", 0, 32, 1, 2, {MM, MN}}};
REF static void reference(void** b) {
  const int8_t *a = b[0], *bb = b[1];
  int32_t* c = b[2];
  for (int m = 0; m < MM; m++)
    for (int n = 0; n < MN; n++) {
      int32_t s = 0;
      for (int k = 0; k < MK; k++) s += a[m * MK + k] * bb[k * MN + n];
      c[m * MN + n] = s;
    }
}
#elif defined(BENCH_KERNEL_box5x5_u8)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H, W}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int s = 0;
      for (int r = -2; r <= 2; r++)
        for (int c = -2; c <= 2; c++) s += px(in, y + r, x + c);
      o[y * W + x] = (uint8_t)((s + 12) / 25);
    }
}
#elif defined(BENCH_KERNEL_add_sat_u16)
const bench_param bench_params[] = {
    {"A", 1, 16, 0, 2, {H, W}}, {"B", 1, 16, 0, 2, {H, W}}, {"C", 1, 16, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint16_t *a = b[0], *bb = b[1];
  uint16_t* c = b[2];
  for (int i = 0; i < H * W; i++) c[i] = (uint16_t)MIN((uint32_t)a[i] + bb[i], 65535u);
}
#elif defined(BENCH_KERNEL_rgb_to_gray_u8)
const bench_param bench_params[] = {{"R", 1, 8, 0, 2, {H, W}}, {"G", 1, 8, 0, 2, {H, W}},
                                    {"B", 1, 8, 0, 2, {H, W}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t *r = b[0], *g = b[1], *bl = b[2];
  uint8_t* o = b[3];
  for (int i = 0; i < H * W; i++) o[i] = (uint8_t)((77 * r[i] + 150 * g[i] + 29 * bl[i] + 128) >> 8);
}
#elif defined(BENCH_KERNEL_transpose_u8)
enum { TN = 256 };
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {TN, TN}}, {"O", 1, 8, 1, 2, {TN, TN}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int j = 0; j < TN; j++)
    for (int i = 0; i < TN; i++) o[i * TN + j] = in[j * TN + i];
}
#elif defined(BENCH_KERNEL_threshold_u8)
/* T is a one-element tensor for dspc (a func's parameters are tensors); Halide and C take its
 * value as a scalar argument (impl_halide.c, impl_c.c). */
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H, W}}, {"T", 1, 8, 0, 1, {1}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  const uint8_t t = *(const uint8_t*)b[1];
  uint8_t* o = b[2];
  for (int i = 0; i < H * W; i++) o[i] = in[i] > t ? 255 : 0;
}
#elif defined(BENCH_KERNEL_box3x3_u16)
const bench_param bench_params[] = {{"I", 1, 16, 0, 2, {H, W}}, {"O", 1, 16, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint16_t* in = b[0];
  uint16_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      uint16_t s = 0;
      for (int r = -1; r <= 1; r++)
        for (int c = -1; c <= 1; c++) s = (uint16_t)(s + in[CLAMP(y + r, 0, H - 1) * W + CLAMP(x + c, 0, W - 1)]);
      o[y * W + x] = s;
    }
}
#elif defined(BENCH_KERNEL_conv3x3a32)
CONV3X3_KERNEL(int32_t)
#elif defined(BENCH_KERNEL_blur3x3_u16)
enum { BW = W + 2, BH = H + 2 };
const bench_param bench_params[] = {{"I", 1, 16, 0, 2, {BH, BW}}, {"O", 1, 16, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint16_t* in = b[0];
  uint16_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      uint16_t bx[3];
      for (int r = 0; r < 3; r++) {
        const uint16_t* p = in + (y + r) * BW + x;
        bx[r] = (uint16_t)((uint16_t)(p[0] + p[1] + p[2]) / 3);
      }
      o[y * W + x] = (uint16_t)((uint16_t)(bx[0] + bx[1] + bx[2]) / 3);
    }
}
#elif defined(BENCH_KERNEL_upscale2x_u8)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H / 2, W / 2}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) o[y * W + x] = in[(y / 2) * (W / 2) + x / 2];
}
#elif defined(BENCH_KERNEL_deinterleave_rgb_u8)
const bench_param bench_params[] = {{"I", 1, 8, 0, 3, {H, W, 3}}, {"R", 1, 8, 1, 2, {H, W}},
                                    {"G", 1, 8, 1, 2, {H, W}}, {"B", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  for (int c = 0; c < 3; c++) {
    uint8_t* o = b[1 + c];
    for (int i = 0; i < H * W; i++) o[i] = in[3 * i + c];
  }
}
#elif defined(BENCH_KERNEL_interleave_rgb_u8)
const bench_param bench_params[] = {{"R", 1, 8, 0, 2, {H, W}}, {"G", 1, 8, 0, 2, {H, W}},
                                    {"B", 1, 8, 0, 2, {H, W}}, {"O", 1, 8, 1, 3, {H, W, 3}}};
REF static void reference(void** b) {
  uint8_t* o = b[3];
  for (int c = 0; c < 3; c++) {
    const uint8_t* in = b[c];
    for (int i = 0; i < H * W; i++) o[3 * i + c] = in[i];
  }
}
#elif defined(BENCH_KERNEL_rgba_to_gray_u8)
const bench_param bench_params[] = {{"I", 1, 8, 0, 3, {H, W, 4}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int i = 0; i < H * W; i++) o[i] = (uint8_t)((77 * in[4 * i] + 150 * in[4 * i + 1] + 29 * in[4 * i + 2] + 128) >> 8);
}
#elif defined(BENCH_KERNEL_hist16_u8)
enum { HH = 64, BINS = 16 };
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {HH, W}}, {"Hc", 1, 32, 1, 1, {BINS}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint32_t* h = b[1];
  for (int i = 0; i < BINS; i++) h[i] = 0;
  for (int i = 0; i < HH * W; i++) h[in[i] >> 4]++;
}
#elif defined(BENCH_KERNEL_argmax_u8)
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H, W}}, {"A", 0, 32, 1, 1, {H}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  int32_t* a = b[1];
  for (int y = 0; y < H; y++) {
    int best = 0;
    for (int x = 1; x < W; x++)
      if (in[y * W + x] > in[y * W + best]) best = x;
    a[y] = best;
  }
}
#elif defined(BENCH_KERNEL_gemv_u8i8)
const bench_param bench_params[] = {
    {"A", 1, 8, 0, 2, {H, W}}, {"X", 0, 8, 0, 1, {W}}, {"Y", 0, 32, 1, 1, {H}}};
REF static void reference(void** b) {
  const uint8_t* a = b[0];
  const int8_t* xv = b[1];
  int32_t* yv = b[2];
  for (int m = 0; m < H; m++) {
    int32_t s = 0;
    for (int k = 0; k < W; k++) s += (int32_t)a[m * W + k] * xv[k];
    yv[m] = s;
  }
}
#elif defined(BENCH_KERNEL_mulhi_rnd_i16)
const bench_param bench_params[] = {
    {"A", 0, 16, 0, 2, {H, W}}, {"B", 0, 16, 0, 2, {H, W}}, {"O", 0, 16, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const int16_t *a = b[0], *bb = b[1];
  int16_t* o = b[2];
  for (int i = 0; i < H * W; i++) {
    int32_t v = ((int32_t)a[i] * bb[i] + 16384) >> 15;
    o[i] = (int16_t)CLAMP(v, -32768, 32767);
  }
}
#elif defined(BENCH_KERNEL_narrow_sat_i32)
const bench_param bench_params[] = {{"A", 0, 32, 0, 2, {H, W}}, {"O", 0, 16, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const int32_t* a = b[0];
  int16_t* o = b[1];
  for (int i = 0; i < H * W; i++) {
    int64_t v = ((int64_t)a[i] + 2048) >> 12;
    o[i] = (int16_t)CLAMP(v, -32768, 32767);
  }
}
#elif defined(BENCH_KERNEL_avg_rnd_u16)
const bench_param bench_params[] = {
    {"A", 1, 16, 0, 2, {H, W}}, {"B", 1, 16, 0, 2, {H, W}}, {"O", 1, 16, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint16_t *a = b[0], *bb = b[1];
  uint16_t* o = b[2];
  for (int i = 0; i < H * W; i++) o[i] = (uint16_t)(((uint32_t)a[i] + bb[i] + 1) >> 1);
}
#elif defined(BENCH_KERNEL_fir31_u8)
enum { F31_TAPS = 31, F31_IW = W + F31_TAPS - 1 };
const bench_param bench_params[] = {{"I", 1, 8, 0, 2, {H, F31_IW}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int s = 128;
      for (int k = 0; k < F31_TAPS; k++) s += (16 - (k < 15 ? 15 - k : k - 15)) * in[y * F31_IW + x + k];
      o[y * W + x] = (uint8_t)(s >> 8);
    }
}
#elif defined(BENCH_KERNEL_blend4_u8)
const bench_param bench_params[] = {{"A", 1, 8, 0, 2, {H, W}}, {"B", 1, 8, 0, 2, {H, W}}, {"M", 1, 8, 0, 2, {H, W}},
                                    {"C", 1, 8, 0, 2, {H, W}}, {"O", 1, 8, 1, 2, {H, W}}};
REF static void reference(void** b) {
  const uint8_t *a = b[0], *bb = b[1], *m = b[2], *c = b[3];
  uint8_t* o = b[4];
  for (int i = 0; i < H * W; i++) {
    int v = ((a[i] * m[i] + bb[i] * (255 - m[i]) + 128) >> 8) + c[i];
    o[i] = (uint8_t)MIN(v, 255);
  }
}
#elif defined(BENCH_KERNEL_depthwise3x3_u8)
enum { DWN = 64, DWC = 64, DWI = DWN + 2 };
const bench_param bench_params[] = {
    {"I", 1, 8, 0, 3, {DWI, DWI, DWC}}, {"K", 0, 8, 0, 3, {3, 3, DWC}}, {"O", 1, 8, 1, 3, {DWN, DWN, DWC}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  const int8_t* k = b[1];
  uint8_t* o = b[2];
  for (int y = 0; y < DWN; y++)
    for (int x = 0; x < DWN; x++)
      for (int c = 0; c < DWC; c++) {
        int32_t s = 0;
        for (int r = 0; r < 3; r++)
          for (int q = 0; q < 3; q++) s += (int32_t)in[((y + r) * DWI + x + q) * DWC + c] * k[(r * 3 + q) * DWC + c];
        int32_t v = (s + 128) >> 8;
        o[(y * DWN + x) * DWC + c] = (uint8_t)CLAMP(v, 0, 255);
      }
}
#elif defined(BENCH_KERNEL_maxpool2x2_u8)
enum { MPH = 64, MPW = 128, MPC = 32 };
const bench_param bench_params[] = {{"I", 1, 8, 0, 3, {2 * MPH, 2 * MPW, MPC}}, {"O", 1, 8, 1, 3, {MPH, MPW, MPC}}};
REF static void reference(void** b) {
  const uint8_t* in = b[0];
  uint8_t* o = b[1];
  for (int y = 0; y < MPH; y++)
    for (int x = 0; x < MPW; x++)
      for (int c = 0; c < MPC; c++) {
        int m = 0;
        for (int r = 0; r < 2; r++)
          for (int q = 0; q < 2; q++) m = MAX(m, in[((2 * y + r) * 2 * MPW + 2 * x + q) * MPC + c]);
        o[(y * MPW + x) * MPC + c] = (uint8_t)m;
      }
}
#elif defined(BENCH_KERNEL_transpose_u16)
enum { TN = 256 };
const bench_param bench_params[] = {{"I", 1, 16, 0, 2, {TN, TN}}, {"O", 1, 16, 1, 2, {TN, TN}}};
REF static void reference(void** b) {
  const uint16_t* in = b[0];
  uint16_t* o = b[1];
  for (int j = 0; j < TN; j++)
    for (int i = 0; i < TN; i++) o[i * TN + j] = in[j * TN + i];
}
#elif defined(BENCH_KERNEL_color_matrix_i16)
const bench_param bench_params[] = {{"R", 0, 16, 0, 2, {H, W}},  {"G", 0, 16, 0, 2, {H, W}},  {"B", 0, 16, 0, 2, {H, W}},
                                    {"Ro", 0, 16, 1, 2, {H, W}}, {"Go", 0, 16, 1, 2, {H, W}}, {"Bo", 0, 16, 1, 2, {H, W}}};
/* camera_pipe's matrix_3200 in Q8.8: per output channel the R, G, B weights and the offset. */
static const int32_t cm[3][4] = {{427, -68, -102, -10863}, {-91, 271, 408, -9501}, {-55, -480, 1782, -6834}};
REF static void reference(void** b) {
  const int16_t *r = b[0], *g = b[1], *bl = b[2];
  for (int c = 0; c < 3; c++) {
    int16_t* o = b[3 + c];
    for (int i = 0; i < H * W; i++) {
      int32_t v = cm[c][3] + cm[c][0] * r[i] + cm[c][1] * g[i] + cm[c][2] * bl[i];
      o[i] = (int16_t)(v >> 8); /* floor division by 256: >> is arithmetic for int32_t in clang */
    }
  }
}
#else
#error "compile with -DBENCH_KERNEL_<name>"
#endif

const int bench_num_params = sizeof(bench_params) / sizeof(bench_params[0]);

static size_t param_bytes(const bench_param* p) {
  size_t n = p->bits / 8;
  for (int d = 0; d < p->ndim; d++) n *= (size_t)p->dims[d];
  return n;
}

void bench_puts(const char* s) {
  size_t n = 0;
  while (s[n]) n++;
  dspc_platform_write(1, s, n);
}
void bench_putu(uint64_t v) {
  char buf[24];
  int i = 23;
  buf[i] = 0;
  do {
    buf[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  bench_puts(buf + i);
}
void bench_puti(int64_t v) {
  if (v < 0) {
    bench_puts("-");
    v = -v;
  }
  bench_putu((uint64_t)v);
}

static uint32_t rng_state = 0x2545F491u;
static uint32_t rng(void) { /* xorshift32: fixed, platform-independent data */
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return rng_state = x;
}

static uint64_t load_elem(const bench_param* p, const void* buf, size_t i) {
  switch (p->bits) {
    case 8: return ((const uint8_t*)buf)[i];
    case 16: return ((const uint16_t*)buf)[i];
    default: return ((const uint32_t*)buf)[i];
  }
}

int dspc_main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  void* bufs[BENCH_MAX_PARAMS];
  void* want[BENCH_MAX_PARAMS];
  if (bench_num_params > BENCH_MAX_PARAMS) {
    bench_puts("error: too many parameters\n");
    return 1;
  }
  for (int i = 0; i < bench_num_params; i++) {
    const bench_param* p = &bench_params[i];
    size_t n = param_bytes(p);
    bufs[i] = dspc_platform_map(n); /* page aligned, zero-filled */
    want[i] = p->is_output ? dspc_platform_map(n) : bufs[i];
    if (!bufs[i] || !want[i]) {
      bench_puts("error: out of memory\n");
      return 1;
    }
    if (!p->is_output)
      for (size_t j = 0; j < n; j++) ((uint8_t*)bufs[i])[j] = (uint8_t)(rng() >> 24);
  }
  int status = bench_call(bufs);
  if (status != 0) {
    bench_puts("error: kernel returned ");
    bench_puti(status);
    bench_puts("\n");
    return 1;
  }
#ifdef BENCH_SKIP_REFERENCE
  /* nn_bench.py's packet run: the same program checked under plain qemu-hexagon first; here
   * only the kernel runs, as single-stepping a large scalar reference would take long. */
  (void)want;
  bench_puts("not checked (BENCH_SKIP_REFERENCE)\n");
  return 0;
#endif
  reference(want);
#ifdef BENCH_CORRUPT_OUTPUT /* for the harness's own test: one wrong element must be caught */
  for (int i = 0; i < bench_num_params; i++)
    if (bench_params[i].is_output) {
      ((uint8_t*)bufs[i])[0] ^= 1;
      break;
    }
#endif
  int bad = 0;
  for (int i = 0; i < bench_num_params; i++) {
    const bench_param* p = &bench_params[i];
    if (!p->is_output) continue;
    size_t n = param_bytes(p) / (p->bits / 8);
    size_t mismatches = 0;
    for (size_t j = 0; j < n; j++) {
      uint64_t got = load_elem(p, bufs[i], j), exp = load_elem(p, want[i], j);
      if (got == exp) continue;
      if (mismatches++ < 5) {
        bench_puts("mismatch: ");
        bench_puts(p->name);
        bench_puts("[");
        bench_putu(j);
        bench_puts("] = ");
        bench_putu(got);
        bench_puts(", expected ");
        bench_putu(exp);
        bench_puts("\n");
      }
    }
    if (mismatches) {
      bench_puts("error: ");
      bench_putu(mismatches);
      bench_puts(" mismatches in ");
      bench_puts(p->name);
      bench_puts("\n");
      bad = 1;
    }
  }
  if (!bad) bench_puts("ok: every output matches the reference\n");
  return bad;
}
