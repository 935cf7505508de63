#include <stdint.h>

void c_threshold_u8(const uint8_t* restrict in, uint8_t t, uint8_t* restrict out) {
  for (int i = 0; i < 256 * 1024; i++) out[i] = in[i] > t ? 255 : 0;
}
