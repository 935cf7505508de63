#include "common.h"

void c_rgba_to_gray_u8(const uint8_t* restrict in, uint8_t* restrict out) {
  for (int i = 0; i < H * W; i++)
    out[i] = (uint8_t)((uint16_t)(77 * in[4 * i] + 150 * in[4 * i + 1] + 29 * in[4 * i + 2] + 128) >> 8);
}
