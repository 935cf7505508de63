#include "common.h"

void c_mulhi_rnd_i16(const int16_t* restrict a, const int16_t* restrict b, int16_t* restrict out) {
  for (int i = 0; i < H * W; i++) out[i] = (int16_t)clampi((a[i] * b[i] + 16384) >> 15, -32768, 32767);
}
