#include "common.h"

void c_narrow_sat_i32(const int32_t* restrict a, int16_t* restrict out) {
  for (int i = 0; i < H * W; i++) {
    int64_t v = ((int64_t)a[i] + 2048) >> 12;
    out[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
  }
}
