#include "common.h"

void c_gemv_u8i8(const uint8_t* restrict a, const int8_t* restrict xv, int32_t* restrict yv) {
  for (int m = 0; m < H; m++) {
    const uint8_t* r = a + m * W;
    int32_t s = 0;
    for (int k = 0; k < W; k++) s += r[k] * xv[k];
    yv[m] = s;
  }
}
