#include "common.h"

enum { BW = W + 2 };

/* Halide's apps/blur: the horizontal pass of three rows into a ring of row buffers, then the
 * vertical pass; sums wrap in u16. */
void c_blur3x3_u16(const uint16_t* restrict in, uint16_t* restrict out) {
  uint16_t bx[3][W];
  for (int y = 0; y < H + 2; y++) {
    const uint16_t* r = in + y * BW;
    uint16_t* b = bx[y % 3];
    for (int x = 0; x < W; x++) b[x] = (uint16_t)(r[x] + r[x + 1] + r[x + 2]) / 3;
    if (y < 2) continue;
    const uint16_t *b0 = bx[(y - 2) % 3], *b1 = bx[(y - 1) % 3], *b2 = b;
    uint16_t* o = out + (y - 2) * W;
    for (int x = 0; x < W; x++) o[x] = (uint16_t)(b0[x] + b1[x] + b2[x]) / 3;
  }
}
