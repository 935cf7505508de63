#include "common.h"

static inline int mid3(int a, int b, int c) { return maxi(mini(maxi(a, b), c), mini(a, b)); }

/* The min/max network: sort each column (lo, mid, hi), then the median of the nine values
 * is mid3(max of the los, mid3 of the mids, min of the his). */
static inline uint8_t median_at(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, int x0, int x1, int x2) {
  int lo0 = mini(mini(r0[x0], r1[x0]), r2[x0]), hi0 = maxi(maxi(r0[x0], r1[x0]), r2[x0]), md0 = mid3(r0[x0], r1[x0], r2[x0]);
  int lo1 = mini(mini(r0[x1], r1[x1]), r2[x1]), hi1 = maxi(maxi(r0[x1], r1[x1]), r2[x1]), md1 = mid3(r0[x1], r1[x1], r2[x1]);
  int lo2 = mini(mini(r0[x2], r1[x2]), r2[x2]), hi2 = maxi(maxi(r0[x2], r1[x2]), r2[x2]), md2 = mid3(r0[x2], r1[x2], r2[x2]);
  return (uint8_t)mid3(maxi(maxi(lo0, lo1), lo2), mid3(md0, md1, md2), mini(mini(hi0, hi1), hi2));
}

void c_median3x3(const uint8_t* restrict in, uint8_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const uint8_t *r0 = row(in, y - 1), *r1 = row(in, y), *r2 = row(in, y + 1);
    uint8_t* o = out + y * W;
    o[0] = median_at(r0, r1, r2, 0, 0, 1);
    for (int x = 1; x < W - 1; x++) o[x] = median_at(r0, r1, r2, x - 1, x, x + 1);
    o[W - 1] = median_at(r0, r1, r2, W - 2, W - 1, W - 1);
  }
}
