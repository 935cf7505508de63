/* Self-test of runtime-support on the device (qemu-hexagon), also built for the host target:
 * division helpers and soft-float against tables computed by Python
 * (gen_selftest_tables.py), memcpy/memmove/memset against byte loops, the VTCM pool,
 * workspace and last error. Prints each failure, then "N passed, M failed"; exits 1 on any
 * failure. Links against libdspc_rt.a like a dspc executable, with its own dspc_main. */
#include <stddef.h>
#include <stdint.h>

#include "dspc_runtime.h"
#include "platform.h"
#include "selftest_tables.h"
#include "runtime-support/common/text.h"

void* memcpy(void* restrict dst, const void* restrict src, size_t n);
void* memmove(void* dst, const void* src, size_t n);
void* memset(void* dst, int value, size_t n);
double floor(double);
float floorf(float);
double sqrt(double);
double fmod(double, double);

#if defined(__hexagon__)
uint32_t __hexagon_udivsi3(uint32_t, uint32_t);
uint32_t __hexagon_umodsi3(uint32_t, uint32_t);
int32_t __hexagon_divsi3(int32_t, int32_t);
int32_t __hexagon_modsi3(int32_t, int32_t);
uint64_t __hexagon_udivdi3(uint64_t, uint64_t);
uint64_t __hexagon_umoddi3(uint64_t, uint64_t);
int64_t __hexagon_divdi3(int64_t, int64_t);
int64_t __hexagon_moddi3(int64_t, int64_t);
float __hexagon_divsf3(float, float);
uint32_t __truncsfhf2(float);
float __extendhfsf2(uint32_t);
#endif

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int passed, failed;

static void print(const char* s) {
  dspc_platform_write(1, s, __builtin_strlen(s));
}

/* Records one check; on failure prints what and the two values as hex. */
static void check(int ok, const char* what, uint64_t index, uint64_t got, uint64_t want) {
  if (ok) {
    passed++;
    return;
  }
  failed++;
  char buf[256];
  dspc_text t;
  dspc_text_init(&t, buf, sizeof buf);
  dspc_text_str(&t, "FAIL ");
  dspc_text_str(&t, what);
  dspc_text_str(&t, " #");
  dspc_text_u64(&t, index);
  dspc_text_str(&t, ": got ");
  dspc_text_hex(&t, got);
  dspc_text_str(&t, ", want ");
  dspc_text_hex(&t, want);
  dspc_text_char(&t, '\n');
  print(buf);
}

static void check_str(const char* got, const char* want_prefix, const char* what) {
  size_t n = __builtin_strlen(want_prefix);
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++) ok = got[i] == want_prefix[i];
  if (!ok) {
    print("FAIL ");
    print(what);
    print(": got '");
    print(got);
    print("', want a message starting '");
    print(want_prefix);
    print("'\n");
  }
  check(ok, what, 0, 0, 0);
}

static uint64_t dbits(double d) {
  uint64_t u;
  __builtin_memcpy(&u, &d, 8);
  return u;
}
static double dfrom(uint64_t u) {
  double d;
  __builtin_memcpy(&d, &u, 8);
  return d;
}
static uint32_t fbits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
static float ffrom(uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
static int is_nan64(uint64_t u) {
  return (u & ~(1ull << 63)) > 0x7FF0000000000000ull;
}

/* The operators compile to the helpers on Hexagon (and to instructions on the host). */
static void test_division(void) {
  for (size_t i = 0; i < COUNT(div_cases_i32); i++) {
    const DivCase_i32* c = &div_cases_i32[i];
    check(c->a / c->b == c->q, "i32 /", i, (uint32_t)(c->a / c->b), (uint32_t)c->q);
    check(c->a % c->b == c->r, "i32 %", i, (uint32_t)(c->a % c->b), (uint32_t)c->r);
  }
  for (size_t i = 0; i < COUNT(div_cases_u32); i++) {
    const DivCase_u32* c = &div_cases_u32[i];
    check(c->a / c->b == c->q, "u32 /", i, c->a / c->b, c->q);
    check(c->a % c->b == c->r, "u32 %", i, c->a % c->b, c->r);
  }
  for (size_t i = 0; i < COUNT(div_cases_i64); i++) {
    const DivCase_i64* c = &div_cases_i64[i];
    check(c->a / c->b == c->q, "i64 /", i, (uint64_t)(c->a / c->b), (uint64_t)c->q);
    check(c->a % c->b == c->r, "i64 %", i, (uint64_t)(c->a % c->b), (uint64_t)c->r);
  }
  for (size_t i = 0; i < COUNT(div_cases_u64); i++) {
    const DivCase_u64* c = &div_cases_u64[i];
    check(c->a / c->b == c->q, "u64 /", i, c->a / c->b, c->q);
    check(c->a % c->b == c->r, "u64 %", i, c->a % c->b, c->r);
  }
}

/* Each helper called by name too: LLVM computes a remainder next to a quotient as
 * a - q * b, so the operators alone never reach the modulo helpers. */
static void test_division_helpers(void) {
#if defined(__hexagon__)
  for (size_t i = 0; i < COUNT(div_cases_i32); i++) {
    const DivCase_i32* c = &div_cases_i32[i];
    check(__hexagon_divsi3(c->a, c->b) == c->q, "__hexagon_divsi3", i, (uint32_t)__hexagon_divsi3(c->a, c->b),
          (uint32_t)c->q);
    check(__hexagon_modsi3(c->a, c->b) == c->r, "__hexagon_modsi3", i, (uint32_t)__hexagon_modsi3(c->a, c->b),
          (uint32_t)c->r);
  }
  for (size_t i = 0; i < COUNT(div_cases_u32); i++) {
    const DivCase_u32* c = &div_cases_u32[i];
    check(__hexagon_udivsi3(c->a, c->b) == c->q, "__hexagon_udivsi3", i, __hexagon_udivsi3(c->a, c->b), c->q);
    check(__hexagon_umodsi3(c->a, c->b) == c->r, "__hexagon_umodsi3", i, __hexagon_umodsi3(c->a, c->b), c->r);
  }
  for (size_t i = 0; i < COUNT(div_cases_i64); i++) {
    const DivCase_i64* c = &div_cases_i64[i];
    check(__hexagon_divdi3(c->a, c->b) == c->q, "__hexagon_divdi3", i, (uint64_t)__hexagon_divdi3(c->a, c->b),
          (uint64_t)c->q);
    check(__hexagon_moddi3(c->a, c->b) == c->r, "__hexagon_moddi3", i, (uint64_t)__hexagon_moddi3(c->a, c->b),
          (uint64_t)c->r);
  }
  for (size_t i = 0; i < COUNT(div_cases_u64); i++) {
    const DivCase_u64* c = &div_cases_u64[i];
    check(__hexagon_udivdi3(c->a, c->b) == c->q, "__hexagon_udivdi3", i, __hexagon_udivdi3(c->a, c->b), c->q);
    check(__hexagon_umoddi3(c->a, c->b) == c->r, "__hexagon_umoddi3", i, __hexagon_umoddi3(c->a, c->b), c->r);
  }
  /* What LLVM leaves undefined (division by zero, MIN / -1) is defined here. */
  volatile int32_t zero = 0, minus_one = -1, min32 = INT32_MIN;
  volatile int64_t min64 = INT64_MIN;
  check(__hexagon_divsi3(5, zero) == 0 && __hexagon_modsi3(5, zero) == 0, "x / 0 == 0", 0, 0, 0);
  check(__hexagon_udivdi3(5, (uint64_t)zero) == 0 && __hexagon_umoddi3(5, (uint64_t)zero) == 0, "u64 x / 0",
        0, 0, 0);
  check(__hexagon_divsi3(min32, minus_one) == INT32_MIN && __hexagon_modsi3(min32, minus_one) == 0,
        "MIN / -1", 0, 0, 0);
  check(__hexagon_divdi3(min64, minus_one) == INT64_MIN && __hexagon_moddi3(min64, minus_one) == 0,
        "MIN64 / -1", 0, 0, 0);
#endif
}

static void test_binary64(const char* what, const BinCase64* cases, size_t n, double (*op)(double, double)) {
  for (size_t i = 0; i < n; i++) {
    uint64_t got = dbits(op(dfrom(cases[i].a), dfrom(cases[i].b)));
    check(got == cases[i].r, what, i, got, cases[i].r);
  }
}

static double op_div(double a, double b) {
  return a / b;
}
static double op_mul(double a, double b) {
  return a * b;
}
static double op_add(double a, double b) {
  return a + b;
}
static double op_sub(double a, double b) {
  return a - b;
}

static void test_float(void) {
  test_binary64("f64 /", div_cases, COUNT(div_cases), op_div);
  test_binary64("f64 *", mul_cases, COUNT(mul_cases), op_mul);
  test_binary64("f64 +", add_cases, COUNT(add_cases), op_add);
  test_binary64("f64 -", sub_cases, COUNT(sub_cases), op_sub);
  test_binary64("fmod", fmod_cases, COUNT(fmod_cases), fmod);
  for (size_t i = 0; i < COUNT(sqrt_cases); i++) {
    uint64_t got = dbits(sqrt(dfrom(sqrt_cases[i].a)));
    check(got == sqrt_cases[i].r, "sqrt", i, got, sqrt_cases[i].r);
  }
  for (size_t i = 0; i < COUNT(floor_cases); i++) {
    uint64_t got = dbits(floor(dfrom(floor_cases[i].a)));
    check(got == floor_cases[i].r, "floor", i, got, floor_cases[i].r);
    float f = (float)dfrom(floor_cases[i].a);
    float want = (float)dfrom(floor_cases[i].r);
    /* floor of the float is the float of the floor unless rounding to float crossed an
     * integer; only compare where the float is exact. */
    if ((double)f == dfrom(floor_cases[i].a))
      check(fbits(floorf(f)) == fbits(want), "floorf", i, fbits(floorf(f)), fbits(want));
  }
  for (size_t i = 0; i < COUNT(divf_cases); i++) {
    float a = ffrom(divf_cases[i].a), b = ffrom(divf_cases[i].b);
#if defined(__hexagon__)
    check(fbits(__hexagon_divsf3(a, b)) == divf_cases[i].r, "__hexagon_divsf3", i,
          fbits(__hexagon_divsf3(a, b)), divf_cases[i].r);
#endif
    check(fbits(a / b) == divf_cases[i].r, "f32 /", i, fbits(a / b), divf_cases[i].r);
  }
  /* Special values, by hand. */
  volatile double zero = 0.0, one = 1.0, inf = dfrom(0x7FF0000000000000ull);
  check(is_nan64(dbits(zero / zero)), "0/0 is NaN", 0, dbits(zero / zero), 0);
  check(dbits(one / zero) == 0x7FF0000000000000ull, "1/0", 0, dbits(one / zero), 0x7FF0000000000000ull);
  check(dbits(-one / inf) == 0x8000000000000000ull, "-1/inf", 0, dbits(-one / inf), 0x8000000000000000ull);
  check(dbits(floor(-zero)) == 0x8000000000000000ull, "floor(-0)", 0, dbits(floor(-zero)),
        0x8000000000000000ull);
  check(dbits(floor(-0.25 * one)) == dbits(-1.0), "floor(-0.25)", 0, dbits(floor(-0.25 * one)), dbits(-1.0));
  check(dbits(sqrt(-zero)) == 0x8000000000000000ull, "sqrt(-0)", 0, dbits(sqrt(-zero)),
        0x8000000000000000ull);
  check(is_nan64(dbits(sqrt(-one))), "sqrt(-1)", 0, dbits(sqrt(-one)), 0);
  check(is_nan64(dbits(fmod(one, zero))), "fmod(1, 0)", 0, dbits(fmod(one, zero)), 0);
  check(dbits(1e308 * (one + one) * (one + one)) == 0x7FF0000000000000ull, "overflow", 0,
        dbits(1e308 * (one + one) * (one + one)), 0x7FF0000000000000ull);
}

static void test_half(void) {
  for (size_t i = 0; i < COUNT(half_cases); i++) {
    float f = ffrom(half_cases[i].f);
#if defined(__hexagon__)
    uint32_t h = __truncsfhf2(f) & 0xFFFFu;
    float back = __extendhfsf2(half_cases[i].h);
#else
    _Float16 x = (_Float16)f;
    uint16_t h;
    __builtin_memcpy(&h, &x, 2);
    _Float16 y;
    __builtin_memcpy(&y, &half_cases[i].h, 2);
    float back = (float)y;
#endif
    check(h == half_cases[i].h, "float -> half", i, h, half_cases[i].h);
    check(fbits(back) == half_cases[i].back, "half -> float", i, fbits(back), half_cases[i].back);
  }
#if defined(__FLT16_MAX__)
  /* Through the compiler's own conversions (LLVM's libcall convention, not ours). */
  volatile float big = 70000.0f, neg = -2.5f;
  _Float16 hb = (_Float16)big, hn = (_Float16)neg;
  check((float)hb == dfrom(0x7FF0000000000000ull), "70000 -> half inf", 0, fbits((float)hb), 0x7F800000u);
  check((float)hn == -2.5f, "-2.5 round trip", 0, fbits((float)hn), fbits(-2.5f));
  volatile double dv = 0.1;
  _Float16 hd = (_Float16)dv;
  uint16_t hdb;
  __builtin_memcpy(&hdb, &hd, 2);
  check(hdb == 0x2E66u, "0.1 (double) -> half", 0, hdb, 0x2E66u);
#endif
}

typedef void* (*CopyFn)(void*, const void*, size_t);
static volatile CopyFn memcpy_fn = memcpy, memmove_fn = memmove;

static uint8_t src_buf[1024], dst_buf[1024], want_buf[1024];

static void test_memory(void) {
  static const size_t sizes[] = {0, 1, 2, 7, 8, 9, 31, 32, 33, 127, 128, 129, 255, 256, 300, 385, 511};
  static const size_t offsets[] = {0, 1, 3, 8, 64, 127, 128};
  size_t case_index = 0;
  for (size_t si = 0; si < COUNT(sizes); si++) {
    for (size_t di = 0; di < COUNT(offsets); di++) {
      for (size_t so = 0; so < COUNT(offsets); so += 2, case_index++) {
        size_t n = sizes[si], d = offsets[di], s = offsets[so];
        for (size_t i = 0; i < sizeof src_buf; i++) src_buf[i] = (uint8_t)(i * 7 + 3);
        for (size_t i = 0; i < sizeof dst_buf; i++) dst_buf[i] = want_buf[i] = (uint8_t)(i ^ 0x5A);
        for (size_t i = 0; i < n; i++) want_buf[d + i] = src_buf[s + i];
        memcpy_fn(dst_buf + d, src_buf + s, n);
        int same = 1;
        for (size_t i = 0; i < sizeof dst_buf; i++) same &= dst_buf[i] == want_buf[i];
        check(same, "memcpy", case_index, n, d);

        /* memmove within one buffer, both directions. */
        for (size_t i = 0; i < sizeof dst_buf; i++) dst_buf[i] = want_buf[i] = (uint8_t)(i * 13 + 1);
        for (size_t i = 0; i < n; i++) want_buf[d + i] = (uint8_t)((s + i) * 13 + 1);
        memmove_fn(dst_buf + d, dst_buf + s, n);
        same = 1;
        for (size_t i = 0; i < sizeof dst_buf; i++) same &= dst_buf[i] == want_buf[i];
        check(same, "memmove", case_index, n, d * 1000 + s);

        for (size_t i = 0; i < sizeof dst_buf; i++) dst_buf[i] = want_buf[i] = 0xEE;
        for (size_t i = 0; i < n; i++) want_buf[d + i] = (uint8_t)s;
        memset(dst_buf + d, (int)(s | 0x100), n); /* only the low byte counts */
        same = 1;
        for (size_t i = 0; i < sizeof dst_buf; i++) same &= dst_buf[i] == want_buf[i];
        check(same, "memset", case_index, n, d);
      }
    }
  }
  /* A large aligned struct copy: LLVM calls __hexagon_memcpy_likely_aligned_min32bytes_mult8bytes. */
  struct Big {
    uint64_t words[40];
  };
  static struct Big a, b;
  for (int i = 0; i < 40; i++) a.words[i] = 0x0101010101010101ull * (uint64_t)i;
  b = a;
  int same = 1;
  for (int i = 0; i < 40; i++) same &= b.words[i] == a.words[i];
  check(same, "struct copy", 0, 0, 0);
}

static dspc_context ctx;

static void test_pool(void) {
  dspc_context_init(&ctx);
  uint32_t capacity = dspc_vtcm_capacity(&ctx);
  check(capacity == DSPC_VTCM_DEFAULT_CAPACITY, "default capacity", 0, capacity, DSPC_VTCM_DEFAULT_CAPACITY);
  uint8_t* a = (uint8_t*)HexagonBackendAllocateVTCM(2048, 0, &ctx);
  uint8_t* b = (uint8_t*)HexagonBackendAllocateVTCM(100, 128, &ctx);
  uint8_t* c = (uint8_t*)HexagonBackendAllocateVTCM(5000, 4096, &ctx);
  check(a && b && c, "three allocations", 0, 0, 0);
  if (!a || !b || !c) return;
  check(((uintptr_t)a & (DSPC_VTCM_DEFAULT_ALIGN - 1)) == 0, "default alignment", 0, (uintptr_t)a,
        DSPC_VTCM_DEFAULT_ALIGN);
  check(((uintptr_t)b & 127) == 0, "alignment 128", 0, (uintptr_t)b, 0);
  check(((uintptr_t)c & 4095) == 0, "alignment 4096", 0, (uintptr_t)c, 0);
  for (int i = 0; i < 2048; i++) a[i] = 1;
  for (int i = 0; i < 100; i++) b[i] = 2;
  for (int i = 0; i < 5000; i++) c[i] = 3;
  check(a[2047] == 1 && b[0] == 2 && b[99] == 2 && c[0] == 3, "blocks are disjoint", 0, 0, 0);
  check(dspc_vtcm_bytes_in_use(&ctx) == 7148, "bytes in use", 0, dspc_vtcm_bytes_in_use(&ctx), 7148);
  check(HexagonBackendAllocateVTCM(capacity, 0, &ctx) == NULL, "exhaustion", 0, 0, 0);
  check_str(dspc_get_last_error(&ctx), "VTCM allocation of ", "exhaustion message");
  check(HexagonBackendFreeVTCM(b + 1, &ctx) != 0, "bad free", 0, 0, 0);
  check_str(dspc_get_last_error(&ctx), "VTCM free of 0x", "bad free message");
  check(HexagonBackendFreeVTCM(b, &ctx) == 0 && HexagonBackendFreeVTCM(a, &ctx) == 0 && HexagonBackendFreeVTCM(c, &ctx) == 0,
        "frees", 0, 0, 0);
  check(dspc_vtcm_num_blocks(&ctx) == 1 && dspc_vtcm_bytes_in_use(&ctx) == 0, "coalesced to one block", 0,
        dspc_vtcm_num_blocks(&ctx), 1);
  void* whole = HexagonBackendAllocateVTCM(capacity, 0, &ctx);
  check(whole != NULL, "whole capacity after coalescing", 0, 0, 0);
  HexagonBackendFreeVTCM(whole, &ctx);
  check(dspc_vtcm_set_capacity(4096, &ctx) == 0, "capacity override", 0, 0, 0);
  check(HexagonBackendAllocateVTCM(4097, 0, &ctx) == NULL, "override limits allocations", 0, 0, 0);
  check_str(dspc_get_last_error(&ctx), "VTCM allocation of 4097 bytes failed: only 4096 of 4096 bytes free",
            "override message");
  dspc_vtcm_set_capacity(DSPC_VTCM_DEFAULT_CAPACITY, &ctx);

  /* A second context is a second pool: exhausting one leaves the other working. */
  dspc_context other;
  dspc_context_init(&other);
  check(dspc_vtcm_set_capacity(8192, &other) == 0, "second context's capacity", 0, 0, 0);
  void* all = HexagonBackendAllocateVTCM(8192, 0, &other);
  check(all != NULL && HexagonBackendAllocateVTCM(1, 0, &other) == NULL, "second context exhausted", 0, 0, 0);
  void* mine = HexagonBackendAllocateVTCM(8192, 0, &ctx);
  check(mine != NULL && dspc_vtcm_bytes_in_use(&ctx) == 8192, "first context unaffected", 0, 0, 0);
  check(HexagonBackendFreeVTCM(mine, &other) != 0, "a block is freed only by its own pool", 0, 0, 0);
  HexagonBackendFreeVTCM(mine, &ctx);
  dspc_context_release(&other);
  check(dspc_vtcm_bytes_in_use(&other) == 0, "release returns the blocks", 0, 0, 0);
}

static void test_workspace_and_errors(void) {
  uint8_t* w = (uint8_t*)DspcWorkspaceAlloc(1 << 20, 4096, &ctx);
  check(w != NULL && ((uintptr_t)w & 4095) == 0, "workspace alloc", 0, (uintptr_t)w, 0);
  if (w) {
    int zero = 1;
    for (int i = 0; i < (1 << 20); i += 4093) zero &= w[i] == 0;
    check(zero, "workspace is zeroed", 0, 0, 0);
    w[(1 << 20) - 1] = 9;
    check(DspcWorkspaceFree(w, &ctx) == 0, "workspace free", 0, 0, 0);
    check(DspcWorkspaceFree(w, &ctx) != 0, "workspace double free", 0, 0, 0);
  }
  dspc_set_last_error("first", &ctx);
  check_str(dspc_get_last_error(&ctx), "first", "last error");
  static char long_message[1000];
  for (int i = 0; i < 999; i++) long_message[i] = 'a' + i % 26;
  dspc_set_last_error(long_message, &ctx);
  size_t n = __builtin_strlen(dspc_get_last_error(&ctx));
  check(n == 511, "last error truncates", 0, n, 511);
}

int dspc_main(int argc, char** argv) {
  test_division();
  test_division_helpers();
  test_float();
  test_half();
  test_memory();
  test_pool();
  test_workspace_and_errors();
  char buf[64];
  dspc_text t;
  dspc_text_init(&t, buf, sizeof buf);
  dspc_text_u64(&t, (uint64_t)passed);
  dspc_text_str(&t, " passed, ");
  dspc_text_u64(&t, (uint64_t)failed);
  dspc_text_str(&t, " failed\n");
  print(buf);
  return failed ? 1 : 0;
}
