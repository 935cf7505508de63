#include <stdint.h>

enum { OH = 64, OW = 128, C = 32, IW = 2 * OW };

void c_maxpool2x2_u8(const uint8_t* restrict in, uint8_t* restrict out) {
  for (int y = 0; y < OH; y++) {
    const uint8_t *r0 = in + 2 * y * IW * C, *r1 = r0 + IW * C;
    for (int x = 0; x < OW; x++) {
      uint8_t* o = out + (y * OW + x) * C;
      for (int c = 0; c < C; c++) {
        uint8_t a = r0[2 * x * C + c], b = r0[(2 * x + 1) * C + c], d = r1[2 * x * C + c], e = r1[(2 * x + 1) * C + c];
        uint8_t m0 = a > b ? a : b, m1 = d > e ? d : e;
        o[c] = m0 > m1 ? m0 : m1;
      }
    }
  }
}
