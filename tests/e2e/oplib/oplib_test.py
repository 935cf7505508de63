#!/usr/bin/env python3
"""End-to-end tests of the op library (schedules/*.dsp; README "Imports and the op library").

  python3 tests/e2e/oplib/oplib_test.py --dspc build/dspc --schedules schedules --target T
      [--only conv2d,dense_i8] [--work-dir DIR] [--jobs N]

Two checks per op and shape, each on the given target:
  1. `dspc run FILE --func=OP<...> --random-inputs --check`: the compiled op against dspc's
     reference interpreter, bit for bit;
  2. the op's meaning, against a reference written here in Python from the op's definition
     (TFLite's for requantize, the textbook loops for conv2d, ...): inputs from Python's random
     with a fixed seed, run with --input/--output, compared exactly (softmax: within 1e-5
     relative, as its exp is a polynomial).
Shapes include tiny and odd ones (1, 3, 127, a prime above 128). Exit code 1 on any failure.
"""
import argparse
import concurrent.futures
import math
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import npy_tool  # noqa: E402

I32 = 2 ** 32


def wrap32(v):
    v %= I32
    return v - I32 if v >= 2 ** 31 else v


def out_dim(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def ref_conv2d(I, F, B, S, P, D, H, W, C, R, T, K):
    OH, OW = out_dim(H, R, S, P, D), out_dim(W, T, S, P, D)
    O = []
    for y in range(OH):
        for x in range(OW):
            for k in range(K):
                acc = B[k]
                for r in range(R):
                    yy = y * S + r * D - P
                    if not 0 <= yy < H:
                        continue
                    for t in range(T):
                        xx = x * S + t * D - P
                        if not 0 <= xx < W:
                            continue
                        for c in range(C):
                            acc += I[(yy * W + xx) * C + c] * F[((r * T + t) * C + c) * K + k]
                O.append(wrap32(acc))
    return O


def srdhm(a, b):
    if a == b == -2 ** 31:
        return 2 ** 31 - 1
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    v = ab + nudge
    return int(v / 2 ** 31) if abs(v) < 2 ** 52 else (v // 2 ** 31 if v >= 0 else -((-v) // 2 ** 31))


def rdbpot(x, e):
    mask = (1 << e) - 1
    rem = x & mask
    thr = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if rem > thr else 0)


def requant(acc, q):
    m, shift, zp = q
    x = srdhm(wrap32(acc << max(shift, 0)), m)
    return max(0, min(255, wrap32(rdbpot(x, max(-shift, 0)) + zp)))


def rnd(rng, dtype, n):
    lo, hi = {"u8": (0, 255), "i8": (-128, 127), "i32": (-2 ** 31, 2 ** 31 - 1)}[dtype]
    return [rng.randint(lo, hi) for _ in range(n)]


# Each case: (file, op, args, inputs [(name, dtype, shape, values)], output (name, dtype),
# reference() -> list or None (then the interpreter check only), float tolerance or None).
def cases(rng):
    out = []

    def conv(S, P, D, H, W, C, R, T, K, requantized=False):
        I, F, B = rnd(rng, "u8", H * W * C), rnd(rng, "i8", R * T * C * K), [rng.randint(-5000, 5000) for _ in range(K)]
        ins = [("I", "u8", [H, W, C], I), ("F", "i8", [R, T, C, K], F), ("B", "i32", [K], B)]
        acc = lambda: ref_conv2d(I, F, B, S, P, D, H, W, C, R, T, K)  # noqa: E731
        args = [S, P, D, H, W, C, R, T, K]
        if not requantized:
            out.append(("nn", "conv2d", args, ins, ("O", "i32"), acc, None))
        else:
            q = [rng.randint(2 ** 30, 2 ** 31 - 1), rng.randint(-12, -6), rng.randint(0, 255)]
            out.append(("nn", "conv2d_requant", args, ins + [("q", "i32", [3], q)], ("O", "u8"),
                        lambda: [requant(a, q) for a in acc()], None))

    conv(1, 1, 1, 8, 8, 8, 3, 3, 32)
    conv(1, 0, 1, 1, 1, 3, 1, 1, 1)
    conv(2, 1, 1, 9, 7, 5, 3, 3, 3)
    conv(1, 2, 2, 7, 11, 4, 3, 3, 64)
    conv(2, 0, 1, 131, 3, 1, 3, 1, 2)
    conv(1, 1, 1, 6, 6, 16, 3, 3, 32, requantized=True)
    conv(2, 1, 2, 9, 9, 3, 3, 3, 5, requantized=True)

    for n in [1, 3, 127, 131, 300]:
        A = rnd(rng, "i32", n) + [-2 ** 31, 2 ** 31 - 1, 0, -1, 1, -12345][:0]
        A[: min(n, 3)] = [-2 ** 31, 2 ** 31 - 1, -7][: min(n, 3)]
        for q in ([2 ** 31 - 1, 0, 0], [1518500250, -5, 128], [-2 ** 31, 0, 3], [1073741824, 3, 255], [1431655765, -31, 17]):
            out.append(("nn", "requantize", [n], [("A", "i32", [n], A), ("q", "i32", [3], q)], ("O", "u8"),
                        (lambda A=A, q=q: [requant(a, q) for a in A]), None))

    def dense(M, K, N, signed):
        A, Bv = rnd(rng, "u8", M * K), rnd(rng, "i8" if signed else "u8", K * N)
        ref = lambda: [(wrap32 if signed else (lambda v: v % I32))(sum(A[m * K + k] * Bv[k * N + n] for k in range(K)))  # noqa: E731
                       for m in range(M) for n in range(N)]
        out.append(("nn", "dense_i8" if signed else "dense_u8", [M, K, N],
                    [("A", "u8", [M, K], A), ("B", "i8" if signed else "u8", [K, N], Bv)],
                    ("C", "i32" if signed else "u32"), ref, None))

    for M, K, N, signed in [(1, 1, 1, 0), (3, 7, 5, 1), (16, 64, 128, 0), (16, 64, 128, 1), (5, 131, 33, 1), (2, 256, 127, 0)]:
        dense(M, K, N, signed)

    def dw(S, P, D, H, W, C, R, T):
        I, F, B = rnd(rng, "u8", H * W * C), rnd(rng, "i8", R * T * C), [rng.randint(-999, 999) for _ in range(C)]
        OH, OW = out_dim(H, R, S, P, D), out_dim(W, T, S, P, D)

        def ref():
            o = []
            for y in range(OH):
                for x in range(OW):
                    for c in range(C):
                        acc = B[c]
                        for r in range(R):
                            for t in range(T):
                                yy, xx = y * S + r * D - P, x * S + t * D - P
                                if 0 <= yy < H and 0 <= xx < W:
                                    acc += I[(yy * W + xx) * C + c] * F[(r * T + t) * C + c]
                        o.append(wrap32(acc))
            return o
        out.append(("nn", "depthwise_conv2d", [S, P, D, H, W, C, R, T],
                    [("I", "u8", [H, W, C], I), ("F", "i8", [R, T, C], F), ("B", "i32", [C], B)], ("O", "i32"), ref, None))

    dw(1, 1, 1, 9, 9, 64, 3, 3)
    dw(2, 0, 1, 7, 5, 3, 3, 3)
    dw(1, 2, 2, 1, 1, 131, 3, 3)
    # The padded copy Ip runs over x and c as one index (schedules/nn.dsp): channel counts that
    # divide 128 (vector copy, its edges of P pixels scalar) and ones that do not, padding 0
    # and 2, stride 2, dilation 2, rows shorter than a vector.
    dw(1, 1, 1, 5, 7, 32, 3, 3)
    dw(1, 1, 1, 4, 3, 128, 3, 3)
    dw(2, 2, 1, 6, 5, 64, 3, 3)
    dw(1, 0, 1, 4, 4, 16, 3, 3)
    dw(1, 1, 2, 7, 6, 64, 3, 3)
    dw(2, 1, 1, 5, 5, 200, 3, 3)
    dw(1, 1, 1, 3, 3, 1, 2, 3)

    def pool(kind, KS, S, P, H, W, C):
        I = rnd(rng, "u8", H * W * C)
        OH, OW = (H + 2 * P - KS) // S + 1, (W + 2 * P - KS) // S + 1

        def ref():
            o = []
            for y in range(OH):
                for x in range(OW):
                    for c in range(C):
                        vals = [I[(yy * W + xx) * C + c] for yy in range(y * S - P, y * S - P + KS)
                                for xx in range(x * S - P, x * S - P + KS) if 0 <= yy < H and 0 <= xx < W]
                        o.append(max(vals) if kind == "maxpool" else (sum(vals) + len(vals) // 2) // len(vals))
            return o
        out.append(("nn", kind, [KS, S, P, H, W, C], [("I", "u8", [H, W, C], I)], ("O", "u8"), ref, None))

    for kind in ["maxpool", "avgpool"]:
        pool(kind, 2, 2, 0, 8, 8, 64)
        pool(kind, 3, 2, 1, 9, 7, 3)
        pool(kind, 3, 1, 1, 1, 1, 131)
        pool(kind, 2, 2, 0, 127, 3, 1)
        # Fewer channels than a vector: the vectorizer fuses x and c (passes/Vectorize.cpp).
        # Rows of 448 bytes (unaligned), an odd output width (the last pair shifted inwards),
        # 32 and 16 channels (4 and 8 pixels per vector), padding (clamped reads).
        pool(kind, 2, 2, 0, 7, 7, 64)
        pool(kind, 2, 2, 0, 6, 10, 32)
        pool(kind, 2, 2, 0, 4, 9, 16)
        pool(kind, 3, 2, 1, 9, 9, 64)
        pool(kind, 3, 1, 1, 5, 6, 64)
    # avgpool's 16-bit sum and division (schedules/nn.dsp): windows of one element (count 1,
    # whose reciprocal needs the full 16 bits), a corner of count 1 (2 x 2 window, padding 1),
    # the largest window (16 x 16, count 256), channel counts that do not divide 128 (column
    # sums V not vectorized), 128 and 192 channels.
    pool("avgpool", 1, 1, 0, 3, 5, 7)
    pool("avgpool", 2, 1, 1, 4, 5, 65)
    pool("avgpool", 16, 16, 0, 16, 16, 2)
    pool("avgpool", 16, 1, 8, 3, 17, 1)
    pool("avgpool", 3, 2, 1, 5, 4, 200)
    pool("avgpool", 3, 1, 1, 4, 3, 128)
    pool("avgpool", 2, 1, 0, 3, 3, 192)

    for N, M in [(1, 1), (3, 10), (2, 131)]:
        A = [rng.uniform(-20, 20) for _ in range(N * M)]

        def ref(A=A, N=N, M=M):
            o = []
            for n in range(N):
                row = A[n * M:(n + 1) * M]
                mx = max(row)
                e = [math.exp(v - mx) for v in row]
                s = sum(e)
                o += [v / s for v in e]
            return o
        out.append(("nn", "softmax", [N, M], [("A", "f32", [N, M], A)], ("O", "f32"), ref, 1e-5))

    # The image stencils are the bench kernels at other shapes: against the interpreter only
    # (bench/ checks them against a scalar C reference).
    for op in ["conv3x3a16", "gaussian5x5", "dilate3x3", "median3x3", "sobel"]:
        for h, w in [(1, 1), (3, 127), (7, 131), (2, 300)]:
            out.append(("image", op, [h, w], [], None, None, None))

    for n in [1, 3, 127, 131]:
        A, B = rnd(rng, "u8", n), rnd(rng, "u8", n)
        out.append(("elementwise", "add_u8", [n], [("A", "u8", [n], A), ("B", "u8", [n], B)], ("C", "u8"),
                    (lambda A=A, B=B: [(a + b) % 256 for a, b in zip(A, B)]), None))
        X = rnd(rng, "i32", n)
        out.append(("elementwise", "cast_i32_u8", [n], [("A", "i32", [n], X)], ("C", "u8"),
                    (lambda X=X: [max(0, min(255, v)) for v in X]), None))
        out.append(("elementwise", "relu_u8", [128, n], [("A", "u8", [n], A)], ("C", "u8"),
                    (lambda A=A: [max(v, 128) for v in A]), None))
        out.append(("elementwise", "mul_i32", [n], [("A", "i32", [n], X), ("B", "i32", [n], X[::-1])], ("C", "i32"),
                    (lambda X=X: [wrap32(a * b) for a, b in zip(X, X[::-1])]), None))

    # qnn.dsp's convolutions with the exact requantization: ONNX's f32 one, fl32(fl32(acc) * q)
    # rounded half to even, plus the zero point, clamped (the ONNX importer's arguments for q).
    def qnn_conv(op, S, P, D, H, W, C, R, T, K):
        I, F = rnd(rng, "u8", H * W * C), [rng.randint(-40, 40) for _ in range(R * T * C * K)]
        B = [rng.randint(-3000, 30000) for _ in range(K)]
        q = f32(rng.uniform(2 ** -12, 2 ** -9))
        zy = rng.randint(0, 40)
        frac, e = math.frexp(q)
        E = 24 - e
        Kq = min(E + 7, 47)
        m = int(math.ldexp(frac, 24)) << (Kq - E)
        args = [S, P, D, H, W, C, R, T, K, m // 2, Kq - 32, 1 << (Kq - 33), Kq - 25, zy]
        ins = [("I", "u8", [H, W, C], I), ("F", "i8", [R, T, C, K], F), ("B", "i32", [K], B)]
        acc = lambda: ref_conv2d(I, F, B, S, P, D, H, W, C, R, T, K)  # noqa: E731
        out.append(("qnn", op, args, ins, ("O", "u8"),
                    lambda: [max(0, min(255, round(f32(f32(a) * q)) + zy)) for a in acc()], None))

    for shape in [(2, 1, 1, 17, 19, 3, 3, 3, 8), (1, 0, 1, 13, 7, 8, 1, 1, 16), (2, 1, 1, 9, 11, 5, 3, 3, 12),
                  (1, 2, 2, 10, 9, 6, 3, 3, 5), (3, 1, 1, 14, 13, 2, 3, 2, 7), (1, 1, 1, 5, 70, 4, 3, 3, 31)]:
        qnn_conv("conv2d_requant_exact_narrow", *shape)
    for shape in [(1, 0, 1, 9, 7, 16, 1, 1, 32), (1, 0, 1, 4, 5, 64, 1, 1, 128), (2, 1, 1, 9, 11, 5, 3, 3, 40)]:
        qnn_conv("conv2d_requant_exact", *shape)
    return out


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    return p.returncode, p.stdout


def one(a, idx, case):
    file, op, args, ins, output, ref, tol = case
    inst = f"{op}<{','.join(map(str, args))}>"
    src = os.path.join(a.schedules, file + ".dsp")
    base = [a.dspc, "run", src, f"--func={inst}", f"--target={a.target}"]
    problems = []
    # 1. Against the interpreter (dspc's random inputs).
    if (file, op) not in a.checked:
        rc, out = run(base + ["--random-inputs", "--check"])
        if rc != 0 or "matches the reference interpreter" not in out:
            problems.append(f"--check failed (exit {rc}):\n{out[-2000:]}")
    if ref is None:  # checked against the interpreter only
        return inst, problems
    # 2. Against the Python reference.
    d = os.path.join(a.work_dir, f"{idx}-{op}")
    os.makedirs(d, exist_ok=True)
    cmd = list(base)
    for name, dtype, shape, values in ins:
        path = os.path.join(d, name + ".npy")
        npy_tool.write(path, dtype, shape, values)
        cmd += ["--input", f"{name}={path}"]
    oname = output[0]
    opath = os.path.join(d, oname + ".npy")
    rc, out = run(cmd + ["--output", f"{oname}={opath}"])
    if rc != 0:
        problems.append(f"run failed (exit {rc}):\n{out[-2000:]}")
    else:
        got = npy_tool.values(npy_tool.read(opath))
        want = ref()
        if len(got) != len(want):
            problems.append(f"{len(got)} elements, the reference has {len(want)}")
        else:
            bad = [i for i, (g, w) in enumerate(zip(got, want))
                   if (g != w if tol is None else not abs(g - w) <= tol * max(abs(w), 1e-30))]
            if bad:
                i = bad[0]
                problems.append(f"{len(bad)} of {len(want)} elements differ from the Python reference; "
                                f"element {i} is {got[i]}, the reference {want[i]}")
    return inst, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--schedules", required=True)
    ap.add_argument("--target", default="hexagon-v68")
    ap.add_argument("--only", help="comma-separated op names")
    ap.add_argument("--work-dir", default="oplib-work")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    a.checked = set()
    all_cases = cases(random.Random(7))
    if a.only:
        keep = set(a.only.split(","))
        all_cases = [c for c in all_cases if c[1] in keep]
    # --check once per op and shape is enough; the Python reference runs for every case.
    seen, checked = set(), set()
    for c in all_cases:
        key = (c[0], c[1], tuple(c[2]))
        if key in seen:
            checked.add(id(c))
        seen.add(key)
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = []
        for idx, c in enumerate(all_cases):
            b = argparse.Namespace(**vars(a))
            b.checked = {(c[0], c[1])} if id(c) in checked else set()
            futures.append(pool.submit(one, b, idx, c))
        for f in futures:
            inst, problems = f.result()
            if problems:
                failures += 1
                print(f"FAIL {inst} on {a.target}: " + "\n  ".join(problems))
            else:
                print(f"ok   {inst} on {a.target}")
    print(f"oplib: {len(all_cases)} cases on {a.target}, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
