#!/usr/bin/env python3
"""Per-node packets of an imported ONNX model on hexagon-v68, against each op's resource bound.

  onnx_profile.py --dspc build/dspc MODEL.onnx [--count-packets PATH] [--json FILE]

Imports the model (`dspc MODEL --emit=dsp`), then runs each call of its graph on its own as
`dspc run PROGRAM --func='F<...>' --random-inputs` for hexagon-v68 and counts the packets the
kernel executes with count-packets (bench/README.md, "Which packets count"), as
bench/nn_bench.py does for the op library. Prints, like TVM's debug executor, one row per node:
packets, share of the total, the op's resource bound (HVX: a packet holds one load, one store and
two other vector instructions; vrmpy multiplies 128 byte pairs) and packets / bound. The total is
the sum of the nodes' packets (the group function only calls them).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bound(func, targs):
    """The resource bound in packets of one call, and how it is reached."""
    a = targs
    if func.startswith(("qlinear_conv2d", "conv2d_integer")):
        g, sh, sw, pt, pl, pb, pr, dh, dw, n, h, w, c, kh, kw, cg, k = a
        oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
        ow = (w + pl + pr - dw * (kw - 1) - 1) // sw + 1
        macs = n * oh * ow * k * kh * kw * cg
        if cg == 1 and g == c:  # depthwise: 16-bit products, 64 per multiply-add, 2 per packet
            return macs / 128, "depthwise MACs / 128"
        return max(macs / 256, n * oh * ow * k / 128), "MACs / 256 (vrmpy)"
    if func.startswith("gemm_f32"):
        m, kk, nn = a[0], a[1], a[2]
        return m * kk * nn / 64, "MACs / 64 (f32 lanes)"
    # The tensor the op reads: the second half of a reduction's <M..., A...>, the first half of
    # (de)quantize's <A..., S...>, all of a transpose's or an elementwise op's shape.
    shape = a[len(a) // 2:] if func.startswith("reduce") else a[:len(a) // 2] if "quantize" in func else a
    elements = 1
    for e in shape:
        elements *= e
    return elements / 128, "elements / 128"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("model")
    ap.add_argument("--count-packets", default=os.path.join(ROOT, "tools", "count-packets"),
                    help="default: the repository's tools/count-packets")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    dsp = subprocess.run([args.dspc, args.model, "--emit=dsp"], capture_output=True, text=True, check=True).stdout
    calls = re.findall(r"^  (\w+) = (\w+)<([0-9, ]+)>\((.*?)\)(?:  # (.*))?$", dsp, re.M)
    rows = []
    with tempfile.TemporaryDirectory(prefix="dspc-profile-") as tmp:
        program = os.path.join(tmp, "model.dsp")
        with open(program, "w") as f:
            f.write(dsp)
        cache = {}
        for out, func, targs, _, comment in calls:
            targs = [int(x) for x in targs.split(",")]
            key = (func, tuple(targs))
            if key not in cache:
                inst = "%s<%s>" % (func, ",".join(map(str, targs)))
                mangled = "%s_%s" % (func, "_".join(map(str, targs)))
                work = tempfile.mkdtemp(dir=tmp)
                r = subprocess.run([args.dspc, "run", program, "--func=" + inst, "--target=hexagon-v68", "--random-inputs",
                                    "--keep-temps"], capture_output=True, text=True, cwd=work)
                m = re.search(r"keeping temporary files in (\S+)", r.stderr)
                if r.returncode != 0 or not m:
                    sys.exit("%s: dspc run failed:\n%s" % (inst, r.stderr[-2000:]))
                kept = m.group(1)
                names = [f[:-4] for f in os.listdir(kept) if f.endswith(".npy")]
                c = subprocess.run([args.count_packets, "--func", mangled, "--", os.path.join(kept, mangled + ".elf")] +
                                   ["%s=%s" % (n, os.path.join(kept, n + ".npy")) for n in names],
                                   capture_output=True, text=True, cwd=kept)
                packets = None
                for line in c.stdout.splitlines()[::-1]:
                    f = line.split()
                    if len(f) == 2 and f[1] == mangled:
                        packets = int(f[0])
                        break
                if packets is None:
                    sys.exit("%s: no packet count:\n%s%s" % (inst, c.stdout[-1500:], c.stderr[-1500:]))
                subprocess.run(["rm", "-rf", kept])
                cache[key] = packets
            b, how = bound(func, targs)
            rows.append({"node": comment or out, "func": func, "packets": cache[key], "bound": b, "bound_is": how})
    total = sum(r["packets"] for r in rows)
    total_bound = sum(r["bound"] for r in rows)
    print("%-40s %-28s %12s %7s %12s %8s" % ("node", "func", "packets", "share", "bound", "x bound"))
    for r in rows:
        print("%-40s %-28s %12d %6.1f%% %12.0f %8.1f" % (r["node"][:40], r["func"][:28], r["packets"],
                                                         100.0 * r["packets"] / total, r["bound"],
                                                         r["packets"] / max(r["bound"], 1)))
    print("%-40s %-28s %12d %6.1f%% %12.0f %8.1f" % ("total (%d nodes)" % len(rows), "", total, 100.0, total_bound,
                                                     total / max(total_bound, 1)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "total_packets": total, "total_bound": total_bound}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
