#include "common.h"

static inline uint8_t dilate_at(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, int x0, int x1, int x2) {
  int a = maxi(maxi(r0[x0], r1[x0]), r2[x0]);
  int b = maxi(maxi(r0[x1], r1[x1]), r2[x1]);
  int c = maxi(maxi(r0[x2], r1[x2]), r2[x2]);
  return (uint8_t)maxi(maxi(a, b), c);
}

void c_dilate3x3(const uint8_t* restrict in, uint8_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const uint8_t *r0 = row(in, y - 1), *r1 = row(in, y), *r2 = row(in, y + 1);
    uint8_t* o = out + y * W;
    o[0] = dilate_at(r0, r1, r2, 0, 0, 1);
    for (int x = 1; x < W - 1; x++) o[x] = dilate_at(r0, r1, r2, x - 1, x, x + 1);
    o[W - 1] = dilate_at(r0, r1, r2, W - 2, W - 1, W - 1);
  }
}
