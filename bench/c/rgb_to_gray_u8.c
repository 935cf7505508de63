#include <stdint.h>

void c_rgb_to_gray_u8(const uint8_t* restrict r, const uint8_t* restrict g, const uint8_t* restrict b,
                      uint8_t* restrict out) {
  for (int i = 0; i < 256 * 1024; i++) out[i] = (uint8_t)((uint16_t)(77 * r[i] + 150 * g[i] + 29 * b[i] + 128) >> 8);
}
