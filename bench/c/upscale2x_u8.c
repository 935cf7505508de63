#include "common.h"

void c_upscale2x_u8(const uint8_t* restrict in, uint8_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const uint8_t* r = in + (y / 2) * (W / 2);
    uint8_t* o = out + y * W;
    for (int x = 0; x < W; x++) o[x] = r[x / 2];
  }
}
