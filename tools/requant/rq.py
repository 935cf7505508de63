"""Exact analysis of ONNX QLinearConv requantization vs integer formulas (library).

ONNX semantics (per output channel):  V = fl32(fl32(acc) * Q),  R = rne(V),  O = clamp(R + zy, tmin, tmax).
Everything integer is done with numpy int64 (magnitudes kept < 2^62) and re-verified with Python ints.
"""
import math
from math import gcd

import numpy as np

F32 = np.float32
U8 = (0, 255)
I8 = (-128, 127)


def onnx_O(acc, Q, zy, tmin, tmax):
    """The f32 reference, vectorised: acc int64 array, Q float32 (scalar or array)."""
    a = np.asarray(acc, dtype=np.int64).astype(np.float32)      # int64 -> f32 rounds to nearest even
    v = (a * np.asarray(Q, dtype=np.float32)).astype(np.float32)  # f32 product, rounded to f32
    r = np.rint(v).astype(np.int64)                              # half to even
    return np.clip(r + zy, tmin, tmax)


def thresholds_batch(lo, hi, Q, zy, tmin, tmax):
    """Per channel (arrays): O(lo), O(hi) and, for every level j in (O(lo), O(hi)], the least acc in
    [lo, hi] with O(acc) >= j. Returns a list of (omin, omax, levels array, T array)."""
    lo = np.asarray(lo, np.int64); hi = np.asarray(hi, np.int64)
    Q = np.asarray(Q, np.float32); zy = np.asarray(zy, np.int64)
    tmin = np.asarray(tmin, np.int64); tmax = np.asarray(tmax, np.int64)
    omin = onnx_O(lo, Q, zy, tmin, tmax); omax = onnx_O(hi, Q, zy, tmin, tmax)
    n = omax - omin
    idx = np.repeat(np.arange(len(lo)), n)
    start = np.repeat(np.cumsum(n) - n, n)
    j = omin[idx] + 1 + (np.arange(n.sum()) - start)
    l = lo[idx].copy(); h = hi[idx] + 1
    Qi, zi, t0, t1 = Q[idx], zy[idx], tmin[idx], tmax[idx]
    while True:
        act = l < h
        if not act.any():
            break
        mid = (l + h) // 2
        ok = onnx_O(mid, Qi, zi, t0, t1) >= j
        h = np.where(act & ok, mid, h)
        l = np.where(act & ~ok, mid + 1, l)
    out = []
    off = 0
    for c in range(len(lo)):
        k = int(n[c])
        out.append((int(omin[c]), int(omax[c]), j[off:off + k].copy(), l[off:off + k].copy()))
        off += k
    return out


class Channel:
    """One channel's requantization problem: acc range, Q, zy, type range and exact thresholds."""

    def __init__(self, lo, hi, Q, zy, trange, th):
        self.lo, self.hi, self.Q, self.zy = int(lo), int(hi), F32(Q), int(zy)
        self.tmin, self.tmax = trange
        self.omin, self.omax, self.lev, self.T = th
        # Constraints on f (pre-clamp formula):  ge: f(a) >= j ;  le: f(a) <= j
        ge_a, ge_j, le_a, le_j, ge_l, le_l = [], [], [], [], [], []
        if self.omin > self.tmin:
            ge_a.append(self.lo); ge_j.append(self.omin); ge_l.append(-1)
        if self.omax < self.tmax:
            le_a.append(self.hi); le_j.append(self.omax); le_l.append(-1)
        for jj, t in zip(self.lev, self.T):
            ge_a.append(int(t)); ge_j.append(int(jj)); ge_l.append(int(jj))
            if t - 1 >= self.lo:
                le_a.append(int(t) - 1); le_j.append(int(jj) - 1); le_l.append(int(jj))
        self.ge_a = np.array(ge_a, np.int64); self.ge_j = np.array(ge_j, np.int64); self.ge_l = np.array(ge_l, np.int64)
        self.le_a = np.array(le_a, np.int64); self.le_j = np.array(le_j, np.int64); self.le_l = np.array(le_l, np.int64)

    # ---- the exact reference as a Python function, for checks
    def ref(self, a):
        return int(onnx_O(np.array([a]), self.Q, self.zy, self.tmin, self.tmax)[0])


def q_parts(Q):
    """Q = M * 2^-E exactly, M an integer (24-bit mantissa with the implicit bit)."""
    m, e = math.frexp(float(Q))      # Q = m 2^e, m in [0.5, 1)
    M = int(m * (1 << 24)); E = 24 - e
    return M, E


def choose_K(Q, s_min=0):
    """K = 32 + s with m = Q 2^K in [2^30, 2^31) (s >= s_min; for Q >= 1/4 m is smaller)."""
    M, E = q_parts(Q)
    # Q 2^K = M 2^(K-E) in [2^30, 2^31) with M in [2^23, 2^24)  =>  K - E = 7
    K = E + 7
    return max(K, 32 + s_min)


class LineFit:
    """Lines f(a) = floor((a m + D) / 2^K) meeting a channel's threshold constraints exactly."""

    def __init__(self, ch, K, drop=()):
        self.ch, self.K = ch, K
        keep_g = ~np.isin(ch.ge_l, list(drop)) if drop else np.ones(len(ch.ge_a), bool)
        keep_l = ~np.isin(ch.le_l, list(drop)) if drop else np.ones(len(ch.le_a), bool)
        P = 1 << K
        self.ga, self.gc = ch.ge_a[keep_g], ch.ge_j[keep_g] * P            # D >= gc - ga m
        self.la, self.lc = ch.le_a[keep_l], (ch.le_j[keep_l] + 1) * P - 1  # D <= lc - la m
        self.gl, self.ll = ch.ge_l[keep_g], ch.le_l[keep_l]

    def LU(self, m):
        L = (self.gc - self.ga * m).max() if len(self.ga) else -(1 << 62)
        U = (self.lc - self.la * m).min() if len(self.la) else (1 << 62)
        return int(L), int(U)

    def slack(self, m):
        L, U = self.LU(m)
        return U - L

    def best_m(self, m0, window):
        m0 = min(m0, (1 << 31) - 1)
        a, b = max(1, m0 - window), min((1 << 31) - 1, m0 + window)
        while b - a > 2:
            m1 = a + (b - a) // 3
            m2 = b - (b - a) // 3
            s1, s2 = self.slack(m1), self.slack(m2)
            if s1 < s2:
                a = m1 + 1
            elif s1 > s2:
                b = m2 - 1
            else:
                a, b = m1, m2
        best = max(range(a, b + 1), key=self.slack)
        return best, self.slack(best)

    def feasible_interval(self, mstar, window):
        """[ma, mb]: the m (near mstar, slack >= 0) by binary search on the concave slack."""
        lo_lim, hi_lim = max(1, mstar - window), min((1 << 31) - 1, mstar + window)
        a, b = lo_lim, mstar
        while a < b:
            mid = (a + b) // 2
            if self.slack(mid) >= 0:
                b = mid
            else:
                a = mid + 1
        ma = a
        a, b = mstar, hi_lim
        while a < b:
            mid = (a + b + 1) // 2
            if self.slack(mid) >= 0:
                a = mid
            else:
                b = mid - 1
        return ma, a


def solve_line(ch, K, drop=(), mode="add", window=None, m_tries=64):
    """A representable line meeting all (not dropped) constraints, or None.
    mode 'add':  D = a0 m + c1 2^16 (a0 folded into the bias, c1 added to the high word between the
                 two multiplies), |c1| < 2^31;
    mode 'noadd': D = a0 m (bias fold only).
    Returns dict(m, K, D, a0, c1)."""
    lf = LineFit(ch, K, drop)
    m0 = int(round(float(ch.Q) * 2.0 ** K))
    if window is None:
        window = min(m0, 1 << 24)
    mstar, sl = lf.best_m(m0, window)
    if sl < 0:
        return None
    ma, mb = lf.feasible_interval(mstar, window)
    # candidate m: mstar first, then outwards (odd ones first for 'add': any D is a0 m + c1 2^16)
    cands = [mstar]
    for d in range(1, m_tries):
        for m in (mstar - d, mstar + d):
            if ma <= m <= mb:
                cands.append(m)
    if mode == "add":
        cands.sort(key=lambda m: (m % 2 == 0, abs(m - mstar)))
    for m in cands[:m_tries]:
        L, U = lf.LU(m)
        if L > U:
            continue
        if mode == "noadd":
            a0 = -((-L) // m)
            if a0 * m <= U:
                return finish(ch, dict(m=m, K=K, D=a0 * m, a0=a0, c1=0))
            continue
        # 'add': any D in [L, U] with D = a0 m + c1 2^16
        g = gcd(m, 1 << 16)
        D = -((-L) // g) * g
        if D > U:
            continue
        res = represent(ch, m, K, D)
        if res:
            return res
    return None


def represent(ch, m, K, D):
    """D as a0 m + c1 2^16 (a0 folded into the bias, c1 added to the high word), preferring a0 = 0;
    None if D is not a multiple of gcd(m, 2^16) or the ranges fail."""
    if D % (1 << 16) == 0:
        r = finish(ch, dict(m=m, K=K, D=D, a0=0, c1=D >> 16))
        if r:
            return r
    g = gcd(m, 1 << 16)
    if D % g:
        return None
    mod = (1 << 16) // g
    base = D // m
    if mod > 1:
        inv = pow(m // g, -1, mod)
        r0 = ((D // g) * inv) % mod       # a0 = r0 (mod 2^16 / g) makes D - a0 m divisible by 2^16
        a0 = base - ((base - r0) % mod)
    else:
        a0 = base
    best = None
    for cand in (a0, a0 + mod):
        c1 = (D - cand * m) >> 16
        assert c1 << 16 == D - cand * m
        r = finish(ch, dict(m=m, K=K, D=D, a0=cand, c1=c1))
        if r and (best is None or abs(r["a0"]) < abs(best["a0"])):
            best = r
    return best


def finish(ch, r):
    """Range checks: acc + a0 and c1 are i32, m < 2^31."""
    if not (0 < r["m"] < (1 << 32)):
        return None
    if not (-(1 << 31) <= r["c1"] < (1 << 31)):
        return None
    if not (-(1 << 31) <= ch.lo + r["a0"] and ch.hi + r["a0"] < (1 << 31)):
        return None
    if max(-(ch.lo + r["a0"]), ch.hi + r["a0"]) + abs(r["c1"]) >= (1 << 31):
        return None                                 # the high word plus c1 would wrap
    return r


def line_thresholds(ch, r):
    """Where the line's levels start (clamped to [lo, hi+1]) for the channel's levels."""
    m, D, K = r["m"], r["D"], r["K"]
    P = 1 << K
    out = []
    for j in ch.lev:
        t = -((-(int(j) * P - D)) // m)   # ceil((j 2^K - D) / m): least a with a m + D >= j 2^K
        out.append(min(max(t, ch.lo), ch.hi + 1))
    return out


def mismatches(ch, r):
    """Accumulators in [lo, hi] where clamp(f) differs from the reference, as maximal runs
    [(first, last, d)] with d = reference - formula. Exact (Python ints): both are
    tmin + #{levels j whose start <= a}; compare the starts level by level."""
    m, D, K = r["m"], r["D"], r["K"]
    P = 1 << K
    ref_start = {}
    for j in range(ch.tmin + 1, ch.tmax + 1):
        ref_start[j] = ch.lo if j <= ch.omin else ch.hi + 1
    for jj, T in zip(ch.lev, ch.T):
        ref_start[int(jj)] = int(T)
    ev = {}
    for j in range(ch.tmin + 1, ch.tmax + 1):
        t = -((-(j * P - D)) // m)
        t = min(max(t, ch.lo), ch.hi + 1)
        T = ref_start[j]
        if t != T:
            # formula counts level j from t, the reference from T: diff (ref - formula) is
            # -1 on [t, T-1] if t < T, +1 on [T, t-1] if T < t
            a, b, d = (t, T - 1, -1) if t < T else (T, t - 1, +1)
            ev[a] = ev.get(a, 0) + d
            ev[b + 1] = ev.get(b + 1, 0) - d
    runs, cur, prev = [], 0, None
    for x in sorted(ev):
        if cur != 0:
            runs.append((prev, x - 1, cur))
        cur += ev[x]
        prev = x
    # merge adjacent runs with the same d
    out = []
    for a, b, d in runs:
        if out and out[-1][1] + 1 == a and out[-1][2] == d:
            out[-1] = (out[-1][0], b, d)
        else:
            out.append((a, b, d))
    return out


def n_values(runs):
    return sum(b - a + 1 for a, b, _ in runs)


def verify(ch, r, runs, samples=2000, rng=None):
    """Brute-force check of formula + exception runs around every threshold and at random points
    (Python ints vs the numpy f32 reference)."""
    m, D, K = r["m"], r["D"], r["K"]
    pts = set([ch.lo, ch.hi])
    for T in ch.T:
        for d in range(-3, 4):
            pts.add(int(T) + d)
    for a, b, _ in runs:
        pts.update([a - 1, a, b, b + 1])
    if rng is not None:
        pts.update(int(x) for x in rng.integers(ch.lo, ch.hi + 1, size=samples))
    pts = sorted(p for p in pts if ch.lo <= p <= ch.hi)
    refv = onnx_O(np.array(pts, np.int64), ch.Q, ch.zy, ch.tmin, ch.tmax)
    for p, ref in zip(pts, refv):
        # the HVX sequence, step by step: acc' = acc + a0 (bias fold); hi = ((acc' * mh + floor(acc' * ml / 2^16) + c1) >> 16)
        acc = p + r["a0"]
        assert -(1 << 31) <= acc < (1 << 31)
        ml, mh = m & 0xFFFF, m >> 16               # (m >= 2^31: the doubled-acc form, same value)
        h0 = (acc * ml) >> 16                      # vmpyewuh_64: high word
        h0 += r["c1"]                              # vadd
        hi = (acc * mh + h0) >> 16                 # vmpyowh_64_acc: high word
        if not (-(1 << 31) <= h0 < (1 << 31) and -(1 << 31) <= hi < (1 << 31)):
            r["hvx_overflow"] = True               # the formula itself, without the i32 words
            hi = (p * m + D) >> 32
        o = hi >> (K - 32) if K >= 32 else hi << (32 - K)
        for a, b, d in runs:
            if a <= p <= b:
                o += d
        o = min(max(o, ch.tmin), ch.tmax)
        if o != ref:
            return False, p
    return True, None


# ---------------------------------------------------------------- TFLite (nn.dsp requantize)
def oplib_O(acc, m, shift, zy, tmin, tmax):
    a = acc << max(shift, 0)
    x = (a * m + (1 << 30)) >> 31
    e = max(-shift, 0)
    mask = (1 << e) - 1
    r = (x >> e) + (1 if (x & mask) > (mask >> 1) + (1 if x < 0 else 0) else 0)
    return min(max(r + zy, tmin), tmax)


def tflite_ok(ch):
    """The importer's test (any of m0, m0 +- 1..3) on this channel's [lo, hi]."""
    mult = float(ch.Q)
    frac, e = math.frexp(mult)
    m0 = round(frac * 2147483648.0)
    if m0 == 1 << 31:
        m0 //= 2; e += 1
    if e < -30 or e > 30:
        return False
    if e > 0 and (max(-ch.lo, ch.hi) << e) >= (1 << 31):
        return False
    for d in (0, 1, -1, 2, -2, 3, -3):
        c = m0 + d
        f = lambda a: oplib_O(a, c, e, ch.zy, ch.tmin, ch.tmax)
        if f(ch.lo) != ch.omin or f(ch.hi) != ch.omax:
            continue
        ok = True
        for jj, T in zip(ch.lev, ch.T):
            T = int(T)
            if f(T) < jj or (T - 1 >= ch.lo and f(T - 1) >= jj):
                ok = False
                break
        if ok:
            return True
    return False


# ---------------------------------------------------------------- causes of the exact line's misses
def exact_line(ch):
    """A0: the exact product acc * Q rounded once, half up: m = M 2^(K - E), D = (zy + 1/2) 2^K."""
    M, E = q_parts(ch.Q)
    K = max(E + 7, 32)
    m = M << (K - E)
    assert m < (1 << 32)          # m >= 2^31 (Q >= 1/2): on HVX, double acc first (+1 op)
    D = (2 * ch.zy + 1) << (K - 1)
    r = represent(ch, m, K, D)
    if r is None:                                   # not representable in i32 words: the formula only
        r = dict(m=m, K=K, D=D, a0=0, c1=0, hvx_overflow=True)
    return r


def classify_miss(ch, a):
    """Why the f32 reference differs from the exact rational rounding at accumulator a."""
    M, E = q_parts(ch.Q)
    if abs(a) > (1 << 24) and int(np.float32(a)) != a:
        return "acc>2^24"
    num = a * M           # exact product = num / 2^E
    twice = num * 2
    if twice % (1 << E) == 0 and (twice >> E) % 2 == 1:
        return "tie"
    return "f32 product"
