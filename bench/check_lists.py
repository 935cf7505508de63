#!/usr/bin/env python3
"""Checks that every place listing the bench kernels lists the same ones, in the same order:
run.py's KERNELS (the table's order), compile_time.py's KERNELS, the compile-time benchmark's
kKernels (compile/bench_compile_dspc.cpp), the Halide generator's kernel_names()
(halide/halide_pipelines.cpp), and the files kernels/K.dsp and c/K.c (as sets), with a reference
in harness/harness.c for each. Exit 1, naming the difference, otherwise 0."""
import os
import re
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
import compile_time  # noqa: E402
import run  # noqa: E402


def strings_in(path, start, end):
    text = open(os.path.join(BENCH, path)).read()
    body = text[text.index(start):]
    body = body[:body.index(end)]
    return re.findall(r'"([A-Za-z0-9_]+)"', body)


def main():
    want = list(run.KERNELS)
    lists = {
        "compile_time.py KERNELS": compile_time.KERNELS,
        "compile/bench_compile_dspc.cpp kKernels": strings_in("compile/bench_compile_dspc.cpp", "kKernels = {", "};"),
        "halide/halide_pipelines.cpp kernel_names()": strings_in("halide/halide_pipelines.cpp", "names = {", "};"),
    }
    sets = {
        "kernels/*.dsp": {f[:-4] for f in os.listdir(os.path.join(BENCH, "kernels")) if f.endswith(".dsp")},
        "c/*.c": {f[:-2] for f in os.listdir(os.path.join(BENCH, "c")) if f.endswith(".c")},
        "harness/harness.c references": set(re.findall(r"defined\(BENCH_KERNEL_(\w+)\)",
                                                        open(os.path.join(BENCH, "harness", "harness.c")).read())),
    }
    bad = 0
    for name, got in lists.items():
        if got != want:
            print(f"{name} differs from run.py's KERNELS:\n  missing {[k for k in want if k not in got]}\n"
                  f"  extra {[k for k in got if k not in want]}\n  order {got}")
            bad = 1
    for name, got in sets.items():
        if got != set(want):
            print(f"{name} differs from run.py's KERNELS: missing {sorted(set(want) - got)}, extra {sorted(got - set(want))}")
            bad = 1
    if not bad:
        print(f"ok: {len(want)} kernels, listed alike everywhere")
    return bad


if __name__ == "__main__":
    sys.exit(main())
