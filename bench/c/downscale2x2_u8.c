#include <stdint.h>

enum { OW = 1024, OH = 256, IW = 2 * OW };

void c_downscale2x2_u8(const uint8_t* restrict in, uint8_t* restrict out) {
  for (int y = 0; y < OH; y++) {
    const uint8_t *r0 = in + 2 * y * IW, *r1 = r0 + IW;
    uint8_t* o = out + y * OW;
    for (int x = 0; x < OW; x++)
      o[x] = (uint8_t)((uint16_t)(r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1] + 2) >> 2);
  }
}
