#!/usr/bin/env python3
"""Compile-time scaling: does `dspc --emit=obj` grow linearly with the number of funcs in a file?

  python3 bench/compile_scaling.py --dspc build/dspc [--small 200] [--large 2000] [--runs 3]
                                   [--target hexagon-v68] [--max-ratio R]

Writes two .dsp files of SMALL and LARGE small funcs (four kinds cycled: a rounding u8 average,
an i16 max of a scaled pixel and its clamped left neighbour, a u8 -> u32 row sum, a two-stage
i32 shift and add; widths, heights and constants drawn from a fixed seed, so the files are the
same on every run), times `dspc FILE --target=T --emit=obj` on each (CPU time of the child:
user + system, median of --runs runs, small and large interleaved) and prints both times and
their ratio. Linear growth gives a ratio near LARGE / SMALL (a little under it: the fixed cost
of a process counts once in each). With --max-ratio R the exit status is 1 if the ratio is above
R (the ctest bench/compile-scaling). See bench/README.md, "Compile time".
"""
import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile


def funcs(n, seed=1):
    """n small funcs of four kinds, cycled; the same text for the same n and seed."""
    r = random.Random(seed)
    out = []
    for i in range(n):
        w, h = r.choice([256, 512, 1000]), r.choice([4, 8, 16])
        kind = i % 4
        if kind == 0:
            c = r.choice([1, 2, 8])
            out.append(f"func f{i}(A: u8[{w}], B: u8[{w}]) -> (O: u8[{w}]) {{\n"
                       f"  O[x] = u8((u16(A[x]) + u16(B[x]) + {c}) / 2)\n}}\n")
        elif kind == 1:
            m = r.choice([1, 2, 5, 8])
            out.append(f"func f{i}(A: i16[{h}, {w}]) -> (O: i16[{h}, {w}]) {{\n"
                       f"  O[y, x] = max(A[y, x] * {m}, A[y, max(x - 1, 0)])\n}}\n")
        elif kind == 2:
            out.append(f"func f{i}(A: u8[{h}, {w}]) -> (O: u32[{h}]) {{\n"
                       f"  O[y] = sum(u32(A[y, r]), r: {w})\n}}\n")
        else:
            s, c = r.choice([1, 3, 4, 6]), r.choice([4, 5, 7])
            out.append(f"func f{i}(A: i32[{w}]) -> (O: i32[{w}]) {{\n"
                       f"  T[x: {w}] = A[x] >> {s}\n  O[x] = T[x] + {c}\n}}\n")
    return "".join(out)


def cpu_seconds(cmd):
    """CPU time (user + system) of one child process running cmd; raises if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{p.stdout[-4000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dspc", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                   "build", "dspc"))
    ap.add_argument("--small", type=int, default=200, help="funcs in the small file (default 200)")
    ap.add_argument("--large", type=int, default=2000, help="funcs in the large file (default 2000)")
    ap.add_argument("--runs", type=int, default=3, help="compiles of each file; the median counts (default 3)")
    ap.add_argument("--target", default="hexagon-v68")
    ap.add_argument("--max-ratio", type=float, help="exit 1 if large / small CPU time is above this")
    ap.add_argument("--work", help="folder for the .dsp and .o files (default: a temporary one)")
    a = ap.parse_args()
    if a.small <= 0 or a.large <= a.small or a.runs <= 0:
        ap.error("need 0 < --small < --large and --runs > 0")
    with tempfile.TemporaryDirectory(prefix="dspc-scaling-") as tmp:
        work = a.work or tmp
        os.makedirs(work, exist_ok=True)
        times = {}
        for n in (a.small, a.large):
            with open(os.path.join(work, f"funcs{n}.dsp"), "w") as f:
                f.write(funcs(n))
            times[n] = []
        for _ in range(a.runs):
            for n in (a.small, a.large):
                src = os.path.join(work, f"funcs{n}.dsp")
                cmd = [a.dspc, src, f"--target={a.target}", "--emit=obj", "-o", os.path.join(work, f"funcs{n}.o")]
                try:
                    times[n].append(cpu_seconds(cmd))
                except (RuntimeError, OSError) as e:
                    print(f"compile_scaling: {e}", file=sys.stderr)
                    return 1
    small, large = statistics.median(times[a.small]), statistics.median(times[a.large])
    ratio = large / small
    print(f"| funcs | dspc --emit=obj CPU s (median of {a.runs}) | per func ms | runs |")
    print("|---|---|---|---|")
    for n, t in ((a.small, small), (a.large, large)):
        print(f"| {n} | {t:.2f} | {1000 * t / n:.1f} | {', '.join(f'{x:.2f}' for x in times[n])} |")
    print(f"\nratio {a.large} / {a.small} funcs: {ratio:.2f} (linear: {a.large / a.small:.1f}) on {a.target}")
    if a.max_ratio is not None and ratio > a.max_ratio:
        print(f"compile_scaling: FAIL: ratio {ratio:.2f} is above {a.max_ratio} (superlinear growth)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
