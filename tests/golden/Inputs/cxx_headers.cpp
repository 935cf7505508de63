// A C++ program that uses every freestanding header dspc ships for device programs
// (runtime-support/device/include/c++/), calls a kernel (cxx-headers.dsp) and prints its result.
#include <cfloat>
#include <climits>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "cxx-headers.h"

extern "C" long dspc_platform_write(int fd, const void* buf, std::size_t n);

static_assert(std::numeric_limits<int>::max() == INT_MAX && std::numeric_limits<int>::min() == INT_MIN, "");
static_assert(std::numeric_limits<char>::min() == CHAR_MIN && std::numeric_limits<char>::max() == CHAR_MAX, "");
static_assert(std::numeric_limits<unsigned long long>::max() == ULLONG_MAX, "");
static_assert(std::numeric_limits<std::int64_t>::digits == 63 && std::numeric_limits<std::uint8_t>::digits == 8, "");
static_assert(std::numeric_limits<float>::max() == FLT_MAX && std::numeric_limits<double>::epsilon() == DBL_EPSILON, "");
static_assert(std::is_same_v<std::make_unsigned_t<std::int32_t>, std::uint32_t>, "");
static_assert(std::is_integral_v<std::uint8_t> && std::is_floating_point_v<float> && !std::is_signed_v<bool>, "");
static_assert(std::is_same_v<std::decay_t<const int (&)[3]>, const int*>, "");
static_assert(std::is_same_v<std::make_index_sequence<3>, std::index_sequence<0, 1, 2>>, "");
static_assert(std::is_trivially_copyable_v<std::pair<int, char>> || true, "");
static_assert(sizeof(std::max_align_t) >= sizeof(long long), "");

namespace {

struct Counter {
  int n;
  explicit Counter(int start) : n(start) {}
};

int sum(std::initializer_list<int> values) {
  int s = 0;
  for (int v : values) s += v;
  return s;
}

int add_all(int count, ...) {
  va_list args;
  va_start(args, count);
  int s = 0;
  for (int i = 0; i < count; ++i) s += va_arg(args, int);
  va_end(args);
  return s;
}

void print(const char* label, std::int64_t v) {
  char buf[32];
  int n = 0;
  bool negative = v < 0;
  std::uint64_t u = negative ? 0 - std::uint64_t(v) : std::uint64_t(v);
  do {
    buf[n++] = char('0' + u % 10);
    u /= 10;
  } while (u);
  if (negative) buf[n++] = '-';
  dspc_platform_write(1, label, std::strlen(label));
  for (int i = n - 1; i >= 0; --i) dspc_platform_write(1, &buf[i], 1);
  dspc_platform_write(1, "\n", 1);
}

alignas(128) std::int32_t X[64];
alignas(128) std::int32_t Y[64];

}  // namespace

int main() {
  for (int i = 0; i < 64; ++i) X[i] = i;
  doubled(X, Y, nullptr);
  alignas(Counter) unsigned char place[sizeof(Counter)];
  Counter* c = new (place) Counter(40);
  auto p = std::make_pair(1, 2);
  int a = 5, b = 7;
  std::swap(a, b);
  int moved = std::exchange(a, 0);
  char text[8];
  std::memcpy(text, "dspc", 5);
  print("kernel: ", Y[63]);
  print("list: ", sum({1, 2, 3, 4}));
  print("varargs: ", add_all(3, 10, 20, 30));
  print("placement: ", c->n + p.first + p.second);
  print("swap: ", moved * 10 + b);
  print("strlen: ", std::int64_t(std::strlen(text)));
  print("byte: ", std::to_integer<int>(std::byte{0x0f} | std::byte{0x30}));
  print("int64 min: ", std::numeric_limits<std::int64_t>::min());
  return 0;
}
