#include "common.h"

static inline const uint16_t* row16(const uint16_t* in, int y) { return in + clampi(y, 0, H - 1) * W; }

static inline uint16_t box_at(const uint16_t* r0, const uint16_t* r1, const uint16_t* r2, int x0, int x1, int x2) {
  return (uint16_t)(r0[x0] + r0[x1] + r0[x2] + r1[x0] + r1[x1] + r1[x2] + r2[x0] + r2[x1] + r2[x2]);
}

void c_box3x3_u16(const uint16_t* restrict in, uint16_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const uint16_t *r0 = row16(in, y - 1), *r1 = row16(in, y), *r2 = row16(in, y + 1);
    uint16_t* o = out + y * W;
    o[0] = box_at(r0, r1, r2, 0, 0, 1);
    for (int x = 1; x < W - 1; x++) o[x] = box_at(r0, r1, r2, x - 1, x, x + 1);
    o[W - 1] = box_at(r0, r1, r2, W - 2, W - 1, W - 1);
  }
}
