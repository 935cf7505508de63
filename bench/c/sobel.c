#include "common.h"

static inline uint8_t sobel_at(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, int x0, int x1, int x2) {
  int gx = r0[x0] + 2 * r0[x1] + r0[x2] - r2[x0] - 2 * r2[x1] - r2[x2];
  int gy = r0[x0] + 2 * r1[x0] + r2[x0] - r0[x2] - 2 * r1[x2] - r2[x2];
  int v = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
  return (uint8_t)mini(v, 255);
}

void c_sobel(const uint8_t* restrict in, uint8_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const uint8_t *r0 = row(in, y - 1), *r1 = row(in, y), *r2 = row(in, y + 1);
    uint8_t* o = out + y * W;
    o[0] = sobel_at(r0, r1, r2, 0, 0, 1);
    for (int x = 1; x < W - 1; x++) o[x] = sobel_at(r0, r1, r2, x - 1, x, x + 1);
    o[W - 1] = sobel_at(r0, r1, r2, W - 2, W - 1, W - 1);
  }
}
