/* bench_call for dspc: the kernel is int32_t NAME(buffers..., dspc_context* ctx) from
 * `dspc NAME.dsp --emit=obj` (prototype as --emit=header gives it, with untyped pointers: every
 * parameter but the last is a buffer). The context is runtime-support's default one.
 * run.py passes the kernel's name as -DBENCH_NAME=NAME; the number of buffers is the
 * harness's bench_num_params. */
#include "bench.h"

typedef struct dspc_context dspc_context;
dspc_context* dspc_context_default(void); /* runtime-support (dspc_runtime.h) */

#ifndef BENCH_NAME
#error "compile with -DBENCH_NAME=<kernel>"
#endif
void BENCH_NAME(void); /* its real type is one of the casts below */

typedef int32_t (*fn2)(void*, void*, dspc_context*);
typedef int32_t (*fn3)(void*, void*, void*, dspc_context*);
typedef int32_t (*fn4)(void*, void*, void*, void*, dspc_context*);
typedef int32_t (*fn5)(void*, void*, void*, void*, void*, dspc_context*);
typedef int32_t (*fn6)(void*, void*, void*, void*, void*, void*, dspc_context*);

int bench_call(void** b) {
  dspc_context* ctx = dspc_context_default();
  switch (bench_num_params) {
    case 2: return ((fn2)BENCH_NAME)(b[0], b[1], ctx);
    case 3: return ((fn3)BENCH_NAME)(b[0], b[1], b[2], ctx);
    case 4: return ((fn4)BENCH_NAME)(b[0], b[1], b[2], b[3], ctx);
    case 5: return ((fn5)BENCH_NAME)(b[0], b[1], b[2], b[3], b[4], ctx);
    case 6: return ((fn6)BENCH_NAME)(b[0], b[1], b[2], b[3], b[4], b[5], ctx);
  }
  bench_puts("error: impl_dspc.c has no call for this many parameters\n");
  return -1;
}
