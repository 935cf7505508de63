/* A C program that calls two dspc kernels (kernels.dsp) and prints a result:
 *
 *   dspc main.c kernels.dsp -o app.elf && qemu-hexagon -cpu v67 app.elf
 *   dspc run main.c kernels.dsp
 *
 * dspc compiles this file with Clang's libraries (in-process, no clang binary), compiles the
 * kernels, puts their header kernels.h on the include path, and links everything with
 * runtime-support. The program is freestanding: no C library, so it prints through
 * runtime-support's write(2) wrapper.
 *
 * Every kernel takes a device context (dspc_context*) as its final argument: the VTCM pool,
 * workspace and last error it uses. This program makes one of its own; a single-threaded
 * program may also pass dspc_context_default(). */
#include <stddef.h>
#include <stdint.h>

#include "dspc_runtime.h"
#include "kernels.h"

/* runtime-support's write(2) (runtime-support/device/platform.h). The file also compiles as C++. */
#ifdef __cplusplus
extern "C"
#endif
long dspc_platform_write(int fd, const void* buf, size_t n);

/* Kernel buffers: dense, row-major, 128-byte aligned. */
static int32_t X[8][32] __attribute__((aligned(128)));
static int32_t Y[8][32] __attribute__((aligned(128)));
static int32_t Z[8][32] __attribute__((aligned(128)));
static int32_t S[8] __attribute__((aligned(128)));

static void print(const char* s) {
  size_t n = 0;
  while (s[n]) n++;
  dspc_platform_write(1, s, n);
}

static void print_int(int64_t v) {
  char buf[24];
  int i = sizeof buf;
  int negative = v < 0;
  uint64_t u = negative ? -(uint64_t)v : (uint64_t)v;
  buf[--i] = '\0';
  do {
    buf[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (negative) buf[--i] = '-';
  print(buf + i);
}

static dspc_context ctx;

int main(void) {
  dspc_context_init(&ctx);
  for (int m = 0; m < 8; m++)
    for (int n = 0; n < 32; n++) {
      X[m][n] = m + n;
      Y[m][n] = m - n;
    }
  /* Z = 3X + Y = 4m + 2n; each row sums to 128m + 992. */
  if (axpy(&X[0][0], &Y[0][0], &Z[0][0], &ctx) != 0 || row_sums(&Z[0][0], S, &ctx) != 0) {
    print("a kernel failed: ");
    print(dspc_get_last_error(&ctx));
    print("\n");
    return 1;
  }
  int64_t total = 0;
  print("row sums:");
  for (int m = 0; m < 8; m++) {
    print(" ");
    print_int(S[m]);
    total += S[m];
    if (S[m] != 128 * m + 992) {
      print("\nwrong sum in row ");
      print_int(m);
      print("\n");
      return 1;
    }
  }
  print("\ntotal: ");
  print_int(total);
  print("\n");
  return 0;
}
