#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a working dspc:
#   bash setup.sh demo   install what is missing, build, compile and run the seed example
#   bash setup.sh test   install what is missing, build, run every test (ctest)
#   bash setup.sh build  install what is missing and build
#   bash setup.sh test-fuzz  also build the libFuzzer targets (build-fuzz/) and run each briefly
# Packages already installed are skipped; apt-get runs only when something is missing.
set -euo pipefail
cd "$(dirname "$0")"

mode=${1:-build}
build_dir=${DSPC_BUILD_DIR:-build}
packages=(ca-certificates g++ cmake ninja-build python3 git
          clang-19 lld-19 llvm-19-dev liblld-19-dev
          qemu-user nlohmann-json3-dev libgtest-dev
          libbenchmark-dev    # Google Benchmark: bench/'s compile-time benchmark
          libhalide14-0-dev   # Halide 14: bench/'s peer only, never linked into dspc
          libclang-rt-19-dev) # libFuzzer and the sanitizer runtimes: tests/fuzz/ (test-fuzz)

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

if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build_dir" -j 2

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
  test)
    cd "$build_dir"
    ctest --output-on-failure -j 2
    ;;
  test-fuzz)
    # The libFuzzer targets (tests/fuzz/): a clang-19 tree with ASan, UBSan and libFuzzer, then
    # each target for DSPC_FUZZ_SECONDS (default 20), seeded from the tree and from $build_dir.
    fuzz_dir=${DSPC_FUZZ_BUILD_DIR:-build-fuzz}
    if [ ! -f "$fuzz_dir/build.ninja" ]; then
      cmake -S . -B "$fuzz_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDSPC_FUZZ=ON \
        -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
    fi
    cmake --build "$fuzz_dir" -j 2 --target dspc_fuzzers
    python3 tests/fuzz/run-fuzzers.py --fuzz-build "$fuzz_dir" --seed-build "$build_dir" \
      --seconds "${DSPC_FUZZ_SECONDS:-20}" --max-seeds "${DSPC_FUZZ_MAX_SEEDS:-300}"
    ;;
  *) echo "usage: bash setup.sh [build|demo|session-demo|test|test-fuzz]" >&2; exit 2 ;;
esac
