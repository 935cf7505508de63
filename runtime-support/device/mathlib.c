/* The libm functions and conversion helpers LLVM emits calls to: floor/floorf (dspc's float
 * `%` is a - b * floor(a / b)), sqrt/sqrtf, fmod/fmodf (LLVM's frem), and the binary16
 * conversions. Device builds only; the host unit tests test softfloat.c directly. */
#include <stdint.h>

#include "softfloat.h"

double floor(double a) {
  return dspc_soft_floor(a);
}
float floorf(float a) {
  return dspc_soft_floorf(a);
}
double sqrt(double a) {
  return dspc_soft_sqrt(a);
}
float sqrtf(float a) {
  return (float)dspc_soft_sqrt(a);
}
double fmod(double a, double b) {
  return dspc_soft_fmod(a, b);
}
float fmodf(float a, float b) {
  return (float)dspc_soft_fmod(a, b);
} /* exact: no rounding */

/* Half values cross these calls as the bits in an integer register on Hexagon, and as
 * _Float16 in an SSE register on x86-64 (LLVM's libcall conventions for each). Callers may
 * leave garbage above the low 16 bits, so they are masked. */
#if defined(__x86_64__)
typedef _Float16 Half;
static uint32_t half_bits(Half h) {
  uint16_t b;
  __builtin_memcpy(&b, &h, sizeof b);
  return b;
}
static Half half_from_bits(uint32_t v) {
  uint16_t b = (uint16_t)v;
  Half h;
  __builtin_memcpy(&h, &b, sizeof h);
  return h;
}
#else
typedef uint32_t Half;
static uint32_t half_bits(Half h) {
  return h & 0xFFFFu;
}
static Half half_from_bits(uint32_t v) {
  return v & 0xFFFFu;
}
#endif

float __extendhfsf2(Half h) {
  return dspc_soft_f16_to_f32(half_bits(h));
}
Half __truncsfhf2(float f) {
  return half_from_bits(dspc_soft_f64_to_f16((double)f));
}
Half __truncdfhf2(double d) {
  return half_from_bits(dspc_soft_f64_to_f16(d));
}
