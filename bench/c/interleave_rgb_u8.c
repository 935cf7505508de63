#include "common.h"

void c_interleave_rgb_u8(const uint8_t* restrict r, const uint8_t* restrict g, const uint8_t* restrict b, uint8_t* restrict out) {
  for (int i = 0; i < H * W; i++) {
    out[3 * i] = r[i];
    out[3 * i + 1] = g[i];
    out[3 * i + 2] = b[i];
  }
}
