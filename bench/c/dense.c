#include <stdint.h>

enum { M = 64, N = 128, K = 256 };

/* The i-k-j loop order: the inner loop runs along a row of B and of C. */
void c_dense(const uint8_t* restrict a, const uint8_t* restrict b, uint32_t* restrict c) {
  for (int m = 0; m < M; m++) {
    uint32_t acc[N] = {0};
    for (int k = 0; k < K; k++) {
      uint32_t s = a[m * K + k];
      for (int n = 0; n < N; n++) acc[n] += s * b[k * N + n];
    }
    for (int n = 0; n < N; n++) c[m * N + n] = acc[n];
  }
}
