/* A hand-written stand-in for dspc's generated code: a __dspc_funcs table and kernels, linked
 * with libdspc_rt.a (whose runner is main) to test the runner end to end. With
 * DSPC_FAKE_SINGLE_FUNCTION the table holds only add_i32, so no --func is needed. */
#include <stdint.h>

#include "dspc_runtime.h"

/* add_i32(A: i32[2, 3], B: i32[2, 3]) -> (C: i32[2, 3]) */
static int32_t add_i32(void** args, dspc_context* ctx) {
  const int32_t* a = (const int32_t*)args[0];
  const int32_t* b = (const int32_t*)args[1];
  int32_t* c = (int32_t*)args[2];
  for (int i = 0; i < 6; i++) c[i] = a[i] + b[i];
  return 0;
}

/* always_fails(X: f32[4]) -> (Y: f32[4]): sets the last error and returns -1. */
__attribute__((unused)) static int32_t always_fails(void** args, dspc_context* ctx) {
  dspc_set_last_error("fake kernel failure: X[0] was not looked at", ctx);
  return -1;
}

/* stage_in_vtcm(A: i8[2048]) -> (C: i8[2048]): C = A + 1 through a VTCM buffer, like the
 * lowered `alloc_vtcm` example: allocation failure returns -1 with the pool's message. */
__attribute__((unused)) static int32_t stage_in_vtcm(void** args, dspc_context* ctx) {
  const int8_t* a = (const int8_t*)args[0];
  int8_t* c = (int8_t*)args[1];
  int8_t* buf = (int8_t*)HexagonBackendAllocateVTCM(2048, 2048, ctx);
  if (!buf) return -1;
  for (int i = 0; i < 2048; i++) buf[i] = a[i];
  for (int i = 0; i < 2048; i++) c[i] = (int8_t)(buf[i] + 1);
  return HexagonBackendFreeVTCM(buf, ctx);
}

/* mixed(U: u8[5], D: f64[5], S: i64[], M: bool[2, 2]) -> (R: f64[5], Q: i64[], N: bool[2, 2]):
 * R = U * D / 4, Q = S / 7 (C division), N = !M. Exercises every size class, a 0-d
 * parameter, and (on Hexagon) the double and 64-bit division helpers. */
__attribute__((unused)) static int32_t mixed(void** args, dspc_context* ctx) {
  const uint8_t* u = (const uint8_t*)args[0];
  const double* d = (const double*)args[1];
  const int64_t* s = (const int64_t*)args[2];
  const uint8_t* m = (const uint8_t*)args[3];
  double* r = (double*)args[4];
  int64_t* q = (int64_t*)args[5];
  uint8_t* n = (uint8_t*)args[6];
  for (int i = 0; i < 5; i++) r[i] = (double)u[i] * d[i] / 4.0;
  q[0] = s[0] / 7;
  for (int i = 0; i < 4; i++) n[i] = !m[i];
  return 0;
}

static const int64_t shape_2x3[] = {2, 3};
static const int64_t shape_4[] = {4};
static const int64_t shape_2048[] = {2048};
static const int64_t shape_5[] = {5};
static const int64_t shape_2x2[] = {2, 2};

static const dspc_param_desc add_params[] = {
    {"A", DSPC_TYPE_INT, 32, 0, 2, shape_2x3},
    {"B", DSPC_TYPE_INT, 32, 0, 2, shape_2x3},
    {"C", DSPC_TYPE_INT, 32, 1, 2, shape_2x3},
};
__attribute__((unused)) static const dspc_param_desc fail_params[] = {
    {"X", DSPC_TYPE_FLOAT, 32, 0, 1, shape_4},
    {"Y", DSPC_TYPE_FLOAT, 32, 1, 1, shape_4},
};
__attribute__((unused)) static const dspc_param_desc vtcm_params[] = {
    {"A", DSPC_TYPE_INT, 8, 0, 1, shape_2048},
    {"C", DSPC_TYPE_INT, 8, 1, 1, shape_2048},
};
__attribute__((unused)) static const dspc_param_desc mixed_params[] = {
    {"U", DSPC_TYPE_UINT, 8, 0, 1, shape_5},   {"D", DSPC_TYPE_FLOAT, 64, 0, 1, shape_5},
    {"S", DSPC_TYPE_INT, 64, 0, 0, 0},         {"M", DSPC_TYPE_BOOL, 8, 0, 2, shape_2x2},
    {"R", DSPC_TYPE_FLOAT, 64, 1, 1, shape_5}, {"Q", DSPC_TYPE_INT, 64, 1, 0, 0},
    {"N", DSPC_TYPE_BOOL, 8, 1, 2, shape_2x2},
};

const dspc_func_desc __dspc_funcs[] = {
    {"add_i32", add_i32, 3, add_params},
#if !DSPC_FAKE_SINGLE_FUNCTION
    {"always_fails", always_fails, 2, fail_params},
    {"stage_in_vtcm", stage_in_vtcm, 2, vtcm_params},
    {"mixed", mixed, 7, mixed_params},
#endif
};
const uint32_t __dspc_num_funcs = sizeof __dspc_funcs / sizeof __dspc_funcs[0];
