#include "common.h"

void c_avg_rnd_u16(const uint16_t* restrict a, const uint16_t* restrict b, uint16_t* restrict out) {
  for (int i = 0; i < H * W; i++) out[i] = (uint16_t)(((uint32_t)a[i] + b[i] + 1) >> 1);
}
