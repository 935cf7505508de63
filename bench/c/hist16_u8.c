#include <stdint.h>

enum { N = 64 * 1024, BINS = 16 };

void c_hist16_u8(const uint8_t* restrict in, uint32_t* restrict hist) {
  for (int b = 0; b < BINS; b++) hist[b] = 0;
  for (int i = 0; i < N; i++) hist[in[i] >> 4]++;
}
