// The division helpers (device/builtins_hexagon.c) and soft-float (device/softfloat.c),
// compiled for the host and compared with the host's hardware on edge cases and millions
// of random operands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "softfloat.h"

extern "C" {
uint32_t __hexagon_udivsi3(uint32_t, uint32_t);
uint32_t __hexagon_umodsi3(uint32_t, uint32_t);
int32_t __hexagon_divsi3(int32_t, int32_t);
int32_t __hexagon_modsi3(int32_t, int32_t);
uint64_t __hexagon_udivdi3(uint64_t, uint64_t);
uint64_t __hexagon_umoddi3(uint64_t, uint64_t);
int64_t __hexagon_divdi3(int64_t, int64_t);
int64_t __hexagon_moddi3(int64_t, int64_t);
float __hexagon_divsf3(float, float);
float __hexagon_sqrtf(float);
}

namespace {

template <typename T>
std::vector<T> edge_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {0,
                      1,
                      2,
                      3,
                      7,
                      10,
                      255,
                      256,
                      65535,
                      65536,
                      L::max(),
                      static_cast<T>(L::max() - 1),
                      static_cast<T>(L::max() / 2),
                      static_cast<T>(L::max() / 2 + 1)};
  if (L::is_signed) {
    for (T x : {T(-1), T(-2), T(-3), T(-7), T(-10), L::min(), static_cast<T>(L::min() + 1)}) v.push_back(x);
  }
  return v;
}

template <typename T>
T random_value(std::mt19937_64& rng) {
  // Mix magnitudes: uniform over the bit width of a random length, so small operands occur.
  int bits = 1 + static_cast<int>(rng() % (8 * sizeof(T)));
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  return static_cast<T>(rng() & mask);
}

template <typename T, typename Div, typename Mod>
void check_division(Div div, Mod mod) {
  auto check = [&](T a, T b) {
    if (b == 0) {
      ASSERT_EQ(div(a, b), T(0));
      ASSERT_EQ(mod(a, b), T(0));
      return;
    }
    if (std::numeric_limits<T>::is_signed && a == std::numeric_limits<T>::min() && b == T(-1)) {
      ASSERT_EQ(div(a, b), a);  // wraps
      ASSERT_EQ(mod(a, b), T(0));
      return;
    }
    ASSERT_EQ(div(a, b), T(a / b)) << +a << " / " << +b;
    ASSERT_EQ(mod(a, b), T(a % b)) << +a << " % " << +b;
  };
  for (T a : edge_values<T>())
    for (T b : edge_values<T>()) check(a, b);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 2000000; i++) check(random_value<T>(rng), random_value<T>(rng));
}

TEST(DivisionHelpers, Unsigned32) {
  check_division<uint32_t>(__hexagon_udivsi3, __hexagon_umodsi3);
}
TEST(DivisionHelpers, Signed32) {
  check_division<int32_t>(__hexagon_divsi3, __hexagon_modsi3);
}
TEST(DivisionHelpers, Unsigned64) {
  check_division<uint64_t>(__hexagon_udivdi3, __hexagon_umoddi3);
}
TEST(DivisionHelpers, Signed64) {
  check_division<int64_t>(__hexagon_divdi3, __hexagon_moddi3);
}

uint64_t bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
double from(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}
uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Equal bit patterns, or both NaN (the payload of a NaN result is not specified).
::testing::AssertionResult same(double got, double want) {
  if (std::isnan(got) && std::isnan(want)) return ::testing::AssertionSuccess();
  if (bits(got) == bits(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << got << " != " << want;
}
::testing::AssertionResult same(float got, float want) {
  if (std::isnan(got) && std::isnan(want)) return ::testing::AssertionSuccess();
  if (bits(got) == bits(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << got << " != " << want;
}

std::vector<double> special_doubles() {
  using L = std::numeric_limits<double>;
  std::vector<double> v = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           0.5,
                           1.5,
                           2.0,
                           3.0,
                           0.1,
                           -2.5,
                           1e300,
                           -1e300,
                           1e-300,
                           L::min(),
                           -L::min(),
                           L::denorm_min(),
                           -L::denorm_min(),
                           L::max(),
                           -L::max(),
                           L::infinity(),
                           -L::infinity(),
                           L::quiet_NaN(),
                           L::epsilon(),
                           1 + L::epsilon(),
                           4503599627370496.0,
                           4503599627370495.5,
                           9007199254740993.0,
                           0.49999999999999994,
                           from(0x000FFFFFFFFFFFFFull),
                           from(0x0010000000000001ull),
                           3.0 * L::denorm_min()};
  return v;
}

// Random doubles: random bit patterns (all exponents, NaNs included) and nearby values.
double random_double(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return from(rng());
    case 1: return from(rng() & 0x800FFFFFFFFFFFFFull);  // subnormal
    case 2: return static_cast<double>(static_cast<int64_t>(rng() % 2000) - 1000) / 8.0;
    default: return from((rng() & 0x801FFFFFFFFFFFFFull) | (static_cast<uint64_t>(0x3F0 + rng() % 32) << 52));
  }
}

template <typename Soft, typename Hard>
void check_binary(Soft soft, Hard hard, int random_cases = 2000000) {
  for (double a : special_doubles())
    for (double b : special_doubles())
      ASSERT_TRUE(same(soft(a, b), hard(a, b))) << std::hexfloat << a << " " << b;
  std::mt19937_64 rng(7);
  for (int i = 0; i < random_cases; i++) {
    double a = random_double(rng), b = random_double(rng);
    ASSERT_TRUE(same(soft(a, b), hard(a, b))) << std::hexfloat << a << " " << b;
  }
}

TEST(SoftFloat, Add) {
  check_binary(dspc_soft_add, [](double a, double b) { return a + b; });
}
TEST(SoftFloat, Sub) {
  check_binary(dspc_soft_sub, [](double a, double b) { return a - b; });
}
TEST(SoftFloat, Mul) {
  check_binary(dspc_soft_mul, [](double a, double b) { return a * b; });
}
TEST(SoftFloat, Div) {
  check_binary(dspc_soft_div, [](double a, double b) { return a / b; });
}
TEST(SoftFloat, Fmod) {
  // Fewer cases: fmod loops once per bit of exponent difference, up to ~2100 times.
  check_binary(
      dspc_soft_fmod, [](double a, double b) { return std::fmod(a, b); }, 300000);
}

template <typename Soft, typename Hard>
void check_unary(Soft soft, Hard hard) {
  for (double a : special_doubles()) ASSERT_TRUE(same(soft(a), hard(a))) << std::hexfloat << a;
  std::mt19937_64 rng(9);
  for (int i = 0; i < 2000000; i++) {
    double a = random_double(rng);
    ASSERT_TRUE(same(soft(a), hard(a))) << std::hexfloat << a;
  }
}

TEST(SoftFloat, Sqrt) {
  check_unary(dspc_soft_sqrt, [](double a) { return std::sqrt(a); });
}
TEST(SoftFloat, Floor) {
  check_unary(dspc_soft_floor, [](double a) { return std::floor(a); });
}
TEST(SoftFloat, Floorf) {
  check_unary([](double a) { return dspc_soft_floorf(static_cast<float>(a)); },
              [](double a) { return std::floor(static_cast<float>(a)); });
}

TEST(SoftFloat, FloatDivisionAndSqrtHelpersAreCorrectlyRounded) {
  std::mt19937 rng(11);
  for (int i = 0; i < 2000000; i++) {
    uint32_t ua = rng(), ub = rng();
    float a, b;
    std::memcpy(&a, &ua, 4);
    std::memcpy(&b, &ub, 4);
    ASSERT_TRUE(same(__hexagon_divsf3(a, b), a / b)) << std::hexfloat << a << " " << b;
    ASSERT_TRUE(same(__hexagon_sqrtf(a), std::sqrt(a))) << std::hexfloat << a;
  }
}

// binary16 against the host compiler's _Float16 conversions.
TEST(SoftFloat, HalfConversions) {
  for (uint32_t h = 0; h < 65536; h++) {
    uint16_t h16 = static_cast<uint16_t>(h);
    _Float16 x;
    std::memcpy(&x, &h16, 2);
    ASSERT_TRUE(same(dspc_soft_f16_to_f32(h), static_cast<float>(x))) << h;
    // Every half value survives the round trip, as do NaNs up to quieting.
    uint32_t back = dspc_soft_f64_to_f16(static_cast<double>(x));
    if (std::isnan(static_cast<float>(x)))
      ASSERT_EQ(back, h | 0x200u) << h;
    else
      ASSERT_EQ(back, h) << h;
  }
  std::mt19937_64 rng(13);
  for (int i = 0; i < 2000000; i++) {
    double d = rng() % 2 ? random_double(rng) : from((rng() & 0x80FFFFFFFFFFFFFFull) | (0x3E0ull << 52));
    _Float16 want = static_cast<_Float16>(d);
    uint16_t want_bits;
    std::memcpy(&want_bits, &want, 2);
    uint32_t got = dspc_soft_f64_to_f16(d);
    if (std::isnan(d))
      ASSERT_TRUE((got & 0x7C00u) == 0x7C00u && (got & 0x3FFu) != 0) << std::hexfloat << d;
    else
      ASSERT_EQ(got, want_bits) << std::hexfloat << d;
  }
}

}  // namespace
