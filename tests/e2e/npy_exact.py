#!/usr/bin/env python3
"""Runs programs on hand-written .npy inputs and checks the saved outputs against values computed
here, in Python, with no help from dspc's reference interpreter.

  npy_exact.py --dspc build/dspc --target hexagon-v68 --source-dir . --work-dir /tmp/x

1. examples/alloc_vtcm.dsp: A and B chosen to wrap (127 + 1, -128 + -1, ...); C must be the
   wrapped i8 sum, in a .npy file with descr '|i1' and shape (2048,).
2. tests/e2e/exact/mix.dsp: i64/u16/f32/bool inputs of rank 1 and 2, results of five dtypes
   (one transposed), floor division and modulo, precedence (`B - 1 << 2 | 1`), wrapping casts.
Exits 1 on the first difference, printing the element, what dspc wrote and what was expected.
numpy is not needed: the .npy files are written and parsed by npy_tool.py.
"""
import argparse
import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_tool import CODE, DESCR, read, write  # noqa: E402


def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def run(cmd):
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=280)
    sys.stdout.write(r.stdout)
    sys.stdout.write(r.stderr)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: exit code {r.returncode}")


def expect(path, dtype, shape, want):
    descr, got_shape, raw, _ = read(path)
    if descr != DESCR[dtype]:
        raise SystemExit(f"FAIL: {path}: descr {descr!r}, expected {DESCR[dtype]!r}")
    if got_shape != tuple(shape):
        raise SystemExit(f"FAIL: {path}: shape {got_shape}, expected {tuple(shape)}")
    n = len(want)
    size = struct.calcsize("<" + CODE[dtype])
    if len(raw) != n * size:
        raise SystemExit(f"FAIL: {path}: {len(raw)} data bytes, expected {n * size}")
    got = struct.unpack("<%d%s" % (n, CODE[dtype]), raw)
    expected_raw = struct.pack("<%d%s" % (n, CODE[dtype]), *want)
    if raw != expected_raw:
        bad = [k for k in range(n) if raw[k * size:(k + 1) * size] != expected_raw[k * size:(k + 1) * size]]
        for k in bad[:5]:
            print(f"  {os.path.basename(path)}[flat {k}] is {got[k]!r}, expected {want[k]!r}")
        raise SystemExit(f"FAIL: {path}: {len(bad)} of {n} elements differ")
    print(f"ok: {os.path.basename(path)} ({n} x {dtype}) is exactly as expected")


def alloc_vtcm(a, w):
    n = 2048
    A = [wrap(k * 37 + 11, 8, True) for k in range(n)]
    B = [wrap(k * 101 - 7, 8, True) for k in range(n)]
    A[:6] = [127, -128, -128, 127, 0, -1]
    B[:6] = [1, -1, -128, 127, -128, 1]
    write(os.path.join(w, "A.npy"), "i8", [n], A)
    write(os.path.join(w, "B.npy"), "i8", [n], B)
    out = os.path.join(w, "C.npy")
    if os.path.exists(out):
        os.remove(out)
    run([a.dspc, "run", os.path.join(a.source_dir, "examples", "alloc_vtcm.dsp"), f"--target={a.target}",
         "--input", f"A={w}/A.npy", "--input", f"B={w}/B.npy", "--output", f"C={out}"])
    expect(out, "i8", [n], [wrap(x + y, 8, True) for x, y in zip(A, B)])


def mix(a, w):
    A = [-(1 << 63), (1 << 63) - 1, -7, -1, 0, 1, 7, 100, -100, 12345678901, -12345678901, 3]
    B = [0, 1, 2, 255, 256, 257, 16383, 16384, 32768, 65534, 65535, 4660]
    F = [0.5, -1.5, 3.25, -0.0, 100.125]
    P = [True, False, True, False, False]
    write(os.path.join(w, "mA.npy"), "i64", [3, 4], A)
    write(os.path.join(w, "mB.npy"), "u16", [3, 4], B)
    write(os.path.join(w, "mF.npy"), "f32", [5], F)
    write(os.path.join(w, "mP.npy"), "bool", [5], P)
    outs = {k: os.path.join(w, f"m{k}.out.npy") for k in "STGQR"}
    for path in outs.values():
        if os.path.exists(path):
            os.remove(path)
    cmd = [a.dspc, "run", os.path.join(a.source_dir, "tests", "e2e", "exact", "mix.dsp"), f"--target={a.target}"]
    for name in "ABFP":
        cmd += ["--input", f"{name}={w}/m{name}.npy"]
    for name, path in outs.items():
        cmd += ["--output", f"{name}={path}"]
    run(cmd)
    S = [wrap(x // 3 + (x % 5) * 2 - (x >> 2), 64, True) for x in A]
    T = [0] * 12
    for i in range(3):
        for j in range(4):
            b = B[i * 4 + j]
            T[j * 3 + i] = ((((b - 1) & 0xFFFF) << 2) & 0xFFFF) | 1
    G = [f * 0.5 + 1.0 for f in F]
    Q = [(p and f > 0.0) or (not p and f < -1.0) for p, f in zip(P, F)]
    R = [wrap(wrap(x, 8, True) + wrap(y, 8, True), 8, True) for x, y in zip(A, B)]
    expect(outs["S"], "i64", [3, 4], S)
    expect(outs["T"], "u16", [4, 3], T)
    expect(outs["G"], "f64", [5], G)
    expect(outs["Q"], "bool", [5], Q)
    expect(outs["R"], "i8", [3, 4], R)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--target", default="hexagon-v68")
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    a = ap.parse_args()
    os.makedirs(a.work_dir, exist_ok=True)
    alloc_vtcm(a, a.work_dir)
    mix(a, a.work_dir)
    print("npy-exact: all outputs exact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
