#include <stdint.h>

enum { M = 64, N = 96, K = 192 };

/* The i-k-j loop order: the inner loop runs along a row of B and of C. */
void c_matmul_i8(const int8_t* restrict a, const int8_t* restrict b, int32_t* restrict c) {
  for (int m = 0; m < M; m++) {
    int32_t acc[N] = {0};
    for (int k = 0; k < K; k++) {
      int32_t s = a[m * K + k];
      for (int n = 0; n < N; n++) acc[n] += s * b[k * N + n];
    }
    for (int n = 0; n < N; n++) c[m * N + n] = acc[n];
  }
}
