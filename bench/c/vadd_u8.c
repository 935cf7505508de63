#include <stdint.h>

void c_vadd_u8(const uint8_t* restrict a, const uint8_t* restrict b, uint8_t* restrict c) {
  for (int i = 0; i < 65536; i++) c[i] = (uint8_t)(a[i] + b[i]);
}
