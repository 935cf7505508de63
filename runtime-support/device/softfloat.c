/* IEEE-754 binary64 arithmetic in integer code (see softfloat.h).
 *
 * 1. Operands are unpacked to a biased exponent and a significand; subnormals are normalized
 *    first, so every path works on a significand with its leading one in a known place.
 * 2. Each operation produces an exact-enough significand with its leading one at bit 62 and
 *    10 bits below the result's last place; bits shifted out are ORed into bit 0 (sticky).
 * 3. round_pack rounds to nearest even, handles underflow to subnormal and overflow to
 *    infinity, and adds the significand into the exponent field, so a rounding carry moves
 *    into the exponent by itself (hence the exponent passed in is the biased one minus 1).
 * This is the scheme of Berkeley SoftFloat 3; division and square root here use plain
 * restoring (bit-by-bit) loops instead of reciprocal approximations: slower, simpler,
 * obviously exact. No floating-point arithmetic appears here: on Hexagon it would call back
 * into these routines. */
#include "softfloat.h"

typedef uint64_t u64;

#define SIGN64 0x8000000000000000ull
#define FRAC64 0x000FFFFFFFFFFFFFull
#define HIDDEN64 0x0010000000000000ull
#define QUIET64 0x0008000000000000ull
#define DEFAULT_NAN64 0x7FF8000000000000ull

static u64 bits_of(double d) {
  u64 u;
  __builtin_memcpy(&u, &d, sizeof u);
  return u;
}

static double from_bits(u64 u) {
  double d;
  __builtin_memcpy(&d, &u, sizeof d);
  return d;
}

static int exp_of(u64 u) {
  return (int)((u >> 52) & 0x7FF);
}
static u64 frac_of(u64 u) {
  return u & FRAC64;
}
static int is_nan(u64 u) {
  return (u & ~SIGN64) > 0x7FF0000000000000ull;
}
static int clz64(u64 v) {
  return v ? __builtin_clzll(v) : 64;
}

static u64 pack(int sign, int exp, u64 sig) {
  return ((u64)sign << 63) + ((u64)exp << 52) + sig;
}

static u64 propagate_nan(u64 a, u64 b) {
  return (is_nan(a) ? a : b) | QUIET64;
}

/* Shifts right, ORing every bit shifted out into bit 0. */
static u64 shift_right_jam(u64 a, int dist) {
  if (dist == 0) return a;
  if (dist < 63) return (a >> dist) | ((a << (64 - dist)) != 0);
  return a != 0;
}

static void norm_subnormal(u64 frac, int* exp, u64* sig) {
  int shift = clz64(frac) - 11;
  *exp = 1 - shift;
  *sig = frac << shift;
}

static u64 round_pack(int sign, int exp, u64 sig) {
  u64 round_bits = sig & 0x3FF;
  if ((unsigned)exp >= 0x7FD) {
    if (exp < 0) {
      sig = shift_right_jam(sig, -exp);
      exp = 0;
      round_bits = sig & 0x3FF;
    } else if (exp > 0x7FD || sig + 0x200 >= SIGN64) {
      return pack(sign, 0x7FF, 0);
    }
  }
  sig = (sig + 0x200) >> 10;
  if (round_bits == 0x200) sig &= ~(u64)1; /* a tie: to even */
  if (sig == 0) exp = 0;
  return pack(sign, exp, sig);
}

static u64 norm_round_pack(int sign, int exp, u64 sig) {
  int shift = clz64(sig) - 1;
  exp -= shift;
  if (shift >= 10 && (unsigned)exp < 0x7FD) return pack(sign, sig ? exp : 0, sig << (shift - 10));
  return round_pack(sign, exp, sig << shift);
}

static u64 add_mags(u64 a, u64 b, int sign) {
  int ea = exp_of(a), eb = exp_of(b);
  u64 fa = frac_of(a), fb = frac_of(b);
  int diff = ea - eb;
  int ez;
  u64 sz;
  if (diff == 0) {
    if (ea == 0) return a + fb; /* both subnormal: the sum is exact, a carry makes it normal */
    if (ea == 0x7FF) return (fa | fb) ? propagate_nan(a, b) : a;
    ez = ea;
    sz = (2 * HIDDEN64 + fa + fb) << 9;
    return round_pack(sign, ez, sz);
  }
  fa <<= 9;
  fb <<= 9;
  if (diff < 0) {
    if (eb == 0x7FF) return fb ? propagate_nan(a, b) : pack(sign, 0x7FF, 0);
    ez = eb;
    fa = ea ? fa + 0x2000000000000000ull : fa << 1;
    fa = shift_right_jam(fa, -diff);
  } else {
    if (ea == 0x7FF) return fa ? propagate_nan(a, b) : a;
    ez = ea;
    fb = eb ? fb + 0x2000000000000000ull : fb << 1;
    fb = shift_right_jam(fb, diff);
  }
  sz = 0x2000000000000000ull + fa + fb;
  if (sz < 0x4000000000000000ull) {
    ez--;
    sz <<= 1;
  }
  return round_pack(sign, ez, sz);
}

static u64 sub_mags(u64 a, u64 b, int sign) {
  int ea = exp_of(a), eb = exp_of(b);
  u64 fa = frac_of(a), fb = frac_of(b);
  int diff = ea - eb;
  if (diff == 0) {
    if (ea == 0x7FF) return (fa | fb) ? propagate_nan(a, b) : DEFAULT_NAN64;
    int64_t d = (int64_t)fa - (int64_t)fb;
    if (d == 0) return 0; /* x - x is +0 when rounding to nearest */
    if (ea) ea--;
    if (d < 0) {
      sign = !sign;
      d = -d;
    }
    int shift = clz64((u64)d) - 11;
    int ez = ea - shift;
    if (ez < 0) {
      shift = ea;
      ez = 0;
    }
    return pack(sign, ez, (u64)d << shift);
  }
  fa <<= 10;
  fb <<= 10;
  int ez;
  u64 sz;
  if (diff < 0) {
    sign = !sign;
    if (eb == 0x7FF) return fb ? propagate_nan(a, b) : pack(sign, 0x7FF, 0);
    fa += ea ? 0x4000000000000000ull : fa;
    fa = shift_right_jam(fa, -diff);
    fb |= 0x4000000000000000ull;
    ez = eb;
    sz = fb - fa;
  } else {
    if (ea == 0x7FF) return fa ? propagate_nan(a, b) : a;
    fb += eb ? 0x4000000000000000ull : fb;
    fb = shift_right_jam(fb, diff);
    fa |= 0x4000000000000000ull;
    ez = ea;
    sz = fa - fb;
  }
  return norm_round_pack(sign, ez - 1, sz);
}

double dspc_soft_add(double a, double b) {
  u64 ua = bits_of(a), ub = bits_of(b);
  int sa = (int)(ua >> 63);
  return from_bits(sa == (int)(ub >> 63) ? add_mags(ua, ub, sa) : sub_mags(ua, ub, sa));
}

double dspc_soft_sub(double a, double b) {
  u64 ua = bits_of(a), ub = bits_of(b);
  int sa = (int)(ua >> 63);
  return from_bits(sa == (int)(ub >> 63) ? sub_mags(ua, ub, sa) : add_mags(ua, ub, sa));
}

/* The 128-bit product of two 64-bit values, from 32-bit halves (native 32x32->64 multiplies). */
static void mul_64x64(u64 a, u64 b, u64* hi, u64* lo) {
  u64 a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  u64 mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  *lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

double dspc_soft_mul(double a, double b) {
  u64 ua = bits_of(a), ub = bits_of(b);
  int sign = (int)((ua ^ ub) >> 63);
  int ea = exp_of(ua), eb = exp_of(ub);
  u64 fa = frac_of(ua), fb = frac_of(ub);
  if (ea == 0x7FF || eb == 0x7FF) {
    if (is_nan(ua) || is_nan(ub)) return from_bits(propagate_nan(ua, ub));
    if ((ea | fa) == 0 || (eb | fb) == 0) return from_bits(DEFAULT_NAN64); /* inf * 0 */
    return from_bits(pack(sign, 0x7FF, 0));
  }
  if (ea == 0) {
    if (fa == 0) return from_bits(pack(sign, 0, 0));
    norm_subnormal(fa, &ea, &fa);
  }
  if (eb == 0) {
    if (fb == 0) return from_bits(pack(sign, 0, 0));
    norm_subnormal(fb, &eb, &fb);
  }
  int ez = ea + eb - 0x3FF;
  u64 hi, lo;
  mul_64x64((fa | HIDDEN64) << 10, (fb | HIDDEN64) << 11, &hi, &lo);
  u64 sz = hi | (lo != 0);
  if (sz < 0x4000000000000000ull) {
    ez--;
    sz <<= 1;
  }
  return from_bits(round_pack(sign, ez, sz));
}

double dspc_soft_div(double a, double b) {
  u64 ua = bits_of(a), ub = bits_of(b);
  int sign = (int)((ua ^ ub) >> 63);
  int ea = exp_of(ua), eb = exp_of(ub);
  u64 fa = frac_of(ua), fb = frac_of(ub);
  if (is_nan(ua) || is_nan(ub)) return from_bits(propagate_nan(ua, ub));
  if (ea == 0x7FF) return from_bits(eb == 0x7FF ? DEFAULT_NAN64 : pack(sign, 0x7FF, 0));
  if (eb == 0x7FF) return from_bits(pack(sign, 0, 0));
  if (eb == 0) {
    if (fb == 0) return from_bits((ea | fa) == 0 ? DEFAULT_NAN64 : pack(sign, 0x7FF, 0));
    norm_subnormal(fb, &eb, &fb);
  }
  if (ea == 0) {
    if (fa == 0) return from_bits(pack(sign, 0, 0));
    norm_subnormal(fa, &ea, &fa);
  }
  int ez = ea - eb + 0x3FE;
  u64 ma = fa | HIDDEN64, mb = fb | HIDDEN64;
  if (ma < mb) {
    ez--;
    ma <<= 1;
  }
  /* ma is in [mb, 2 mb): 63 quotient bits, the first one 1, then the remainder as sticky. */
  u64 q = 0;
  for (int i = 0; i < 63; i++) {
    q <<= 1;
    if (ma >= mb) {
      ma -= mb;
      q |= 1;
    }
    ma <<= 1;
  }
  return from_bits(round_pack(sign, ez, q | (ma != 0)));
}

double dspc_soft_sqrt(double a) {
  u64 ua = bits_of(a);
  int ea = exp_of(ua);
  u64 fa = frac_of(ua);
  if (is_nan(ua)) return from_bits(ua | QUIET64);
  if (ua >> 63) return (ua << 1) == 0 ? a : from_bits(DEFAULT_NAN64); /* sqrt(-0) is -0 */
  if (ea == 0x7FF) return a;
  if (ea == 0) {
    if (fa == 0) return a;
    norm_subnormal(fa, &ea, &fa);
  }
  /* a = (m / 2^52) * 2^e with an even e, m / 2^52 in [1, 4). */
  int e = ea - 0x3FF;
  u64 m = fa | HIDDEN64;
  if (e & 1) {
    m <<= 1;
    e -= 1;
  }
  /* q = floor(sqrt(m * 2^56)), in [2^54, 2^55): two bits beyond the 53 the result keeps.
   * The radicand's 55 bit pairs are m's, then zeros; r stays below 2 q + 1 < 2^56. */
  u64 q = 0, r = 0;
  for (int k = 54; k >= 0; k--) {
    u64 pair = 2 * k >= 56 ? (m >> (2 * k - 56)) & 3u : 0;
    r = (r << 2) | pair;
    u64 t = (q << 2) | 1;
    q <<= 1;
    if (r >= t) {
      r -= t;
      q |= 1;
    }
  }
  return from_bits(round_pack(0, e / 2 + 0x3FE, (q << 8) | (r != 0)));
}

double dspc_soft_floor(double a) {
  u64 u = bits_of(a);
  int e = exp_of(u);
  if (e >= 0x3FF + 52) return is_nan(u) ? from_bits(u | QUIET64) : a; /* integral, inf, NaN */
  if (e < 0x3FF) {
    if ((u << 1) == 0) return a;
    return from_bits(u >> 63 ? 0xBFF0000000000000ull : 0); /* -1 or +0 */
  }
  u64 mask = FRAC64 >> (e - 0x3FF);
  if ((u & mask) == 0) return a;
  if (u >> 63) u += mask + 1; /* away from zero; a carry moves into the exponent */
  return from_bits(u & ~mask);
}

float dspc_soft_floorf(float a) {
  uint32_t u;
  __builtin_memcpy(&u, &a, sizeof u);
  int e = (int)((u >> 23) & 0xFF);
  if (e >= 127 + 23) {
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) u |= 0x00400000u;
  } else if (e < 127) {
    if ((u << 1) != 0) u = u >> 31 ? 0xBF800000u : 0;
  } else {
    uint32_t mask = 0x007FFFFFu >> (e - 127);
    if (u & mask) {
      if (u >> 31) u += mask + 1;
      u &= ~mask;
    }
  }
  float r;
  __builtin_memcpy(&r, &u, sizeof r);
  return r;
}

/* Exact: the remainder of the significands by shift-subtract, one exponent step at a time. */
double dspc_soft_fmod(double a, double b) {
  u64 ux = bits_of(a), uy = bits_of(b);
  u64 sx = ux & SIGN64;
  int ex = exp_of(ux), ey = exp_of(uy);
  if (is_nan(ux) || is_nan(uy)) return from_bits(propagate_nan(ux, uy));
  if ((uy << 1) == 0 || ex == 0x7FF) return from_bits(DEFAULT_NAN64);
  if ((ux << 1) <= (uy << 1)) return (ux << 1) == (uy << 1) ? from_bits(sx) : a;
  u64 mx, my;
  if (ex == 0) {
    norm_subnormal(frac_of(ux), &ex, &mx);
  } else {
    mx = frac_of(ux) | HIDDEN64;
  }
  if (ey == 0) {
    norm_subnormal(frac_of(uy), &ey, &my);
  } else {
    my = frac_of(uy) | HIDDEN64;
  }
  for (; ex > ey; ex--) {
    if (mx >= my) {
      mx -= my;
      if (mx == 0) return from_bits(sx);
    }
    mx <<= 1;
  }
  if (mx >= my) {
    mx -= my;
    if (mx == 0) return from_bits(sx);
  }
  int shift = clz64(mx) - 11;
  mx <<= shift;
  ex -= shift;
  if (ex > 0) return from_bits(sx | ((u64)ex << 52) | (mx & FRAC64));
  return from_bits(sx | (mx >> (1 - ex))); /* subnormal, and exact: nothing is lost */
}

/* round(v / 2^s) to nearest even, 1 <= s <= 63. */
static u64 round_shift(u64 v, int s) {
  u64 q = v >> s;
  u64 rem = v & ((1ull << s) - 1);
  u64 half = 1ull << (s - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  return q;
}

uint32_t dspc_soft_f64_to_f16(double a) {
  u64 u = bits_of(a);
  uint32_t sign = (uint32_t)(u >> 48) & 0x8000u;
  int e = exp_of(u);
  u64 f = frac_of(u);
  if (e == 0x7FF) return sign | 0x7C00u | (f ? 0x200u | (uint32_t)(f >> 42) : 0);
  if (e == 0) return sign; /* zero, or a double subnormal: far below half's range */
  e -= 0x3FF;
  u64 m = f | HIDDEN64;
  if (e > 15) return sign | 0x7C00u;
  if (e >= -14) return sign | (uint32_t)(((u64)(e + 14) << 10) + round_shift(m, 42));
  int s = 28 - e; /* to units of 2^-24, half's subnormal step */
  if (s > 63) return sign;
  return sign | (uint32_t)round_shift(m, s);
}

float dspc_soft_f16_to_f32(uint32_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1Fu;
  uint32_t m = h & 0x3FFu;
  uint32_t bits;
  if (e == 0x1F) {
    bits = sign | 0x7F800000u | (m << 13) | (m ? 0x00400000u : 0);
  } else if (e == 0) {
    if (m == 0) {
      bits = sign;
    } else {
      int shift = __builtin_clz(m) - 21; /* the leading one to bit 10 */
      m <<= shift;
      bits = sign | ((uint32_t)(113 - shift) << 23) | ((m & 0x3FFu) << 13);
    }
  } else {
    bits = sign | ((e + 112) << 23) | (m << 13);
  }
  float r;
  __builtin_memcpy(&r, &bits, sizeof r);
  return r;
}
