#!/usr/bin/env python3
"""Compile-time benchmark: dspc's source-to-object compile against Halide 14's, per kernel.

  python3 bench/compile_time.py --build-dir build [--kernels vadd_u8,dense] [--repetitions 5]

Runs the two Google Benchmark executables the build makes (bench/compile/), one kernel at a
time, dspc then Halide back to back, each with --benchmark_repetitions=N. The figure per
kernel is the median over the N repetitions of the process CPU time per compile (each
repetition is itself the mean of as many compiles as fit in --min-time seconds); the minimum,
the maximum and the spread (max - min) / median are reported too, and wall times are in the
JSON. Prints a Markdown table (kernel, dspc ms, Halide ms, dspc / Halide) and writes the
numbers as JSON (default BUILD_DIR/bench/compile_time.json). Exit status 1 if any compile
failed. See bench/README.md, "Compile time".
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
KERNELS = ["vadd_u8", "conv3x3a16", "dilate3x3", "median3x3", "gaussian5x5", "sobel", "dense",
           "downscale2x2_u8", "row_sad_u8", "fir16_i16", "matmul_i8", "box5x5_u8", "add_sat_u16",
           "rgb_to_gray_u8", "transpose_u8", "threshold_u8", "box3x3_u16", "conv3x3a32", "blur3x3_u16",
           "upscale2x_u8", "deinterleave_rgb_u8", "interleave_rgb_u8", "rgba_to_gray_u8", "hist16_u8",
           "argmax_u8", "gemv_u8i8", "mulhi_rnd_i16", "narrow_sat_i32", "avg_rnd_u16", "fir31_u8",
           "blend4_u8", "depthwise3x3_u8", "maxpool2x2_u8", "transpose_u16", "color_matrix_i16"]
WAYS = [("dspc", "bench_compile_dspc"), ("halide", "bench_compile_halide")]


def run_one(exe, name, kernel, a, out_json):
    cmd = [exe, f"--benchmark_filter=^{name}/{kernel}(/|$)", f"--benchmark_out={out_json}",
           "--benchmark_out_format=json", f"--benchmark_repetitions={a.repetitions}",
           f"--benchmark_min_time={a.min_time}"]
    if a.iterations:
        cmd.append(f"--iterations={a.iterations}")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    result = {"command": cmd, "exit": p.returncode}
    runs = []
    try:
        with open(out_json) as f:
            data = json.load(f)
        result["context"] = data.get("context", {})
        runs = [b for b in data.get("benchmarks", []) if b.get("run_type") == "iteration"]
    except (OSError, ValueError):
        pass  # reported below, with the executable's output
    errors = [b.get("error_message", "") for b in runs if b.get("error_occurred")]
    if p.returncode != 0 or errors or not runs:
        result["error"] = "\n".join(errors) or p.stdout[-4000:]
        return result
    cpu = [b["cpu_time"] for b in runs]  # milliseconds: the executables set Unit(kMillisecond)
    wall = [b["real_time"] for b in runs]
    med = statistics.median(cpu)
    for phase in ("define_ms", "lower_ms", "codegen_ms"):  # per-compile phase split, where measured
        if phase in runs[0]:
            result[phase] = statistics.median(b[phase] for b in runs)
    result.update(cpu_ms=cpu, wall_ms=wall, iterations=[b["iterations"] for b in runs],
                  object_bytes=runs[0].get("object_bytes"), median_ms=med, min_ms=min(cpu), max_ms=max(cpu),
                  spread=(max(cpu) - min(cpu)) / med if med else None, wall_median_ms=statistics.median(wall))
    return result


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(os.path.dirname(BENCH), "build"),
                    help="dspc's build folder (holds bench/compile/bench_compile_{dspc,halide})")
    ap.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated subset")
    ap.add_argument("--repetitions", type=int, default=5, help="--benchmark_repetitions (default 5)")
    ap.add_argument("--min-time", type=float, default=0.5,
                    help="--benchmark_min_time: seconds per repetition (default 0.5)")
    ap.add_argument("--iterations", type=int, default=0,
                    help="compiles per repetition (default: as many as fit in --min-time)")
    ap.add_argument("--json", help="results file (default: BUILD_DIR/bench/compile_time.json)")
    a = ap.parse_args()
    build = os.path.abspath(a.build_dir)
    exes = {}
    for way, exe in WAYS:
        path = os.path.join(build, "bench", "compile", exe)
        if not os.path.isfile(path):
            sys.exit(f"compile_time.py: {path} not found: build dspc with Google Benchmark "
                     "(libbenchmark-dev) and Halide 14 (libhalide14-0-dev) installed; CMake says when they are missing")
        exes[way] = path
    kernels = [k for k in a.kernels.split(",") if k]
    for k in kernels:
        if k not in KERNELS:
            sys.exit(f"compile_time.py: unknown kernel '{k}' (known: {', '.join(KERNELS)})")
    work = os.path.join(build, "bench", "compile_time")
    os.makedirs(work, exist_ok=True)

    rows, failed = [], []
    for k in kernels:
        row = {"kernel": k}
        for way, _ in WAYS:
            out = os.path.join(work, f"{way}.{k}.json")
            if os.path.exists(out):
                os.remove(out)
            r = run_one(exes[way], way, k, a, out)
            row[way] = r
            if "error" in r:
                failed.append((k, way, r["error"]))
        d, h = row["dspc"].get("median_ms"), row["halide"].get("median_ms")
        row["dspc_over_halide"] = d / h if d is not None and h else None
        rows.append(row)

    print(f"compile time per kernel, ms: median of {a.repetitions} repetitions of process CPU time "
          "(spread = (max - min) / median over the repetitions)")
    header = ["kernel", "dspc ms", "Halide ms", "dspc / Halide", "dspc spread", "Halide spread"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        d, h = row["dspc"], row["halide"]
        print("| " + " | ".join([row["kernel"],
            fmt(d.get("median_ms")), fmt(h.get("median_ms")), fmt(row["dspc_over_halide"]),
            fmt(100 * d["spread"], 1) + " %" if d.get("spread") is not None else "-",
            fmt(100 * h["spread"], 1) + " %" if h.get("spread") is not None else "-"]) + " |")
    print("\nwhere the time goes, ms per compile (medians): front end and passes | LLVM "
          "(dspc: compile_source | emit_module; Halide: define + compile_to_module | Module::compile)")
    header = ["kernel", "dspc passes", "dspc LLVM 19", "Halide lowering", "Halide LLVM 14"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        d, h = row["dspc"], row["halide"]
        h_lower = (h["define_ms"] + h["lower_ms"]) if "lower_ms" in h else None
        print("| " + " | ".join([row["kernel"], fmt(d.get("lower_ms")), fmt(d.get("codegen_ms")),
                                 fmt(h_lower), fmt(h.get("codegen_ms"))]) + " |")
    for k, way, err in failed:
        print(f"\nFAILED {k} ({way}): {err}", file=sys.stderr)

    out = a.json or os.path.join(build, "bench", "compile_time.json")
    with open(out, "w") as f:
        json.dump({"unit": "milliseconds of process CPU time per compile",
                   "statistic": f"median of {a.repetitions} repetitions (min, max, wall time also given)",
                   "dspc": "parse + every pass + LLVM 19 codegen to a hexagon-v68 object at -O2 (compile_source + emit_module)",
                   "halide": "define the pipeline + compile_to_object for "
                             "hexagon-32-noos-hvx_128-no_asserts-no_bounds_query-no_runtime (Halide 14, LLVM 14)",
                   "table": [{"kernel": r["kernel"], "dspc_ms": r["dspc"].get("median_ms"),
                              "halide_ms": r["halide"].get("median_ms"), "dspc_over_halide": r["dspc_over_halide"]}
                             for r in rows],
                   "runs": rows}, f, indent=1)
    print(f"\nwrote {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
