#!/usr/bin/env python3
"""examples/models/make_mobilenet.py's network through dspc run (docs/onnx.md, "A real network").

  mobilenet_test.py --dspc build/dspc --work-dir DIR --form qlinear|qdq --target hexagon-v68

Writes the model, runs `dspc run MODEL --random-inputs --check` and requires the run to be
bit-exact against the reference interpreter in one device round trip per inference (none on the
host, in-process).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--form", default="qlinear")
    ap.add_argument("--target", default="hexagon-v68")
    args = ap.parse_args()
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "examples", "models", "make_mobilenet.py"),
                    "--out", args.work_dir], check=True, stdout=subprocess.DEVNULL)
    model = os.path.join(args.work_dir, "mobilenet_%s.onnx" % args.form)
    r = subprocess.run([args.dspc, "run", model, "--target", args.target, "--random-inputs", "--check",
                        "--output", "logits=" + os.path.join(args.work_dir, "logits.npy")],
                       capture_output=True, text=True, timeout=1800)
    sys.stderr.write(r.stderr)
    trips = "0 device round trips" if args.target == "host" else "1 device round trip"
    ok = (r.returncode == 0 and "check: logits matches the reference interpreter (1000 elements)" in r.stderr
          and trips + " per inference" in r.stderr)
    print("mobilenet %s on %s: %s" % (args.form, args.target, "ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
