"""Design C: exact integer emulation of ONNX's f32 requantization (no per-channel search).

R = rne(fl32(fl32(acc) * Q)) equals the single rounding of the exact product x = fl32(acc) Q
(half up), except inside the 'fat tie' band |x - h| <= ulp(h)/2 around each half-integer h, where
fl32 lands on h and rne picks the even neighbour. Work on |acc| (rne and fl32 are symmetric).
"""
import math
import sys

import numpy as np

import rq


def params(Q):
    """Per-channel constants: m, K (m = Q 2^K exactly, m < 2^31, 32 <= K <= 47), c1 = 2^(K-17)."""
    M, E = rq.q_parts(Q)
    K = min(E + 7, 47)
    if K < E or K < 32:
        return None           # Q < 2^-24 or Q >= 2^-1: not handled here
    m = M << (K - E)
    assert m < (1 << 31) and m * 2.0 ** -K == float(Q)
    return dict(m=m, K=K, c1=1 << (K - 17))


def f32_round_int(a):
    """fl32(a) for an integer a >= 0, in integers (HVX: vnormamt, vsub, vmax, shifts; RNE)."""
    n = max(a.bit_length() - 24, 0)
    if n == 0:
        return a
    q = (a + (1 << (n - 1)) - 1 + ((a >> n) & 1)) >> n
    return q << n


def requant_c(acc, p, zy, tmin, tmax):
    """The HVX sequence, op by op, in Python ints."""
    m, K, c1 = p["m"], p["K"], p["c1"]
    s = K - 32
    neg = acc < 0                                   # vcmp.gt(0, acc)
    a = -acc if neg else acc                        # vabs
    a = f32_round_int(a)                            # only when the layer's |acc| can reach 2^24
    assert a < (1 << 31)
    ml, mh = m & 0xFFFF, m >> 16
    h0 = ((a * ml) >> 16) + c1                      # vmpyewuh_64 ; vadd (high word)
    lo_half = (a * ml) & 0xFFFF
    prod = a * mh + h0                              # vmpyowh_64_acc
    hi = prod >> 16
    lo = ((prod & 0xFFFF) << 16) | lo_half
    assert (hi << 32) + lo == a * m + (1 << (K - 1))
    R0 = hi >> s                                    # vlsr (per-lane s)
    fh = hi & ((1 << s) - 1)                        # vand
    # band half-widths 2^(K - 25 + floor(log2(2 R0 -+ 1))) in units of t (lo word)
    e_lo = (2 * R0 - 1).bit_length() - 1 if R0 >= 1 else 0   # vadd, vsub, vcl0, vsub
    e_hi = (2 * R0 + 1).bit_length() - 1                     # vadd, vcl0, vsub
    W_lo = 1 << (K - 25 + e_lo)                               # vasl
    W_hi = 1 << (K - 25 + e_hi)                               # vasl
    q_lo = fh == 0 and lo <= W_lo                             # vcmp.eq, vcmp.gtuw, and_n
    q_hi = fh == (1 << s) - 1 and lo >= (1 << 32) - W_hi      # vsub, vcmp.eq, vcmp.gtuw, and_n
    odd = R0 & 1                                              # vand -> predicate
    R = R0 - (1 if (q_lo and odd) else 0) + (1 if (q_hi and odd) else 0)   # and, and, if(Q) -=, if(Q) +=
    if neg:
        R = -R                                                # vadd, if(Q) -=
    return min(max(R + zy, tmin), tmax)                       # vadd zy ; saturating packs


def check_with(requant, p, ch, rng, nrand=300, band_cap=40):
    """`requant(acc, p, zy, tmin, tmax)` against ONNX's f32 result on channel ch: at every level
    start +-3, every accumulator within the f32 band of every half-integer the range reaches
    (capped at band_cap each side) and nrand random ones; (points checked, [(acc, want)] wrong)."""
    pts = set([ch.lo, ch.hi])
    for T in ch.T:
        for d in range(-3, 4):
            pts.add(int(T) + d)
    Q = float(ch.Q)
    hmin = max(math.floor(ch.lo * Q), -600); hmax = min(math.ceil(ch.hi * Q), 600)
    for n in range(hmin - 1, hmax + 1):
        h = n + 0.5
        c = h / Q
        w = min(int(abs(h) * 2.0 ** -23 / Q) + 2, band_cap)
        for d in range(-w, w + 1):
            pts.add(int(round(c)) + d)
    pts.update(int(x) for x in rng.integers(ch.lo, ch.hi + 1, size=nrand))
    pts = sorted(x for x in pts if ch.lo <= x <= ch.hi)
    ref = rq.onnx_O(np.array(pts, np.int64), ch.Q, ch.zy, ch.tmin, ch.tmax)
    bad = [(x, int(r)) for x, r in zip(pts, ref) if requant(x, p, ch.zy, ch.tmin, ch.tmax) != r]
    return len(pts), bad


def check_channel(ch, rng, nrand=300, band_cap=40):
    p = params(ch.Q)
    return None if p is None else check_with(requant_c, p, ch, rng, nrand, band_cap)


if __name__ == "__main__":
    import run
    rng = np.random.default_rng(5)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    total = skipped = npts = 0
    fails = []
    R = run.random_channels(n, 7)
    for s in range(0, n, 500):
        chs = run.build(R["lo"][s:s + 500], R["hi"][s:s + 500], R["Q"][s:s + 500], R["zy"][s:s + 500], R["trange"][s:s + 500])
        for ch in chs:
            r = check_channel(ch, rng)
            if r is None:
                skipped += 1
                continue
            total += 1
            npts += r[0]
            if r[1]:
                fails.append((float(ch.Q), ch.lo, ch.hi, ch.zy, r[1][:3]))
    print("random channels checked", total, "skipped (Q out of range)", skipped, "points", npts, "failing channels", len(fails))
    for f in fails[:10]:
        print(f)
    if len(sys.argv) > 2:
        tot = fl = np_ = 0
        for L in run.mobilenet_channels(sys.argv[2]):
            for ch in run.build(L["lo"], L["hi"], L["Q"], L["zy"], L["trange"]):
                r = check_channel(ch, rng)
                tot += 1; np_ += r[0]; fl += bool(r[1])
        print("mobilenet channels checked", tot, "points", np_, "failing", fl)


# ---------------------------------------------------------------- C2: signed, one band test
def params2(Q):
    p = params(Q)
    if p is None:
        return None
    K = p["K"]
    p["c1"] = (1 << (K - 17)) + (1 << 15)      # t = acc m + 2^(K-1) + 2^31
    p["B"] = 1 << (K - 16)                     # W = B >> (clz(|2 R1 - 1| << 22))
    return p


def requant_c2(acc, p, zy, tmin, tmax, big=True):
    """R1 = floor(x + 1/2 + 2^(31-K)) (one rounding, threshold 2^(31-K) below each half-integer),
    then R = R1 - 1 where t's low K bits say x lies below h = R1 - 1/2's band, or inside it with R1
    odd (rne of the f32 tie). x = fl32(acc) Q exactly = acc m / 2^K."""
    m, K, c1, B = p["m"], p["K"], p["c1"], p["B"]
    s = K - 32
    a = acc
    if big:                                             # fl32(acc), |acc| >= 2^24 only
        n = max(abs(a).bit_length() - 24, 0)            # vnormamt, vsub, vmax
        if n:
            a = ((a + (1 << (n - 1)) - 1 + ((a >> n) & 1)) >> n) << n   # RNE, signed
    assert -(1 << 31) <= a < (1 << 31)
    ml, mh = m & 0xFFFF, m >> 16
    h0 = ((a * ml) >> 16) + c1                          # vmpyewuh_64 ; vadd
    assert -(1 << 31) <= h0 < (1 << 31)
    lo_half = (a * ml) & 0xFFFF
    prod = a * mh + h0                                  # vmpyowh_64_acc
    hi = prod >> 16
    lo = ((prod & 0xFFFF) << 16) | lo_half
    assert (hi << 32) + lo == a * m + (1 << (K - 1)) + (1 << 31)
    R1 = hi >> s                                        # vasr (per lane)
    near = (hi & ((1 << s) - 1)) == 0                   # vand, vcmp.eq   (x - h < 2^(31-K))
    v = abs((R1 << 23) - (1 << 22)) & 0xFFFFFFFF        # vasl, vsub, vabs  (|2 R1 - 1| << 22)
    clz = 32 - v.bit_length() if v else 32              # vcl0
    W = B >> clz if clz < 32 else 0                     # vlsr: 2^(K-25+floor(log2|2R1-1|)) = ulp(h)/2 in t units
    below = lo < (1 << 31) - W                          # vsub, vcmp.gtuw
    inband_or_below = lo <= (1 << 31) + W               # vadd, vcmp.gtuw (negated)
    odd = R1 & 1                                        # vand -> Q
    if near and inband_or_below and (below or odd):     # or, and_n, and
        R1 -= 1                                         # if (Q) R1 -= 1
    return min(max(R1 + zy, tmin), tmax)                # vadd zy ; saturating packs


def check_channel2(ch, rng, nrand=300, band_cap=40):
    p = params2(ch.Q)
    return None if p is None else check_with(requant_c2, p, ch, rng, nrand, band_cap)
