#include <stdint.h>

enum { N = 256 };

void c_transpose_u16(const uint16_t* restrict in, uint16_t* restrict out) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) out[i * N + j] = in[j * N + i];
}
