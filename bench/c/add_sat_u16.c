#include <stdint.h>

void c_add_sat_u16(const uint16_t* restrict a, const uint16_t* restrict b, uint16_t* restrict c) {
  for (int i = 0; i < 256 * 1024; i++) {
    uint32_t s = (uint32_t)a[i] + b[i];
    c[i] = (uint16_t)(s > 65535 ? 65535 : s);
  }
}
