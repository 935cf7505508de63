#include "common.h"

static inline uint8_t conv_at(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, const int8_t* k, int x0, int x1, int x2) {
  int32_t s = r0[x0] * k[0] + r0[x1] * k[1] + r0[x2] * k[2];
  s += r1[x0] * k[3] + r1[x1] * k[4] + r1[x2] * k[5];
  s += r2[x0] * k[6] + r2[x1] * k[7] + r2[x2] * k[8];
  return (uint8_t)clampi(s >> 4, 0, 255);
}

void c_conv3x3a32(const uint8_t* restrict in, const int8_t* restrict k, uint8_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const uint8_t *r0 = row(in, y - 1), *r1 = row(in, y), *r2 = row(in, y + 1);
    uint8_t* o = out + y * W;
    o[0] = conv_at(r0, r1, r2, k, 0, 0, 1);
    for (int x = 1; x < W - 1; x++) o[x] = conv_at(r0, r1, r2, k, x - 1, x, x + 1);
    o[W - 1] = conv_at(r0, r1, r2, k, W - 2, W - 1, W - 1);
  }
}
