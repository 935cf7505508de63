/* The benchmark programs' shared declarations (bench/README.md). Freestanding C for
 * Hexagon: the program links only libdspc_rt.a, whose _start calls dspc_main here. */
#ifndef DSPC_BENCH_H
#define DSPC_BENCH_H

#include <stddef.h>
#include <stdint.h>

enum { W = 1024, H = 256, DM = 64, DN = 128, DK = 256 };

/* One buffer of the kernel's signature, in signature order. dims are row-major extents. */
typedef struct {
  const char* name;
  uint8_t code; /* 0 int, 1 uint (Halide's type codes) */
  uint8_t bits;
  uint8_t is_output;
  uint8_t ndim;
  int32_t dims[3];
} bench_param;

/* Defined by harness.c for the kernel selected with -DBENCH_KERNEL=<name>. */
extern const bench_param bench_params[];
extern const int bench_num_params;

/* At most this many parameters (inputs and outputs). */
enum { BENCH_MAX_PARAMS = 8 };

/* Defined by one of impl_dspc.c, impl_halide.c, impl_c.c: calls the implementation under
 * test on the buffers (bufs[i] is parameter i, 128-byte aligned). Returns its status. */
int bench_call(void** bufs);

/* Output helpers (harness.c). */
void bench_puts(const char* s);
void bench_putu(uint64_t v);
void bench_puti(int64_t v);

#endif
