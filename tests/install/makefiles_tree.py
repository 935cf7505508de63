#!/usr/bin/env python3
"""The build with CMake's default generator, Unix Makefiles (the build trees of setup.sh and CI
use Ninja).

  makefiles_tree.py --source-dir SRC --work-dir DIR --cmake CMAKE [--all]

Configures SRC into DIR/build with -G "Unix Makefiles", then builds the targets made of custom
commands that link runtime-support's archives (made by dspc_runtime, in runtime-support/): the
device server, the bench's pipe server and the device test programs, each on its own after a
clean so that none can lean on another's outputs; then the session test modules and
runtime-support itself. Make, unlike Ninja, knows a custom command's output only
in the directory that makes it: a target that uses it elsewhere needs a target-level dependency.
With --all, it then builds everything (as `cmake --build DIR -j2` does).

The tree is built with GCC (gcc and g++, the system's compilers, which a plain `cmake -S . -B
build` picks), whatever CC and CXX say (setup.sh builds its own trees with clang-19), so that the
GCC build, without precompiled headers (DSPC_PCH is off with GCC), stays tested: it also builds
the IR layer, dspc_ir, C++ that every other layer includes.
"""
import argparse
import os
import shutil
import subprocess
import sys

# The ones that link runtime-support's archives: built alone after a clean, each must make them.
ALONE = ["dspc_server", "dspc_pipe_echo", "dspc_runtime_device_tests"]
# Then, without a clean, the other custom-command targets.
REST = ["dspc_session_modules", "dspc_runtime", "dspc_ir"]


def run(cmd):
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(r.stdout[-6000:])
    if r.returncode != 0:
        print(f"FAIL: exit {r.returncode}: {' '.join(cmd)}", flush=True)
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    build = os.path.join(a.work_dir, "build")
    shutil.rmtree(build, ignore_errors=True)
    run([a.cmake, "-S", a.source_dir, "-B", build, "-G", "Unix Makefiles",
         "-DCMAKE_BUILD_TYPE=Release", "-DDSPC_BENCH=OFF",
         "-DCMAKE_C_COMPILER=gcc", "-DCMAKE_CXX_COMPILER=g++"])
    for target in ALONE:
        run([a.cmake, "--build", build, "--target", "clean"])
        run([a.cmake, "--build", build, "-j", "2", "--target", target])
        print(f"ok: {target} builds alone with Unix Makefiles", flush=True)
    run([a.cmake, "--build", build, "-j", "2", "--target", *REST])
    print(f"ok: {' and '.join(REST)} build with Unix Makefiles", flush=True)
    if a.all:
        run([a.cmake, "--build", build, "-j", "2"])
        print("ok: the whole tree builds with Unix Makefiles", flush=True)
    print("PASS", flush=True)


if __name__ == "__main__":
    main()
