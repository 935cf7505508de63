// conv3x3a16.c and conv3x3a32.c: u8 by i8 3x3 taps, each row's three products summed in int and
// added to an ACC sum (i16 wraps at each row, as the kernel's definition does), >> 4, clamped.
#include "common.h"

#define CONV3X3_C(NAME, ACC)                                                                        \
  static inline uint8_t conv_at(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, const int8_t* k, int x0, \
                                int x1, int x2) {                                                   \
    ACC s = 0;                                                                                      \
    s += (ACC)(r0[x0] * k[0] + r0[x1] * k[1] + r0[x2] * k[2]);                                     \
    s += (ACC)(r1[x0] * k[3] + r1[x1] * k[4] + r1[x2] * k[5]);                                     \
    s += (ACC)(r2[x0] * k[6] + r2[x1] * k[7] + r2[x2] * k[8]);                                     \
    return (uint8_t)clampi(s >> 4, 0, 255);                                                         \
  }                                                                                                 \
  void NAME(const uint8_t* restrict in, const int8_t* restrict k, uint8_t* restrict out) {          \
    for (int y = 0; y < H; y++) {                                                                   \
      const uint8_t *r0 = row(in, y - 1), *r1 = row(in, y), *r2 = row(in, y + 1);                   \
      uint8_t* o = out + y * W;                                                                     \
      o[0] = conv_at(r0, r1, r2, k, 0, 0, 1);                                                       \
      for (int x = 1; x < W - 1; x++) o[x] = conv_at(r0, r1, r2, k, x - 1, x, x + 1);              \
      o[W - 1] = conv_at(r0, r1, r2, k, W - 2, W - 1, W - 1);                                       \
    }                                                                                               \
  }
