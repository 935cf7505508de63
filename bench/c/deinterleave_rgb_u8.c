#include "common.h"

void c_deinterleave_rgb_u8(const uint8_t* restrict in, uint8_t* restrict r, uint8_t* restrict g, uint8_t* restrict b) {
  for (int i = 0; i < H * W; i++) {
    r[i] = in[3 * i];
    g[i] = in[3 * i + 1];
    b[i] = in[3 * i + 2];
  }
}
