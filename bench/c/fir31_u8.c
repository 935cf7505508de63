#include "common.h"

enum { TAPS = 31, IW = W + TAPS - 1 };

static const uint16_t taps[TAPS] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                    15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};

void c_fir31_u8(const uint8_t* restrict in, uint8_t* restrict out) {
  for (int y = 0; y < H; y++) {
    const uint8_t* r = in + y * IW;
    uint8_t* o = out + y * W;
    for (int x = 0; x < W; x++) {
      uint16_t s = 128;
      for (int k = 0; k < TAPS; k++) s += (uint16_t)(r[x + k] * taps[k]);
      o[x] = (uint8_t)(s >> 8);
    }
  }
}
