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
    p = subprocess.run([a.dspc, "run", os.path.join(ROOT, "schedules", "nn.dsp"), f"--func={inst}",
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--count-packets", help="default: as bench/run.py finds it")
    ap.add_argument("--only")
    ap.add_argument("--json")
    a = ap.parse_args()
    sys.path.insert(0, HERE)
    from run import find_count_packets  # noqa: E402  (bench/run.py's search)
    a.count_packets = find_count_packets(a.count_packets)
    rows = [r for r in ops() if not a.only or r[0] in a.only.split(",")]
    table = []
    print("| op | shape | packets | per 128 outputs | bound | packets / bound | bound counts |")
    print("|---|---|---|---|---|---|---|")
    for op, args, outputs, bound, how in rows:
        n = packets(a, op, args)
        r = {"op": op, "args": args, "outputs": outputs, "packets": n, "bound": round(bound),
             "ratio": n / bound, "per_128_outputs": 128 * n / outputs, "bound_counts": how}
        table.append(r)
        print(f"| {op} | <{','.join(map(str, args))}> | {n} | {r['per_128_outputs']:.2f} | {round(bound)} | "
              f"{r['ratio']:.2f} | {how} |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
