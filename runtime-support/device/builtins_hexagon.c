/* The helpers LLVM's Hexagon backend calls for operations the ISA lacks (the names come from
 * the backend's libcall table; the calling convention is the standard C ABI, arguments in
 * r0..r5 / register pairs, result in r0 or r1:0).
 *
 * Integer division is shift-subtract: the `/` and `%` operators would compile to calls to
 * these very functions. Division by zero is undefined in LLVM IR; these return 0 for both the
 * quotient and the remainder (dspc's own semantics), and MIN / -1 wraps to MIN.
 *
 * Compiled for the host unit tests too (the names do not clash there), so they are checked
 * against the host's hardware division. */
#include <stddef.h>
#include <stdint.h>

#include "softfloat.h"

static uint32_t udivmod32(uint32_t n, uint32_t d, uint32_t* rem) {
  if (d == 0) {
    *rem = 0;
    return 0;
  }
  if (n < d) {
    *rem = n;
    return 0;
  }
  int shift = __builtin_clz(d) - __builtin_clz(n);
  uint32_t q = 0;
  d <<= shift;
  for (int i = 0; i <= shift; i++) {
    q <<= 1;
    if (n >= d) {
      n -= d;
      q |= 1;
    }
    d >>= 1;
  }
  *rem = n;
  return q;
}

static uint64_t udivmod64(uint64_t n, uint64_t d, uint64_t* rem) {
  if ((n >> 32) == 0 && (d >> 32) == 0) {
    uint32_t r;
    uint64_t q = udivmod32((uint32_t)n, (uint32_t)d, &r);
    *rem = r;
    return q;
  }
  if (d == 0) {
    *rem = 0;
    return 0;
  }
  if (n < d) {
    *rem = n;
    return 0;
  }
  int shift = __builtin_clzll(d) - __builtin_clzll(n);
  uint64_t q = 0;
  d <<= shift;
  for (int i = 0; i <= shift; i++) {
    q <<= 1;
    if (n >= d) {
      n -= d;
      q |= 1;
    }
    d >>= 1;
  }
  *rem = n;
  return q;
}

/* Magnitudes as unsigned, so that MIN needs no special case. */
static uint32_t abs32(int32_t v) {
  return v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
}
static uint64_t abs64(int64_t v) {
  return v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
}

uint32_t __hexagon_udivsi3(uint32_t a, uint32_t b) {
  uint32_t r;
  return udivmod32(a, b, &r);
}

uint32_t __hexagon_umodsi3(uint32_t a, uint32_t b) {
  uint32_t r;
  udivmod32(a, b, &r);
  return r;
}

int32_t __hexagon_divsi3(int32_t a, int32_t b) {
  uint32_t r;
  uint32_t q = udivmod32(abs32(a), abs32(b), &r);
  return (int32_t)((a < 0) != (b < 0) ? 0u - q : q);
}

int32_t __hexagon_modsi3(int32_t a, int32_t b) {
  uint32_t r;
  udivmod32(abs32(a), abs32(b), &r);
  return (int32_t)(a < 0 ? 0u - r : r); /* C remainder: the dividend's sign */
}

uint64_t __hexagon_udivdi3(uint64_t a, uint64_t b) {
  uint64_t r;
  return udivmod64(a, b, &r);
}

uint64_t __hexagon_umoddi3(uint64_t a, uint64_t b) {
  uint64_t r;
  udivmod64(a, b, &r);
  return r;
}

int64_t __hexagon_divdi3(int64_t a, int64_t b) {
  uint64_t r;
  uint64_t q = udivmod64(abs64(a), abs64(b), &r);
  return (int64_t)((a < 0) != (b < 0) ? 0u - q : q);
}

int64_t __hexagon_moddi3(int64_t a, int64_t b) {
  uint64_t r;
  udivmod64(abs64(a), abs64(b), &r);
  return (int64_t)(a < 0 ? 0u - r : r);
}

/* Emitted for constant-size copies of at least 32 bytes, a multiple of 8, with operands
 * aligned to at least 4 (HexagonSelectionDAGInfo); returns nothing. */
void* memcpy(void* restrict dst, const void* restrict src, size_t n);
void __hexagon_memcpy_likely_aligned_min32bytes_mult8bytes(void* dst, const void* src, size_t n) {
  memcpy(dst, src, n);
}

/* Floating point the ISA lacks: double add/sub/mul before v66/v67, double division and
 * square root always, float division when optimizing for size. Float results come from the
 * double routines, which is exact: double has more than 2 * 24 + 2 significand bits, so the
 * double result rounded to float is the correctly rounded float result. */
double __hexagon_adddf3(double a, double b) {
  return dspc_soft_add(a, b);
}
double __hexagon_subdf3(double a, double b) {
  return dspc_soft_sub(a, b);
}
double __hexagon_muldf3(double a, double b) {
  return dspc_soft_mul(a, b);
}
double __hexagon_divdf3(double a, double b) {
  return dspc_soft_div(a, b);
}
float __hexagon_divsf3(float a, float b) {
  return (float)dspc_soft_div(a, b);
}
float __hexagon_sqrtf(float a) {
  return (float)dspc_soft_sqrt(a);
}
