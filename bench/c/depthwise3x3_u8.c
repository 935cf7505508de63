#include <stdint.h>

enum { N = 64, C = 64, IN = N + 2 };

void c_depthwise3x3_u8(const uint8_t* restrict in, const int8_t* restrict k, uint8_t* restrict out) {
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++) {
      uint8_t* o = out + (y * N + x) * C;
      for (int c = 0; c < C; c++) {
        int32_t s = 128;
        for (int r = 0; r < 3; r++)
          for (int q = 0; q < 3; q++) s += in[((y + r) * IN + x + q) * C + c] * k[(r * 3 + q) * C + c];
        s >>= 8;
        o[c] = (uint8_t)(s < 0 ? 0 : s > 255 ? 255 : s);
      }
    }
}
