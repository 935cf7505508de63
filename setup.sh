#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a working dspc:
#   bash setup.sh demo   install what is missing, build, compile and run the seed example
#   bash setup.sh test   install what is missing, build, run the default tier of tests (ctest
#                        -LE full: every layer and feature, a sample of each long family)
#   bash setup.sh test-all  ... every test once: both tiers (the `full` tier adds difftest,
#                        every end-to-end program, install, benchmarks' smoke tests), those
#                        labelled `sanitize` in the sanitizer tree (test-sanitize), then
#                        test-fuzz; CI (.ci/run) runs this
#   bash setup.sh build  install what is missing and build
#   bash setup.sh install PREFIX   ... and install dspc into PREFIX (bin/dspc, lib/, include/,
#                        lib/cmake/dspc for find_package(dspc)); the prefix may move later
#   bash setup.sh deb    ... and build the Debian package build/dspc_<version>_amd64.deb
#   bash setup.sh test-sanitize  build into build-sanitize/ with ASan+UBSan (clang-19) and run
#                        the tests labelled `sanitize` (unit, golden, bad input, host end-to-end)
#   bash setup.sh test-fuzz  build the libFuzzer targets in build-sanitize/ and run each briefly
# Packages already installed are skipped; apt-get runs only when something is missing.
set -euo pipefail
# PREFIX is taken relative to where the command was typed, before the cd below.
prefix=""
if [ "${1:-}" = install ]; then
  [ -n "${2:-}" ] || { echo "usage: bash setup.sh install PREFIX" >&2; exit 2; }
  prefix=$(realpath -m -- "$2")
fi
cd "$(dirname "$0")"

mode=${1:-build}
build_dir=${DSPC_BUILD_DIR:-build}
packages=(ca-certificates g++ cmake ninja-build python3 git
          make                # CMake's default generator, Unix Makefiles (the build works with both)
          clang-19 lld-19 llvm-19-dev liblld-19-dev
          libclang-19-dev     # Clang's headers: dspc compiles C/C++ sources with libclang-cpp in-process
          llvm-19-tools       # FileCheck, not and lit.py: the golden tests (llvm-19-dev pulls it in too)
          qemu-user nlohmann-json3-dev libgtest-dev
          libseccomp-dev      # the device server's system-call filter (runtime-support/host/Sandbox.cpp)
          libbenchmark-dev    # Google Benchmark: bench/'s compile-time benchmark
          file dpkg-dev       # cpack -G DEB: finds the binaries and their library dependencies
          libhalide14-0-dev   # Halide 14: bench/'s peer only, never linked into dspc
          libclang-rt-19-dev  # libFuzzer and the sanitizer runtimes: test-sanitize, test-fuzz
          gcc-multilib g++-multilib  # -m32: the fuzz target elf32 (the ELF loader with a 32-bit
                              # size_t); libFuzzer links the 32-bit libstdc++ (lib32stdc++-12-dev)
          libonnx-dev libprotobuf-dev protobuf-compiler  # the ONNX frontend (compiler/onnx/)
          libonnx-testdata python3-onnx python3-numpy)   # its tests: ONNX's node tests, models built in Python

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The trees are built with clang-19 (which dspc needs anyway) unless CC/CXX name another
# compiler: it compiles the tree in less time than GCC 12, and its precompiled headers load
# lazily, so DSPC_PCH is on (CMakeLists.txt). A plain `cmake -S . -B build` uses the system's
# compiler, GCC; tests/install's Makefiles tree builds so.
export CC=${CC:-clang-19} CXX=${CXX:-clang++-19}

# configure DIR [-DVAR=VALUE...]: configure DIR with Ninja the first time, or again when the
# cache holds another value of one of the variables (e.g. bench/ on or off).
configure() {
  local dir=$1 arg
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
  else
    # CMake keeps the compiler a tree was first configured with and ignores CC/CXX after that.
    local cached
    cached=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt" 2>/dev/null || true)
    if [ -n "$cached" ] && [ "$(realpath -e "$cached" 2>/dev/null)" != "$(realpath -e "$(command -v "$CXX")" 2>/dev/null)" ]; then
      echo "setup: note: $dir was configured with $cached, not $CXX; it keeps that compiler (remove $dir to change it)" >&2
    fi
    for arg in "$@"; do
      arg=${arg#-D}
      if ! grep -q "^${arg%%=*}:[A-Z]*=${arg#*=}\$" "$dir/CMakeCache.txt"; then
        cmake "$dir" "$@" >/dev/null
        break
      fi
    done
  fi
}

# build DIR [-DVAR=VALUE...]: configure DIR, then build all of it.
build() {
  configure "$@"
  cmake --build "$1" -j 2
}

# sanitize_tree DIR [TARGET]: the clang-19 tree with ASan+UBSan and the libFuzzer targets
# (test-sanitize and test-fuzz share it), built whole or only TARGET. Without precompiled
# headers: that build shows that every file includes what it uses.
sanitize_tree() {
  CC=clang-19 CXX=clang++-19 configure "$1" -DDSPC_SANITIZE=ON -DDSPC_FUZZ=ON -DDSPC_BENCH=OFF -DDSPC_PCH=OFF
  cmake --build "$1" -j 2 ${2:+--target "$2"}
}

case "$mode" in
  test) build "$build_dir" -DDSPC_BENCH=OFF -DDSPC_GTEST=ON ;;  # the default tier does not run bench/'s tests
  # The GoogleTest suites run in the sanitizer tree only (test-sanitize), so build/ leaves them out.
  test-all) build "$build_dir" -DDSPC_BENCH=ON -DDSPC_GTEST=OFF ;;
  test-sanitize) ;;
  *) build "$build_dir" ;;
esac

case "$mode" in
  build) ;;
  demo)
    echo "== lowering examples/alloc_vtcm.dsp, pass by pass =="
    "$build_dir/dspc" examples/alloc_vtcm.dsp --target=hexagon-v68 --print-after-all --emit=tir -o /dev/null
    echo "== running it on qemu-hexagon and checking against the reference interpreter =="
    "$build_dir/dspc" run examples/alloc_vtcm.dsp --target=hexagon-v68 --random-inputs --seed=1 --check
    ;;
  session-demo)
    echo "== examples/session: alloc_vtcm through dspc::Session on qemu-hexagon, then in-process on host =="
    "$build_dir/examples/session/session_demo" hexagon-v68
    "$build_dir/examples/session/session_demo" host
    ;;
  install)
    cmake --install "$build_dir" --prefix "$prefix"
    echo "setup: dspc is in $prefix: run $prefix/bin/dspc, or find_package(dspc) with -DCMAKE_PREFIX_PATH=$prefix"
    ;;
  deb)
    (cd "$build_dir" && cpack -G DEB)
    ;;
  test)
    cd "$build_dir"
    ctest --output-on-failure -j 2 -LE full
    ;;
  test-all)
    # Every test once, both tiers, in the strictest build that runs it: those labelled
    # `sanitize` (unit, golden, bad input, host end-to-end and sessions) in the sanitizer tree
    # (test-sanitize, ASan+UBSan), where they also check memory and undefined behaviour; the
    # rest (Hexagon runs, the full tier's samples, install, the benchmarks) here. Then the
    # libFuzzer targets (test-fuzz) in the sanitizer tree. The default tier's samples of a
    # family the full tier runs whole (label `sample`) are left out.
    (cd "$build_dir" && ctest --output-on-failure -j 2 -LE "sanitize|sample")
    bash ./setup.sh test-sanitize
    bash ./setup.sh test-fuzz
    ;;
  test-sanitize)
    build_dir=${DSPC_SANITIZE_BUILD_DIR:-build-sanitize}
    sanitize_tree "$build_dir"
    # Any report is fatal: abort_on_error makes it a crash, which `not` in golden RUN lines and
    # every test's exit-code check count as a failure (ASan's default exit code, 1, would look
    # like a user error). use_sigaltstack=0: see driver/main.cpp (LLVM's signal handlers replace
    # ASan's alternate stack). No suppressions. quarantine_size_mb=64 (default 256): see
    # docs/testing.md, "Sanitizers".
    export ASAN_OPTIONS=abort_on_error=1:use_sigaltstack=0:detect_leaks=1:strict_string_checks=1:quarantine_size_mb=64
    export UBSAN_OPTIONS=abort_on_error=1:halt_on_error=1:print_stacktrace=1
    cd "$build_dir"
    ctest --output-on-failure -j 2 -L sanitize
    ;;
  test-fuzz)
    # The libFuzzer targets (tests/fuzz/), built in the sanitizer tree (ASan, UBSan and
    # libFuzzer's edge coverage; test-sanitize's tree, so CI compiles it once), then each target
    # for DSPC_FUZZ_SECONDS (default 20), two at a time, seeded from the tree and $build_dir.
    fuzz_dir=${DSPC_SANITIZE_BUILD_DIR:-build-sanitize}
    sanitize_tree "$fuzz_dir" dspc_fuzzers
    python3 tests/fuzz/run-fuzzers.py --fuzz-build "$fuzz_dir" --seed-build "$build_dir" --jobs 2 \
      --seconds "${DSPC_FUZZ_SECONDS:-20}" --max-seeds "${DSPC_FUZZ_MAX_SEEDS:-300}"
    ;;
  *) echo "usage: bash setup.sh [build|demo|session-demo|test|test-all|test-sanitize|test-fuzz|install PREFIX|deb]" >&2; exit 2 ;;
esac
