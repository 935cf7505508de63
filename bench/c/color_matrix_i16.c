#include "common.h"

void c_color_matrix_i16(const int16_t* restrict r, const int16_t* restrict g, const int16_t* restrict b,
                        int16_t* restrict ro, int16_t* restrict go, int16_t* restrict bo) {
  for (int i = 0; i < H * W; i++) {
    int32_t R = r[i], G = g[i], B = b[i];
    ro[i] = (int16_t)((-10863 + 427 * R - 68 * G - 102 * B) >> 8); /* floor division by 256 */
    go[i] = (int16_t)((-9501 - 91 * R + 271 * G + 408 * B) >> 8);
    bo[i] = (int16_t)((-6834 - 55 * R - 480 * G + 1782 * B) >> 8);
  }
}
