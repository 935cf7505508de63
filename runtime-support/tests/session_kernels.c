/* A hand-written stand-in for a `dspc --emit=so` module, for the session tests: a __dspc_funcs
 * table whose entries have checked packed entries (dspc_runtime.h), and kernels that succeed,
 * fail, crash, trap, never return or use VTCM. Built as a PIC shared object for Hexagon (loaded
 * by the device server's ELF loader) and for the host (dlopen'ed in-process).
 * KERNEL_VERSION (1 or 2) is what `version` writes, for the reload test. */
#include <stdint.h>

#include "dspc_runtime.h"

#ifndef KERNEL_VERSION
#define KERNEL_VERSION 1
#endif
#ifdef __hexagon__
#define ALIGNMENT 128u
#else
#define ALIGNMENT 64u
#endif

void* memcpy(void* dst, const void* src, __SIZE_TYPE__ n);

/* ---- messages without libc ---------------------------------------------------------------- */
typedef struct {
  char buf[256];
  unsigned len;
} Text;
static void put_s(Text* t, const char* s) {
  while (*s && t->len + 1 < sizeof t->buf) t->buf[t->len++] = *s++;
  t->buf[t->len] = 0;
}
static void put_i(Text* t, int64_t v) {
  char d[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;
  if (v < 0) put_s(t, "-");
  do d[n++] = (char)('0' + u % 10);
  while (u /= 10);
  while (n) {
    char c[2] = {d[--n], 0};
    put_s(t, c);
  }
}
static void put_type(Text* t, uint8_t code, uint8_t bits, int32_t ndim, const int64_t* shape) {
  put_s(t, code == DSPC_TYPE_INT     ? "i"
           : code == DSPC_TYPE_UINT  ? "u"
           : code == DSPC_TYPE_FLOAT ? "f"
                                     : "bool");
  if (code != DSPC_TYPE_BOOL) put_i(t, bits);
  put_s(t, "[");
  for (int32_t d = 0; d < ndim; d++) {
    if (d) put_s(t, ", ");
    put_i(t, shape[d]);
  }
  put_s(t, "]");
}

/* What make-packed-api generates, as one generic routine: count, then each argument's null
 * and alignment, dtype, rank and extents, before any data is touched. */
static int32_t check(const char* fn, const dspc_param_desc* p, uint32_t n, const dspc_arg* a, int32_t num,
                     dspc_context* ctx) {
  Text t = {{0}, 0};
  put_s(&t, fn);
  if (num != (int32_t)n) {
    put_s(&t, ": expected ");
    put_i(&t, n);
    put_s(&t, " arguments, got ");
    put_i(&t, num);
    dspc_set_last_error(t.buf, ctx);
    return DSPC_ERR_BAD_ARGUMENT;
  }
  for (uint32_t i = 0; i < n; i++) {
    const char* what = 0;
    int same = a[i].type_code == p[i].type_code && a[i].bits == p[i].bits && a[i].ndim == p[i].ndim;
    for (int32_t d = 0; same && d < a[i].ndim; d++) same = a[i].shape[d] == p[i].shape[d];
    if (!a[i].data)
      what = "a non-null data pointer";
    else if ((uintptr_t)a[i].data % ALIGNMENT)
      what = "data aligned to the target's allocation alignment";
    if (!what && same) continue;
    put_s(&t, ": argument ");
    put_i(&t, i);
    put_s(&t, " (");
    put_s(&t, p[i].name);
    put_s(&t, "): expected ");
    if (what) {
      put_s(&t, what);
    } else {
      put_s(&t, "shape ");
      put_type(&t, p[i].type_code, p[i].bits, p[i].ndim, p[i].shape);
      put_s(&t, ", got ");
      put_type(&t, a[i].type_code, a[i].bits, a[i].ndim, a[i].shape);
    }
    dspc_set_last_error(t.buf, ctx);
    return DSPC_ERR_BAD_ARGUMENT;
  }
  return 0;
}

/* ---- kernels -------------------------------------------------------------------------------- */
enum { N = 1024, BIG = 64 << 20 };

static int32_t empty(void** args, dspc_context* ctx) {
  return 0;
}
static int32_t add_i32(void** args, dspc_context* ctx) {
  const int32_t* a = args[0];
  const int32_t* b = args[1];
  int32_t* c = args[2];
  for (int i = 0; i < N; i++) c[i] = a[i] + b[i];
  return 0;
}
static int32_t copy_big(void** args, dspc_context* ctx) {
  memcpy(args[1], args[0], BIG); /* an imported symbol: a JMP_SLOT relocation */
  return 0;
}
/* X[0] = the version, X[1] = where this code is (low 32 bits), for the reload test. */
static int32_t version(void** args, dspc_context* ctx);
static int32_t version(void** args, dspc_context* ctx) {
  ((int32_t*)args[0])[0] = KERNEL_VERSION;
  ((int32_t*)args[0])[1] = (int32_t)(uintptr_t)&version;
  return 0;
}
static int32_t crash_segv(void** args, dspc_context* ctx) {
  *(volatile int32_t*)(uintptr_t)16 = ((int32_t*)args[0])[0];
  return 0;
}
static int32_t crash_trap(void** args, dspc_context* ctx) {
  __builtin_trap();
}
static int32_t spin_forever(void** args, dspc_context* ctx) {
  volatile int32_t* x = args[0];
  while (x[0] != 0x12345678) {
  }
  return 0;
}
/* C = A + 1 through a VTCM buffer (lowered alloc_vtcm): allocation failure returns
 * DSPC_ERR_KERNEL with the pool's message, as a compiled kernel does. */
static int32_t stage_vtcm(void** args, dspc_context* ctx) {
  const int8_t* a = args[0];
  int8_t* c = args[1];
  int8_t* buf = HexagonBackendAllocateVTCM(2048, 2048, ctx);
  if (!buf) return DSPC_ERR_KERNEL;
  for (int i = 0; i < 2048; i++) buf[i] = a[i];
  for (int i = 0; i < 2048; i++) c[i] = (int8_t)(buf[i] + 1);
  return HexagonBackendFreeVTCM(buf, ctx) ? DSPC_ERR_KERNEL : 0;
}

static const int64_t shape_n[] = {N};
static const int64_t shape_1[] = {1};
static const int64_t shape_2[] = {2};
static const int64_t shape_2048[] = {2048};
static const int64_t shape_big[] = {BIG};
static const dspc_param_desc add_params[] = {
    {"A", DSPC_TYPE_INT, 32, 0, 1, shape_n},
    {"B", DSPC_TYPE_INT, 32, 0, 1, shape_n},
    {"C", DSPC_TYPE_INT, 32, 1, 1, shape_n},
};
static const dspc_param_desc big_params[] = {
    {"A", DSPC_TYPE_UINT, 8, 0, 1, shape_big},
    {"C", DSPC_TYPE_UINT, 8, 1, 1, shape_big},
};
static const dspc_param_desc one_params[] = {{"X", DSPC_TYPE_INT, 32, 1, 1, shape_1}};
static const dspc_param_desc version_params[] = {{"X", DSPC_TYPE_INT, 32, 1, 1, shape_2}};
static const dspc_param_desc vtcm_params[] = {
    {"A", DSPC_TYPE_INT, 8, 0, 1, shape_2048},
    {"C", DSPC_TYPE_INT, 8, 1, 1, shape_2048},
};

/* The checked entries, __dspc_call_<name>. */
#define CHECKED(fn, params, count)                                                     \
  static int32_t __dspc_call_##fn(const dspc_arg* a, int32_t num, dspc_context* ctx) { \
    int32_t s = check(#fn, params, count, a, num, ctx);                                \
    if (s) return s;                                                                   \
    void* data[4] = {0};                                                               \
    for (int32_t i = 0; i < num && i < 4; i++) data[i] = a[i].data;                    \
    return fn(data, ctx);                                                              \
  }
CHECKED(empty, 0, 0)
CHECKED(add_i32, add_params, 3)
CHECKED(copy_big, big_params, 2)
CHECKED(version, version_params, 1)
CHECKED(crash_segv, one_params, 1)
CHECKED(crash_trap, 0, 0)
CHECKED(spin_forever, one_params, 1)
CHECKED(stage_vtcm, vtcm_params, 2)

/* A function of 65 parameters, one more than a call through a session passes: refused at
 * lookup on both targets. */
#define P5(n) {n, DSPC_TYPE_INT, 32, 0, 1, shape_1}, {n, DSPC_TYPE_INT, 32, 0, 1, shape_1}, \
    {n, DSPC_TYPE_INT, 32, 0, 1, shape_1}, {n, DSPC_TYPE_INT, 32, 0, 1, shape_1}, {n, DSPC_TYPE_INT, 32, 0, 1, shape_1}
static const dspc_param_desc many_params[] = {P5("X"), P5("X"), P5("X"), P5("X"), P5("X"), P5("X"), P5("X"),
                                              P5("X"), P5("X"), P5("X"), P5("X"), P5("X"), P5("X")};
_Static_assert(sizeof many_params / sizeof many_params[0] == 65, "65 parameters");

#define ENTRY(fn, params, count) \
  { #fn, fn, count, params, __dspc_call_##fn }
const dspc_func_desc __dspc_funcs[] = {
    ENTRY(empty, 0, 0),
    ENTRY(add_i32, add_params, 3),
    ENTRY(copy_big, big_params, 2),
    ENTRY(version, version_params, 1),
    ENTRY(crash_segv, one_params, 1),
    ENTRY(crash_trap, 0, 0),
    ENTRY(spin_forever, one_params, 1),
    ENTRY(stage_vtcm, vtcm_params, 2),
    {"many_params", empty, 65, many_params, 0},
};
const uint32_t __dspc_num_funcs = sizeof __dspc_funcs / sizeof __dspc_funcs[0];

#ifdef SESSION_KERNELS_UNRESOLVED
/* A module that cannot load: it calls a function no runtime defines. */
int32_t dspc_no_such_runtime_function(void);
int32_t use_missing(void) {
  return dspc_no_such_runtime_function();
}
#endif
