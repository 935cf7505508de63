#!/usr/bin/env python3
"""Packets per output of the op library's nn ops (schedules/nn.dsp) against a resource bound.

  python3 bench/nn_bench.py --dspc build/dspc [--json FILE] [--only conv2d,dense_i8]

Each op is instantiated at a network's shape, compiled with `dspc run --keep-temps` for
hexagon-v68 (its own runner, inputs from --random-inputs), and run under
tools/count-packets, which counts the packets of the op's function. The output is
also checked against dspc's interpreter (--check) in the same build. Bounds (bench/README.md,
"The op library"): at most one HVX load, one HVX store and two other HVX operations per packet;
vrmpy does 128 byte multiply-adds, so a dot-product op needs MACs / 256 packets; an op also
loads its input and stores its output once, 128 bytes per packet.

The Halide column (--halide, default on when libHalide14 is installed): conv2d and
depthwise_conv2d as Halide 14 pipelines with apps/hannk's schedules (bench/halide/nn_halide.cpp),
compiled like bench/run.py's Halide kernels (compile_to_object for
hexagon-32-noos-hvx_128-no_asserts-no_bounds_query-no_runtime), linked with bench/harness's
harness.c (-DBENCH_NN_OPS: the buffers and scalar references of bench/harness/nn_refs.h, the
same semantics and shapes as nn.dsp's ops). The program runs twice: under plain qemu-hexagon,
checking every output against the scalar reference (a mismatch is an error), then built with
-DBENCH_SKIP_REFERENCE (the same kernel object, no reference: single-stepping conv2d's 115 M
scalar multiply-adds would take long) under count-packets. The packets are those of the
pipeline's own functions (the object's text symbols), as bench/run.py counts them.

Both columns count only the named function's own packets: a call out of it (avgpool's scalar
divisions call __hexagon_udivsi3; Halide's halide_malloc) is not counted.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def od(n, k, s, p, d=1):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


# The ops with a Halide peer: nn_halide.cpp's kernel name for each and the one shape it is
# written for (its extents are fixed, as in bench/harness/nn_refs.h).
HALIDE_PEERS = {"conv2d": "nn_conv2d", "depthwise_conv2d": "nn_depthwise_conv2d"}
QEMU = shutil.which("qemu-hexagon") or "qemu-hexagon"
HALIDE_SHAPES = {"conv2d": [1, 1, 1, 56, 56, 64, 3, 3, 64], "depthwise_conv2d": [1, 1, 1, 56, 56, 64, 3, 3]}


# (op, args, outputs, bound in packets, how the bound is counted)
def ops():
    H = W = 56
    C = K = 64
    out = H * W * K
    macs = out * 9 * C
    conv = [1, 1, 1, H, W, C, 3, 3, K]
    rows = []
    rows.append(("conv2d", conv, out, max(macs / 256, out * 4 / 128), "MACs / 256 (vrmpy)"))
    rows.append(("conv2d_requant", conv, out, max(macs / 256, out / 128), "MACs / 256 (vrmpy)"))
    M, KK, N = 64, 256, 128
    rows.append(("dense_u8", [M, KK, N], M * N, M * N * KK / 256 + M * N * 4 / 128, "MACs / 256 + stores"))
    rows.append(("dense_i8", [M, KK, N], M * N, M * N * KK / 256 + M * N * 4 / 128, "MACs / 256 + stores"))
    rows.append(("depthwise_conv2d", [1, 1, 1, H, W, C, 3, 3], H * W * C, H * W * C * 9 / 32 / 2,
                 "9 multiply-adds per 32 i32 lanes, 2 per packet"))
    po = od(H, 2, 2, 0) * od(W, 2, 2, 0) * C
    rows.append(("maxpool", [2, 2, 0, H, W, C], po, H * W * C / 128, "input loads"))
    rows.append(("avgpool", [3, 1, 1, H, W, C], H * W * C, H * W * C * 8 / 128 / 2, "8 adds per 128 lanes (u16), 2 per packet"))
    rows.append(("requantize", [out], out, out * 4 / 128, "input loads"))
    return rows


def packets(a, op, args):
    inst = f"{op}<{','.join(map(str, args))}>"
    mangled = f"{op}_{'_'.join(map(str, args))}"
    p = subprocess.run([a.dspc, "run", a.nn, f"--func={inst}",
                        "--target=hexagon-v68", "--random-inputs", "--check", "--keep-temps"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = re.search(r"keeping temporary files in (\S+)", p.stdout)
    tmp = m.group(1) if m else None
    try:
        if p.returncode != 0 or "matches the reference interpreter" not in p.stdout:
            raise RuntimeError(f"{inst}: dspc run failed:\n{p.stdout[-1500:]}")
        names = [os.path.basename(f)[:-4] for f in glob.glob(os.path.join(tmp, "*.npy"))]
        elf = os.path.join(tmp, mangled + ".elf")
        c = subprocess.run([a.count_packets, "--func", mangled, "--", elf] +
                           [f"{n}={os.path.join(tmp, n + '.npy')}" for n in names],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp)
        for line in c.stdout.splitlines()[::-1]:
            f = line.split()
            if len(f) == 2 and f[1] == mangled:
                return int(f[0])
        raise RuntimeError(f"{inst}: no packet count for {mangled}:\n{c.stdout[-1500:]}")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


class HalidePeer:
    """Builds and measures the Halide column: nn_halide.cpp's generator (once), then per op its
    object, bench/harness's program around it, and its packets under count-packets."""

    def __init__(self, a):
        import run as bench_run  # noqa: E402  (bench/run.py: flags, paths, helpers)
        self.r = bench_run
        build_root = os.path.dirname(os.path.abspath(a.dspc))
        self.work = os.path.join(build_root, "bench", "nn_halide")
        os.makedirs(self.work, exist_ok=True)
        self.rt = os.path.join(build_root, "runtime-support", "hexagon-v68", "libdspc_rt.a")
        self.count_packets = a.count_packets
        self.clang = a.clang
        src = os.path.join(HERE, "halide", "nn_halide.cpp")
        self.gen = os.path.join(self.work, "nn_halide")
        if not bench_run.newer(self.gen, src):
            bench_run.run([a.cxx, "-std=c++17", "-O1", f"-I{bench_run.HALIDE_INCLUDE}", src, "-o", self.gen,
                           "-lHalide14", "-lpthread", "-ldl"])
        self.stubs = self.cc(os.path.join(HERE, "harness", "halide_stubs.c"), "halide_stubs.o", [])

    def cc(self, src, obj, flags):
        obj = os.path.join(self.work, obj)
        self.r.run([self.clang] + self.r.HEX_FLAGS + self.r.HARNESS_FLAGS + flags + ["-c", src, "-o", obj])
        return obj

    def packets(self, op):
        k = HALIDE_PEERS[op]
        kobj = os.path.join(self.work, f"{k}.o")
        self.r.run([self.gen, k, kobj])
        define = [f"-DBENCH_KERNEL_{k}", "-DBENCH_NN_OPS"]
        impl = self.cc(os.path.join(HERE, "harness", "impl_halide.c"), f"{k}.impl.o", define + [f"-DBENCH_NAME={k}"])
        elfs = {}
        for what, extra in (("checked", []), ("counted", ["-DBENCH_SKIP_REFERENCE"])):
            harness = self.cc(os.path.join(HERE, "harness", "harness.c"), f"{k}.{what}.harness.o", define + extra)
            elfs[what] = os.path.join(self.work, f"{k}.{what}.elf")
            self.r.run([f"{self.r.LLVM}/ld.lld", "-static", "-e", "_start", harness, impl, kobj, self.stubs, self.rt,
                        "-o", elfs[what]])
        # The check: every output against the scalar reference, under plain qemu-hexagon (fast);
        # the count: the same kernel object without the reference, single-stepped.
        p = subprocess.run([QEMU, "-cpu", "v67", elfs["checked"]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if p.returncode != 0 or "every output matches the reference" not in p.stdout:
            raise RuntimeError(f"{k}: the Halide pipeline's output differs from the reference:\n{p.stdout[-1500:]}")
        elf = elfs["counted"]
        cmd = [sys.executable, self.count_packets, "--json"]
        for f in self.r.text_symbols(kobj):
            cmd += ["--func", f]
        p = subprocess.run(cmd + ["--", elf], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        data = json.loads(p.stdout.strip().splitlines()[-1])
        if data["exit"] != 0 or data["picked"] <= 0:
            raise RuntimeError(f"{k}: the Halide program exited {data['exit']}: {p.stderr.strip()[-1500:]}")
        return data["picked"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--count-packets", help="default: as bench/run.py finds it")
    ap.add_argument("--only")
    ap.add_argument("--json")
    ap.add_argument("--nn", default=os.path.join(ROOT, "schedules", "nn.dsp"), help="the op library's source")
    ap.add_argument("--halide", choices=["auto", "on", "off"], default="auto",
                    help="the Halide column (auto: when /usr/include/halide14 exists)")
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--cxx", default="g++", help="host C++ compiler for the Halide generator")
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    from run import find_count_packets  # noqa: E402  (bench/run.py's search)
    a.count_packets = find_count_packets(a.count_packets)
    rows = [r for r in ops() if not a.only or r[0] in a.only.split(",")]
    use_halide = a.halide == "on" or (a.halide == "auto" and os.path.isdir("/usr/include/halide14"))
    peer = HalidePeer(a) if use_halide and any(r[0] in HALIDE_PEERS for r in rows) else None
    table = []
    print("| op | shape | packets | per 128 outputs | bound | packets / bound | Halide 14 packets | "
          "dspc / Halide | bound counts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for op, args, outputs, bound, how in rows:
        n = packets(a, op, args)
        r = {"op": op, "args": args, "outputs": outputs, "packets": n, "bound": round(bound),
             "ratio": n / bound, "per_128_outputs": 128 * n / outputs, "bound_counts": how}
        hal = "-"
        over = "-"
        if peer and op in HALIDE_PEERS and args == HALIDE_SHAPES[op]:
            r["halide_packets"] = peer.packets(op)
            r["over_halide"] = n / r["halide_packets"]
            hal, over = str(r["halide_packets"]), f"{r['over_halide']:.2f}"
        table.append(r)
        print(f"| {op} | <{','.join(map(str, args))}> | {n} | {r['per_128_outputs']:.2f} | {round(bound)} | "
              f"{r['ratio']:.2f} | {hal} | {over} | {how} |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
