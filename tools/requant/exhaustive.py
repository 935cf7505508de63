"""Exhaustive check of qnn.dsp's exact requantization (docs/requant.md, design C3) against numpy's
f32: for each multiplier q, EVERY accumulator |acc| < 2^24 whose result is not saturated for all
zero points (|acc q| <= 600; beyond, the formula's R1 is past +-512 and R is R1 or R1 - 1, so it
saturates like the reference: checked too, on the range's ends), for a set of zero points.

The formula is evaluated as the .dsp lines compute it, op by op in 32-bit lanes (numpy int64
holding i32 values, wrapped after each operation), from the importer's generic arguments
{MH, SH, CA, WS, ZY} (compiler/onnx/OnnxQuant.cpp, exact_requantization).

  /usr/bin/python3 tools/requant/exhaustive.py [--random N] [--seed S] [--exponents 26-46]
      [--zy 0,1,77,128,255] [--formula c3|c2]

Multipliers: for every exponent E in the range (q = M 2^-E, 2^23 <= M < 2^24; the importer takes
26 <= E <= 46), the mantissas 2^23 (powers of two: exact ties everywhere), 3 2^22, 5 2^21, 2^24 - 1,
2^23 + 1, those of fl32(1/n) for n = 3, 1524, 2032, 4064, 8128 (MobileNet's), and N random ones.
Exit status 1 on any difference.
"""
import argparse
import sys

import numpy as np

M32 = (1 << 32) - 1


def wrap(x):
    """i32 wrap-around of an int64 array."""
    return ((x + (1 << 31)) & M32) - (1 << 31)


def clz32(x):
    """count_leading_zeros of an i32 array (its two's complement bits)."""
    u = (x & M32).astype(np.float64)
    _, e = np.frexp(u)           # u = f 2^e, f in [1/2, 1); frexp(0) = (0, 0)
    return 32 - e.astype(np.int64)


def args_for(q):
    """The importer's {MH, SH, CA, WS} for an f32 multiplier q (None if it refuses q)."""
    f, e = np.frexp(np.float64(q))
    M = int(np.ldexp(f, 24))
    E = 24 - int(e)
    if E < 26 or E > 46:
        return None
    K = min(E + 7, 47)
    m = M << (K - E)
    return m // 2, K - 32, 1 << (K - 33), K - 25


def hi_word(acc, MH):
    """i32(clamp((i64(acc) * i64(MH) + 2^30) >> 31, i32 range)): the rounding doubled
    multiply-high (vmpye + vmpyo:<<1:rnd:sat)."""
    return np.clip((acc * MH + (1 << 30)) >> 31, -(1 << 31), (1 << 31) - 1)


def c3(acc, MH, SH, CA, WS, ZY):
    """Design C3 (qnn.dsp's lines Hi, V, Wb, Lo, Rq), before the clamp: R + ZY."""
    Hi = wrap(hi_word(acc, MH) + (CA + (ZY << SH)))                 # (R1 + ZY) 2^SH when near
    V = wrap(((((2 * ZY + 1) << WS) - 1) - ((CA + (ZY << SH)) << 8)) - wrap(hi_word(acc, MH) << 8))
    #   = ((2 ZY + 1) 2^WS - 1) - (Hi << 8) mod 2^32: ~((2 R1 - 1) 2^WS) when near
    n = clz32(wrap(np.abs(V)) | (1 << WS))                          # abs(-2^31) = -2^31
    W = wrap((1 << 31) >> n)                                        # u32(2^31) >> n: 2^WS hb(|2 R1 - 1|)
    Pn = wrap(V << (30 - WS)) >> 31                                 # -1 iff R1 odd (bit 1 of 2 R1 - 1)
    Wb = W ^ Pn                                                     # ~T: T = W if R1 is odd, else ~W
    Lo = wrap(acc * (2 * MH))                                       # t's low word - 2^31
    m = ((Lo + Wb) >> 1) >> 31                                      # vavg: -1 iff Lo - T - 1 < 0
    return wrap(Hi + m) >> SH


def c2(acc, MH, SH, CA, WS, ZY):
    """Design C2 as qnn.dsp wrote it before C3 (lines Hi, R1, V, Wb, Lo, Rq), unclamped."""
    Hi = wrap(hi_word(acc, MH) + CA)
    R1 = Hi >> SH
    V = np.minimum(np.abs(wrap(2 * R1 - 1)), 511)
    Wb = (1 << (WS + 31 - clz32(V))) & M32
    Lo = (wrap(acc * (2 * MH)) + (1 << 31)) & M32
    q = ((Hi & ((1 << SH) - 1)) == 0) & (Lo <= (1 << 31) + Wb) & ((Lo < (1 << 31) - Wb) | ((R1 & 1) == 1))
    return R1 - q.astype(np.int64) + ZY


FORMULAS = {"c3": c3, "c2": c2}


def check(q, formula, zys, chunk=1 << 22):
    """(accumulators checked, differences) for multiplier q over every zero point in zys."""
    a = args_for(q)
    MH, SH, CA, WS = a
    qf = np.float32(q)
    n = min((1 << 24) - 1, int(600 / float(qf)) + 2)
    bad = []
    for zy in zys:
        for s in range(-n, n + 1, chunk):
            acc = np.arange(s, min(s + chunk, n + 1), dtype=np.int64)
            want = np.clip(np.rint(acc.astype(np.float32) * qf).astype(np.int64) + zy, 0, 255)
            got = np.clip(formula(acc, MH, SH, CA, WS, zy), 0, 255)
            d = np.nonzero(want != got)[0]
            if len(d):
                bad += [(float(qf), zy, int(acc[i]), int(want[i]), int(got[i])) for i in d[:3]]
        if n < (1 << 24) - 1:   # the range's ends, saturated
            acc = np.array([-(1 << 24) + 1, -n - 1, n + 1, (1 << 24) - 1], dtype=np.int64)
            want = np.clip(np.rint(acc.astype(np.float32) * qf).astype(np.int64) + zy, 0, 255)
            got = np.clip(formula(acc, MH, SH, CA, WS, zy), 0, 255)
            bad += [(float(qf), zy, int(x), int(w), int(g)) for x, w, g in zip(acc, want, got) if w != g]
    return (2 * n + 1) * len(zys), bad


def multipliers(exponents, nrandom, seed):
    rng = np.random.default_rng(seed)
    mants = [1 << 23, 3 << 22, 5 << 21, (1 << 24) - 1, (1 << 23) + 1]
    for d in (3, 1524, 2032, 4064, 8128):
        f, _ = np.frexp(np.float64(np.float32(1.0 / d)))
        mants.append(int(np.ldexp(f, 24)))
    out = []
    for E in exponents:
        ms = mants + [int(x) for x in rng.integers(1 << 23, 1 << 24, size=nrandom)]
        out += [np.float32(np.ldexp(np.float64(M), -E)) for M in ms]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--random", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exponents", default="26-46")
    ap.add_argument("--zy", default="0,1,77,128,255")
    ap.add_argument("--formula", default="c3", choices=sorted(FORMULAS))
    ap.add_argument("--mantissas", default="", help="comma-separated 24-bit mantissas instead of the set above")
    args = ap.parse_args()
    lo, _, hi = args.exponents.partition("-")
    exps = range(int(lo), int(hi or lo) + 1)
    zys = [int(z) for z in args.zy.split(",")]
    f = FORMULAS[args.formula]
    tot, nq, bad = 0, 0, []
    qs = multipliers(exps, args.random, args.seed)
    if args.mantissas:
        qs = [np.float32(np.ldexp(float(int(M)), -E)) for E in exps for M in args.mantissas.split(",")]
    for q in qs:
        if args_for(q) is None:
            continue
        n, b = check(q, f, zys)
        tot += n
        nq += 1
        bad += b
        if b:
            print("q = %r (2^%.2f): %d differences, e.g. %s" % (float(q), np.log2(float(q)), len(b), b[:3]), flush=True)
    print("%s: %d multipliers, %d (accumulator, zero point) pairs, %d differences" % (args.formula, nq, tot, len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
