#include "common.h"

enum { TAPS = 16, IW = W + TAPS - 1 };

static const int16_t taps[TAPS] = {3, -7, 12, -20, 33, -51, 90, 300, 250, 80, -45, 27, -18, 11, -6, 2};

void c_fir16_i16(const int16_t* restrict in, int32_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const int16_t* r = in + y * IW;
    int32_t* o = out + y * W;
    for (int x = 0; x < W; x++) {
      int32_t s = 0;
      for (int k = 0; k < TAPS; k++) s += (int32_t)r[x + k] * taps[k];
      o[x] = s;
    }
  }
}
