/* The C library functions that compiled code calls on its own (struct copies, loop idioms in
 * generated kernels): memcpy, memmove, memset, memcmp, strlen. Device builds only; the host
 * unit tests use the system's libc.
 *
 * Large copies move 128 bytes at a time (one HVX vector on Hexagon; unaligned vector loads
 * and stores), which matters because LLVM turns the kernels' staging loops into memcpy. The
 * build passes -ffreestanding, so LLVM never turns these loops back into calls to themselves. */
#include <stddef.h>
#include <stdint.h>

typedef uint8_t Chunk __attribute__((vector_size(128), aligned(1)));
typedef uint64_t Word __attribute__((aligned(1), may_alias));

void* memcpy(void* restrict dst, const void* restrict src, size_t n) {
  uint8_t* d = (uint8_t*)dst;
  const uint8_t* s = (const uint8_t*)src;
#pragma clang loop unroll(disable)
  for (; n >= sizeof(Chunk); n -= sizeof(Chunk), d += sizeof(Chunk), s += sizeof(Chunk))
    *(Chunk*)d = *(const Chunk*)s;
  for (; n >= 8; n -= 8, d += 8, s += 8) *(Word*)d = *(const Word*)s;
  for (; n; n--) *d++ = *s++;
  return dst;
}

void* memmove(void* dst, const void* src, size_t n) {
  uint8_t* d = (uint8_t*)dst;
  const uint8_t* s = (const uint8_t*)src;
  if (d == s || n == 0) return dst;
  /* Forward is safe unless dst starts inside [src, src + n); compare as integers because
   * the two may be unrelated objects. */
  if ((uintptr_t)d - (uintptr_t)s >= n) {
#pragma clang loop unroll(disable)
    for (; n >= sizeof(Chunk); n -= sizeof(Chunk), d += sizeof(Chunk), s += sizeof(Chunk)) {
      Chunk c = *(const Chunk*)s;
      *(Chunk*)d = c;
    }
    for (; n; n--) *d++ = *s++;
    return dst;
  }
  d += n;
  s += n;
#pragma clang loop unroll(disable)
  for (; n >= sizeof(Chunk); n -= sizeof(Chunk)) {
    d -= sizeof(Chunk);
    s -= sizeof(Chunk);
    Chunk c = *(const Chunk*)s;
    *(Chunk*)d = c;
  }
  for (; n; n--) *--d = *--s;
  return dst;
}

void* memset(void* dst, int value, size_t n) {
  uint8_t* d = (uint8_t*)dst;
  uint8_t b = (uint8_t)value;
  if (n >= sizeof(Chunk)) {
    Chunk c = (Chunk){0} + b; /* a splat */
#pragma clang loop unroll(disable)
    for (; n >= sizeof(Chunk); n -= sizeof(Chunk), d += sizeof(Chunk)) *(Chunk*)d = c;
  }
  Word w = 0x0101010101010101ull * b;
  for (; n >= 8; n -= 8, d += 8) *(Word*)d = w;
  for (; n; n--) *d++ = b;
  return dst;
}

int memcmp(const void* a, const void* b, size_t n) {
  const uint8_t* x = (const uint8_t*)a;
  const uint8_t* y = (const uint8_t*)b;
  for (; n; n--, x++, y++)
    if (*x != *y) return *x < *y ? -1 : 1;
  return 0;
}

size_t strlen(const char* s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}
