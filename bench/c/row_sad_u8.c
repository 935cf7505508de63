#include "common.h"

void c_row_sad_u8(const uint8_t* restrict a, const uint8_t* restrict b, uint32_t* restrict s) {
  for (int y = 0; y < H; y++) {
    const uint8_t *ra = a + y * W, *rb = b + y * W;
    uint32_t acc = 0;
    for (int x = 0; x < W; x++) {
      int d = ra[x] - rb[x];
      acc += (uint32_t)(d < 0 ? -d : d);
    }
    s[y] = acc;
  }
}
