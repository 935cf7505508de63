#include "common.h"

void c_blend4_u8(const uint8_t* restrict a, const uint8_t* restrict b, const uint8_t* restrict m, const uint8_t* restrict c,
                 uint8_t* restrict out) {
  for (int i = 0; i < H * W; i++) {
    uint16_t v = (uint16_t)((uint16_t)(a[i] * m[i] + b[i] * (255 - m[i]) + 128) >> 8) + c[i];
    out[i] = (uint8_t)(v > 255 ? 255 : v);
  }
}
