/* IEEE-754 binary64 arithmetic in integer code, round to nearest even, for the operations
 * the Hexagon ISA (or a freestanding x86-64 build) lacks. No floating-point arithmetic is
 * used inside, so these are safe to call from the compiler's own helpers. NaN results are
 * the default quiet NaN, or the quieted input NaN. Pure C: also compiled into the host unit
 * tests, which compare them with the host's hardware. */
#ifndef DSPC_SOFTFLOAT_H
#define DSPC_SOFTFLOAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

double dspc_soft_add(double a, double b);
double dspc_soft_sub(double a, double b);
double dspc_soft_mul(double a, double b);
double dspc_soft_div(double a, double b);
double dspc_soft_sqrt(double a);
double dspc_soft_floor(double a);
float dspc_soft_floorf(float a);
double dspc_soft_fmod(double a, double b);
/* binary16 <-> binary64/binary32, as bit patterns (uint16_t in the low bits). */
uint32_t dspc_soft_f64_to_f16(double a);
float dspc_soft_f16_to_f32(uint32_t h);

#ifdef __cplusplus
}
#endif

#endif
