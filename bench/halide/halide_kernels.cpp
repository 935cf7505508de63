// The packet harness's Halide generator (bench/run.py builds it with g++ against libHalide14).
//
// Usage: halide_kernels NAME OUT.o   -> object defining halide_NAME(halide_buffer_t*...)
#include <cstdio>
#include <string>

#include "halide_pipelines.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s NAME OUT.o\n", argv[0]);
    return 2;
  }
  if (!bench_halide::compile_kernel(argv[1], argv[2])) {
    std::fprintf(stderr, "unknown kernel '%s'\n", argv[1]);
    return 2;
  }
  return 0;
}
