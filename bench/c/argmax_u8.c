#include "common.h"

void c_argmax_u8(const uint8_t* restrict in, int32_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const uint8_t* r = in + y * W;
    int m = 0;
    for (int x = 0; x < W; x++) m = maxi(m, r[x]);
    int a = W;
    for (int x = 0; x < W; x++) a = r[x] == m ? mini(a, x) : a;
    out[y] = a;
  }
}
