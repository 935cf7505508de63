/* Shared by the plain C kernels: image size and the clamped (repeat-edge) pixel read that
 * the border columns use. Interior columns read through row pointers with no clamps, which
 * is how one writes such a loop in C for a vectoriser. */
#ifndef BENCH_C_COMMON_H
#define BENCH_C_COMMON_H
#include <stdint.h>

enum { W = 1024, H = 256 };

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline int mini(int a, int b) { return a < b ? a : b; }
static inline int maxi(int a, int b) { return a > b ? a : b; }
static inline const uint8_t* row(const uint8_t* in, int y) { return in + clampi(y, 0, H - 1) * W; }
static inline int at(const uint8_t* in, int y, int x) { return row(in, y)[clampi(x, 0, W - 1)]; }
#endif
