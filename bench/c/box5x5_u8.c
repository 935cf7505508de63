#include "common.h"

/* Separable: each output row first sums five input rows vertically into a row buffer with two
 * repeated-edge columns on each side, then sums five columns of that row, adds 12 and divides
 * by 25. */
void c_box5x5_u8(const uint8_t* restrict in, uint8_t* restrict out) {
  uint16_t rows[W + 4];
  for (int y = 0; y < H; y++) {
    const uint8_t *a = row(in, y - 2), *b = row(in, y - 1), *c = row(in, y), *d = row(in, y + 1), *e = row(in, y + 2);
    uint16_t* r = rows + 2;
    for (int x = 0; x < W; x++) r[x] = (uint16_t)(a[x] + b[x] + c[x] + d[x] + e[x]);
    r[-2] = r[-1] = r[0];
    r[W] = r[W + 1] = r[W - 1];
    uint8_t* o = out + y * W;
    for (int x = 0; x < W; x++) o[x] = (uint8_t)((uint16_t)(r[x - 2] + r[x - 1] + r[x] + r[x + 1] + r[x + 2] + 12) / 25);
  }
}
