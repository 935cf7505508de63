/* bench_call for the plain C kernels in bench/c/: void c_NAME(buffers...), the buffers in the
 * harness's parameter order. run.py passes the kernel's name as -DBENCH_NAME=NAME. */
#include "bench.h"

#ifndef BENCH_NAME
#error "compile with -DBENCH_NAME=<kernel>"
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FN CAT(c_, BENCH_NAME)

#if defined(BENCH_KERNEL_threshold_u8)
/* The threshold is a scalar argument: the value of the one-element tensor T. */
void c_threshold_u8(void*, uint8_t, void*);
int bench_call(void** b) {
  c_threshold_u8(b[0], *(const uint8_t*)b[1], b[2]);
  return 0;
}
#else
void FN(void); /* its real type is one of the casts below */
typedef void (*fn2)(void*, void*);
typedef void (*fn3)(void*, void*, void*);
typedef void (*fn4)(void*, void*, void*, void*);
typedef void (*fn5)(void*, void*, void*, void*, void*);
typedef void (*fn6)(void*, void*, void*, void*, void*, void*);
int bench_call(void** b) {
  switch (bench_num_params) {
    case 2: ((fn2)FN)(b[0], b[1]); return 0;
    case 3: ((fn3)FN)(b[0], b[1], b[2]); return 0;
    case 4: ((fn4)FN)(b[0], b[1], b[2], b[3]); return 0;
    case 5: ((fn5)FN)(b[0], b[1], b[2], b[3], b[4]); return 0;
    case 6: ((fn6)FN)(b[0], b[1], b[2], b[3], b[4], b[5]); return 0;
  }
  bench_puts("error: impl_c.c has no call for this many parameters\n");
  return -1;
}
#endif
