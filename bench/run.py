#!/usr/bin/env python3
"""Packet-count benchmark: the bench kernels built four ways, measured under qemu-hexagon.

  python3 bench/run.py --dspc build/dspc [--kernels vadd_u8,dense] [--ways dspc,sched,halide,c]

For each kernel and way it builds a static Hexagon program (bench/harness/harness.c around the
kernel, linked with ld.lld against libdspc_rt.a), runs it under count-packets, which checks
every output against a scalar reference (the program exits non-zero on a mismatch), and counts
the packets executed in the kernel's own functions only: the text symbols defined in the
kernel's object file. It prints packets per 128 outputs next to the resource bound as a Markdown
table, and writes the table (results.md), an SVG chart of dspc's ratio to the best peer
(ratios.svg, when a dspc way and a peer ran) and the numbers as JSON (results.json). Everything it builds goes to a scratch folder (default: bench/ next to
the dspc binary, i.e. build/bench/). Exit status: 0 when every program ran and matched its
reference, 1 otherwise. See bench/README.md.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)

# name: (outputs, resource bound in packets per 128 outputs; bench/README.md derives them)
KERNELS = {
    "vadd_u8": (65536, 2.00),
    "conv3x3a16": (256 * 1024, 3.00),
    "dilate3x3": (256 * 1024, 2.25),
    "median3x3": (256 * 1024, 8.00),
    "gaussian5x5": (256 * 1024, 4.50),
    "sobel": (256 * 1024, 5.00),
    "dense": (64 * 128, 130.0),
    "downscale2x2_u8": (256 * 1024, 4.00),
    "row_sad_u8": (256, 2048.0),
    "fir16_i16": (256 * 1024, 18.0),
    "matmul_i8": (64 * 96, 98.0),
    "box5x5_u8": (256 * 1024, 9.00),
    "add_sat_u16": (256 * 1024, 4.00),
    "rgb_to_gray_u8": (256 * 1024, 3.00),
    "transpose_u8": (256 * 256, 1.75),
    "threshold_u8": (256 * 1024, 1.00),
    "box3x3_u16": (256 * 1024, 4.50),
    "conv3x3a32": (256 * 1024, 6.00),
    "blur3x3_u16": (256 * 1024, 7.50),
    "upscale2x_u8": (256 * 1024, 1.00),
    "deinterleave_rgb_u8": (3 * 256 * 1024, 2.50),
    "interleave_rgb_u8": (3 * 256 * 1024, 2.50),
    "rgba_to_gray_u8": (256 * 1024, 4.00),
    "hist16_u8": (16, 67584.0),
    "argmax_u8": (256, 3584.0),
    "gemv_u8i8": (256, 1024.0),
    "mulhi_rnd_i16": (256 * 1024, 4.00),
    "narrow_sat_i32": (256 * 1024, 4.00),
    "avg_rnd_u16": (256 * 1024, 4.00),
    "fir31_u8": (256 * 1024, 16.00),
    "blend4_u8": (256 * 1024, 4.00),
    "depthwise3x3_u8": (64 * 64 * 64, 11.50),
    "maxpool2x2_u8": (64 * 128 * 32, 4.00),
    "transpose_u16": (256 * 256, 3.00),
    "color_matrix_i16": (3 * 256 * 1024, 5.00),
}
WAYS = ["dspc", "sched", "halide", "c"]

LLVM = "/usr/lib/llvm-19/bin"
# -mno-pairing: no duplexes, which lld 19 relocates wrongly (codegen/CodegenHexagon.cpp); a
# code-size encoding only, the packets are the same.
HEX_FLAGS = ["--target=hexagon-unknown-linux-musl", "-mcpu=hexagonv68", "-G0", "-ffreestanding",
             "-nostdlib", "-fno-stack-protector", "-fno-pic", "-std=c11", "-Wall", "-mllvm", "-mno-pairing"]
# The harness and the reference: scalar code, no HVX, no vectoriser.
HARNESS_FLAGS = ["-O2", "-fno-vectorize", "-fno-slp-vectorize"]
# The plain C peer, as the issue states it.
C_PEER_FLAGS = ["-O3", "-mhvx", "-mhvx-length=128b", "-mllvm", "-hexagon-autohvx=true"]
HALIDE_INCLUDE = "/usr/include/halide14"


def kernel_source(kernel, way):
    """dspc's source: bench/kernels/K.dsp (no schedule), or for the 'sched' way
    bench/schedules/K.dsp when there is one (else the automatic schedule is our best)."""
    scheduled = os.path.join(BENCH, "schedules", f"{kernel}.dsp")
    if way == "sched" and os.path.isfile(scheduled):
        return scheduled
    return os.path.join(BENCH, "kernels", f"{kernel}.dsp")


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}")
    return p.stdout


def newer(target, *sources):
    if not os.path.exists(target):
        return False
    t = os.path.getmtime(target)
    return all(os.path.getmtime(s) < t for s in sources)


def find_count_packets(explicit):
    """The packet counter: --count-packets PATH, else the repository's tools/count-packets."""
    path = os.path.abspath(explicit or os.path.join(ROOT, "tools", "count-packets"))
    if not os.path.isfile(path):
        sys.exit(f"run.py: count-packets not found at {path}")
    return path


def text_symbols(obj):
    """The functions an object defines: those are the kernel's own functions."""
    out = run([f"{LLVM}/llvm-nm", "--defined-only", obj])
    return sorted({l.split()[2] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1] in "TtWw"})


def hvx_insn_count(obj):
    """Static count of instructions in the object that name an HVX register (v0..v31, q0..q3)."""
    out = run([f"{LLVM}/llvm-objdump", "-d", "--no-show-raw-insn", "--mcpu=hexagonv68", "--mattr=+hvxv68,+hvx-length128b", obj])
    return sum(1 for l in out.splitlines() if re.search(r"\b[vq]\d+(:\d+)?\b", l.split(":", 1)[-1]))


class Builder:
    def __init__(self, a):
        self.a = a
        self.work = os.path.join(a.build_dir, "work")
        os.makedirs(self.work, exist_ok=True)
        self.clang = a.clang
        self.rt = os.path.join(a.runtime_dir, "libdspc_rt.a")
        if not os.path.isfile(self.rt):
            sys.exit(f"run.py: {self.rt} not found (build dspc first, or pass --runtime-dir)")
        self.halide_gen = None

    def path(self, name):
        return os.path.join(self.work, name)

    def cc(self, src, obj, flags):
        run([self.clang] + HEX_FLAGS + flags + ["-c", src, "-o", obj])
        return obj

    def build_halide_generator(self):
        """Compiles bench/halide/halide_{kernels,pipelines}.cpp on the host against libHalide14 (once)."""
        halide = os.path.join(BENCH, "halide")
        srcs = [os.path.join(halide, f) for f in ("halide_kernels.cpp", "halide_pipelines.cpp")]
        exe = self.path("halide_kernels")
        if not newer(exe, *srcs, os.path.join(halide, "halide_pipelines.h")):
            run([self.a.cxx, "-std=c++17", "-O1", f"-I{HALIDE_INCLUDE}"] + srcs + ["-o", exe, "-lHalide14",
                 "-lpthread", "-ldl"])
        self.halide_gen = exe
        # Built once here: the measuring threads share it.
        self.halide_stubs = self.cc(os.path.join(BENCH, "harness", "halide_stubs.c"),
                                    self.path("halide_stubs.o"), HARNESS_FLAGS)

    def kernel_object(self, kernel, way):
        if way in ("dspc", "sched"):
            obj = self.path(f"{kernel}.{way}.o")
            run([self.a.dspc, kernel_source(kernel, way), "--emit=obj", "-o", obj])
            return obj, []
        if way == "halide":
            obj = self.path(f"{kernel}.halide.o")
            run([self.halide_gen, kernel, obj])
            return obj, [self.halide_stubs]
        obj = self.path(f"{kernel}.c.o")
        self.cc(os.path.join(BENCH, "c", f"{kernel}.c"), obj, C_PEER_FLAGS)
        return obj, []

    def program(self, kernel, way):
        define = [f"-DBENCH_KERNEL_{kernel}"]
        kobj, extra = self.kernel_object(kernel, way)
        corrupt = ["-DBENCH_CORRUPT_OUTPUT"] if self.a.corrupt_output else []
        harness = self.cc(os.path.join(BENCH, "harness", "harness.c"), self.path(f"{kernel}.{way}.harness.o"),
                          HARNESS_FLAGS + define + corrupt)
        impl_way = "dspc" if way == "sched" else way
        impl = self.cc(os.path.join(BENCH, "harness", f"impl_{impl_way}.c"), self.path(f"{kernel}.{way}.impl.o"),
                       HARNESS_FLAGS + define + [f"-DBENCH_NAME={kernel}"])
        elf = self.path(f"{kernel}.{way}.elf")
        run([f"{LLVM}/ld.lld", "-static", "-e", "_start", harness, impl, kobj] + extra + [self.rt, "-o", elf])
        return kobj, elf

    def measure(self, kernel, way):
        outputs, _ = KERNELS[kernel]
        r = {"kernel": kernel, "way": way}
        try:
            kobj, elf = self.program(kernel, way)
            funcs = text_symbols(kobj)
            cmd = [sys.executable, self.a.count_packets, "--json"]
            for f in funcs:
                cmd += ["--func", f]
            p = subprocess.run(cmd + ["--", elf], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=self.a.timeout)
            data = json.loads(p.stdout.strip().splitlines()[-1])
            r.update(functions=funcs, exit=data["exit"], program_output=p.stderr.strip(),
                     kernel_packets=data["picked"], total_packets=data["total"],
                     by_function={f: data["by_symbol"].get(f, 0) for f in funcs},
                     hvx_insns=hvx_insn_count(kobj))
            r["packets_per_128"] = round(data["picked"] / (outputs / 128), 3)
            r["ok"] = data["exit"] == 0 and data["picked"] > 0
            if data["exit"] != 0:
                r["error"] = f"program exited {data['exit']}: {p.stderr.strip()[-2000:]}"
        except Exception as e:  # report and go on: one broken way must not hide the others
            r["ok"] = False
            r["error"] = str(e)[-4000:]
        return r


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def svg_escape(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_chart(rows, ways, path):
    """An SVG bar chart of dspc's packets over the best peer's (Halide 14 or clang-19 C, the
    fewer packets), per kernel: one bar per dspc way, drawn from the 1.0 line on a log scale
    (left of it dspc runs fewer packets than the best peer, right of it more). Plain SVG text,
    no plotting library."""
    import math
    series = [(w, label, colour) for w, label, colour in
              (("dspc", "dspc, no schedule", "#4c72b0"), ("sched", "dspc, bench schedule", "#dd8452")) if w in ways]
    values = [row[f"{w}_over_best_peer"] for row in rows for w, _, _ in series if row.get(f"{w}_over_best_peer")]
    lo = 10 ** math.floor(math.log10(min(values + [1.0]) * 0.999))
    hi = 10 ** math.ceil(math.log10(max(values + [1.0]) * 1.001))
    if hi <= lo * 10:
        hi = lo * 100
    left, right, top, row_h, bar_h = 170, 30, 58, 8 + 7 * len(series), 7
    plot_w = 640
    width = left + plot_w + right
    height = top + row_h * len(rows) + 40

    def xpos(v):
        return left + plot_w * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           '<text x="10" y="18" font-size="13" font-weight="bold">dspc / best peer (Halide 14 or clang-19 C), '
           'packets per 128 outputs; log scale, lower is better</text>']
    for i, (_, label, colour) in enumerate(series):  # legend
        lx = left + 250 * i
        out.append(f'<rect x="{lx}" y="28" width="12" height="10" fill="{colour}"/>')
        out.append(f'<text x="{lx + 16}" y="37">{svg_escape(label)}</text>')
    bottom = top + row_h * len(rows)
    decade = lo
    while decade <= hi * 1.0001:  # grid and tick labels: 1, 2, 5 per decade
        for m in (1, 2, 5):
            t = decade * m
            if t < lo * 0.9999 or t > hi * 1.0001:
                continue
            x = xpos(t)
            out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{bottom}" stroke="#ddd"/>')
            out.append(f'<text x="{x:.1f}" y="{bottom + 14}" text-anchor="middle">{t:g}</text>')
        decade *= 10
    one = xpos(1.0)
    for r, row in enumerate(rows):
        y0 = top + r * row_h
        out.append(f'<text x="{left - 6}" y="{y0 + row_h / 2 + 4:.1f}" text-anchor="end">{svg_escape(row["kernel"])}</text>')
        for i, (w, label, colour) in enumerate(series):
            v = row.get(f"{w}_over_best_peer")
            y = y0 + 4 + i * bar_h
            if not v:
                out.append(f'<text x="{one + 4:.1f}" y="{y + bar_h - 1}" font-size="9">no value</text>')
                continue
            x = xpos(min(max(v, lo), hi))
            out.append(f'<rect x="{min(x, one):.1f}" y="{y}" width="{max(abs(x - one), 1):.1f}" height="{bar_h - 1}" '
                       f'fill="{colour}"><title>{svg_escape(row["kernel"])}, {svg_escape(label)}: {v:.2f}</title></rect>')
            tx, anchor = (max(x, one) + 3, "start") if v >= 1 else (min(x, one) - 3, "end")
            out.append(f'<text x="{tx:.1f}" y="{y + bar_h - 1}" font-size="7" text-anchor="{anchor}">{v:.2f}</text>')
    out.append(f'<line x1="{one:.1f}" y1="{top - 4}" x2="{one:.1f}" y2="{bottom}" stroke="black" stroke-width="1.5"/>')
    out.append(f'<text x="{one + 3:.1f}" y="{top - 6}" font-size="10">1.0: as the best peer</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{bottom + 30}" text-anchor="middle">packets per 128 outputs, '
               f'dspc / best peer</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dspc", default=os.path.join(ROOT, "build", "dspc"), help="the dspc binary")
    ap.add_argument("--build-dir", help="scratch folder (default: bench/ next to the dspc binary)")
    ap.add_argument("--runtime-dir", help="folder of hexagon-v68's libdspc_rt.a (default: from the dspc build)")
    ap.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated subset")
    ap.add_argument("--ways", default=",".join(WAYS), help="comma-separated subset of dspc (bench/kernels/, no schedule), sched (bench/schedules/), halide, c")
    ap.add_argument("--json", help="results file (default: BUILD_DIR/results.json)")
    ap.add_argument("--count-packets", help="path of the packet counter (default: tools/count-packets)")
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--cxx", default="g++", help="host C++ compiler for the Halide generator")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--corrupt-output", action="store_true",
                    help="for testing the harness: flip one output bit after the kernel runs (must fail)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per simulator run")
    a = ap.parse_args()
    a.dspc = os.path.abspath(a.dspc)
    build_root = os.path.dirname(a.dspc)
    a.build_dir = os.path.abspath(a.build_dir or os.path.join(build_root, "bench"))
    a.runtime_dir = os.path.abspath(a.runtime_dir or os.path.join(build_root, "runtime-support", "hexagon-v68"))
    a.count_packets = find_count_packets(a.count_packets)
    kernels = [k for k in a.kernels.split(",") if k]
    ways = [w for w in a.ways.split(",") if w]
    for k in kernels:
        if k not in KERNELS:
            sys.exit(f"run.py: unknown kernel '{k}' (known: {', '.join(KERNELS)})")
    for w in ways:
        if w not in WAYS:
            sys.exit(f"run.py: unknown way '{w}' (known: {', '.join(WAYS)})")

    b = Builder(a)
    if "halide" in ways:
        b.build_halide_generator()
    jobs = [(k, w) for k in kernels for w in ways]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(lambda kw: b.measure(*kw), jobs))
    by = {(r["kernel"], r["way"]): r for r in results}

    rows = []
    for k in kernels:
        row = {"kernel": k, "outputs": KERNELS[k][0], "bound": KERNELS[k][1]}
        for w in ways:
            r = by[(k, w)]
            row[w] = r.get("packets_per_128") if r["ok"] else None
        peers = [row[w] for w in ("halide", "c") if w in ways and row[w] is not None]
        row["best_peer"] = min(peers) if peers else None
        for w in ("dspc", "sched"):
            v = row.get(w)
            row[f"{w}_over_best_peer"] = round(v / row["best_peer"], 3) if v is not None and row["best_peer"] else None
            row[f"{w}_over_bound"] = round(v / row["bound"], 3) if v is not None else None
        rows.append(row)

    names = {"dspc": "dspc, no schedule", "sched": "dspc, bench schedule", "halide": "Halide 14",
             "c": "clang-19 C"}
    ours = [w for w in ("dspc", "sched") if w in ways]
    header = ["kernel"] + [names[w] for w in ways] + ["bound"]
    for w in ours:
        header += [f"{'scheduled' if w == 'sched' else 'unscheduled'}/best peer",
                   f"{'scheduled' if w == 'sched' else 'unscheduled'}/bound"]
    table = ["packets per 128 outputs (kernel functions only; lower is better)",
             "| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        cells = [row["kernel"]] + [fmt(row[w]) for w in ways] + [fmt(row["bound"])]
        for w in ours:
            cells += [fmt(row[f"{w}_over_best_peer"]), fmt(row[f"{w}_over_bound"])]
        table.append("| " + " | ".join(cells) + " |")
    print("\n".join(table))
    table_path = os.path.join(a.build_dir, "results.md")
    with open(table_path, "w") as f:
        f.write("\n".join(table) + "\n")
    written = [table_path]
    if ours and any(row.get(f"{w}_over_best_peer") for row in rows for w in ours):
        chart = os.path.join(a.build_dir, "ratios.svg")
        write_chart(rows, ways, chart)
        written.append(chart)

    failed = [r for r in results if not r["ok"]]
    for r in failed:
        print(f"\nFAILED {r['kernel']} ({r['way']}): {r.get('error', '')}", file=sys.stderr)
    out = a.json or os.path.join(a.build_dir, "results.json")
    with open(out, "w") as f:
        json.dump({"unit": "packets per 128 outputs", "cpu": "qemu-hexagon -cpu v67, code for hexagon-v68",
                   "table": rows, "runs": results}, f, indent=1)
    print(f"\nwrote {', '.join(written + [out])}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
