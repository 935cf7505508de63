"""Measure requantization designs on the MobileNet-shaped model and on random channels.

  /usr/bin/python3 run.py mobilenet /tmp/mnq/mobilenet_qlinear.onnx   -> results_mobilenet.json
  /usr/bin/python3 run.py random 10000 [seed]                          -> results_random.json
"""
import collections
import json
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

import rq


def drop_search(ch, K, mode, maxdrop=3, budget=120):
    """Fewest dropped levels (then fewest wrong accumulators) for which a representable line
    meets the rest; branching on the levels of the binding constraints at the best slope."""
    tried = 0
    frontier = [()]
    seen = {()}
    for size in range(0, maxdrop + 1):
        sols = []
        nxt = []
        for drop in frontier:
            tried += 1
            r = rq.solve_line(ch, K, drop=drop, mode=mode)
            if r is not None:
                runs = rq.mismatches(ch, r)
                sols.append((rq.n_values(runs), len(runs), r, runs, drop))
                continue
            if size == maxdrop or tried > budget:
                continue
            lf = rq.LineFit(ch, K, drop)
            m0 = int(round(float(ch.Q) * 2.0 ** K))
            mstar, _ = lf.best_m(m0, min(m0, 1 << 24))
            cand = set()
            for m in (mstar - 1, mstar, mstar + 1):
                if len(lf.ga):
                    cand.add(int(lf.gl[int(np.argmax(lf.gc - lf.ga * m))]))
                if len(lf.la):
                    cand.add(int(lf.ll[int(np.argmin(lf.lc - lf.la * m))]))
            cand.discard(-1)
            for c in sorted(cand):
                d = tuple(sorted(drop + (c,)))
                if d not in seen:
                    seen.add(d)
                    nxt.append(d)
        if sols:
            return min(sols, key=lambda s: (s[0], s[1]))
        frontier = nxt
        if not frontier:
            break
    return None


def analyse(ch, rng):
    """All designs for one channel; returns a dict of per-design costs."""
    out = {"levels": len(ch.lev), "lo": ch.lo, "hi": ch.hi, "Q": float(ch.Q), "zy": ch.zy,
           "tmin": ch.tmin, "big_acc": max(-ch.lo, ch.hi) > (1 << 24)}
    # A0: exact product, one rounding half up
    r0 = rq.exact_line(ch)
    runs0 = rq.mismatches(ch, r0)
    out["A0_values"] = rq.n_values(runs0)
    out["A0_runs"] = len(runs0)
    causes = collections.Counter()
    for a, b, d in runs0:
        for x in range(a, min(b, a + 50) + 1):
            causes[rq.classify_miss(ch, x)] += 1
    out["A0_causes"] = dict(causes)
    ok, bad = rq.verify(ch, r0, runs0, rng=rng, samples=300)
    assert ok, ("A0 verify", bad)
    # TFLite fixed point as the importer tests it
    out["tflite_ok"] = rq.tflite_ok(ch)
    # A1: tuned line with the high-word add; per-channel K
    K = rq.choose_K(ch.Q)
    best = drop_search(ch, K, "add")
    cand = [(out["A0_values"], out["A0_runs"], r0, runs0, ("A0",))]
    if best is not None:
        cand.append(best)
    v, n, r, runs, drop = min(cand, key=lambda s: (s[0], s[1]))
    ok, bad = rq.verify(ch, r, runs, rng=rng, samples=500)
    assert ok, ("A1 verify", bad, r, runs)
    out["A1_values"], out["A1_runs"], out["A1_fit"] = v, n, best is not None and best[4] == ()
    out["A1"] = {k: int(x) for k, x in r.items()}
    out["A1_exc"] = [list(map(int, x)) for x in runs]
    # A1 with s = 0 (K = 32: no shift after the multiply), when m = Q 2^32 < 2^31
    if float(ch.Q) * 2.0 ** 32 < 2.0 ** 31:
        r32 = rq.solve_line(ch, 32, mode="add")
        out["A1s0_fit"] = r32 is not None
        if r32 is not None:
            ok, bad = rq.verify(ch, r32, [], rng=rng, samples=200)
            assert ok, ("A1s0 verify", bad)
    else:
        out["A1s0_fit"] = None
    # A2: no add (bias fold only)
    r2 = rq.solve_line(ch, K, mode="noadd")
    out["A2_fit"] = r2 is not None
    if r2 is not None:
        ok, bad = rq.verify(ch, r2, [], rng=rng, samples=200)
        assert ok, ("A2 verify", bad)
    return out


def mobilenet_channels(path):
    m = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    layers = []
    for node in m.graph.node:
        if node.op_type != "QLinearConv":
            continue
        x, xs, xz, w, ws, wz, ys, yz = node.input[:8]
        b = node.input[8] if len(node.input) > 8 else None
        W = init[w].astype(np.int64); xs_, ws_, ys_ = init[xs], init[ws], init[ys]
        zx = int(init[xz]); zw = np.broadcast_to(init[wz].astype(np.int64), (W.shape[0],))
        zy = int(init[yz]); ydt = init[yz].dtype
        trange = rq.U8 if ydt == np.uint8 else rq.I8
        bias = init[b].astype(np.int64) if b else np.zeros(W.shape[0], np.int64)
        ws_ = np.broadcast_to(ws_.astype(np.float32), (W.shape[0],))
        lo, hi, Q = [], [], []
        for k in range(W.shape[0]):
            wk = (W[k] - zw[k]).ravel()
            l = bias[k] + np.minimum(wk * (0 - zx), wk * (255 - zx)).sum()
            h = bias[k] + np.maximum(wk * (0 - zx), wk * (255 - zx)).sum()
            lo.append(int(l)); hi.append(int(h))
            Q.append(np.float32(np.float32(np.float32(xs_) * ws_[k]) / np.float32(ys_)))
        layers.append(dict(name=node.name, lo=lo, hi=hi, Q=Q, zy=[zy] * len(lo), trange=[trange] * len(lo),
                           shape=list(W.shape)))
    return layers


def random_channels(n, seed):
    rng = np.random.default_rng(seed)
    fans = [9, 9, 27, 32, 64, 144, 256, 576, 1152, 2304, 4608]
    lo, hi, Q, zy, tr, meta = [], [], [], [], [], []
    for i in range(n):
        xs = np.float32(10 ** rng.uniform(-3, -1)); ys = np.float32(10 ** rng.uniform(-3, -1))
        ws = np.float32(10 ** rng.uniform(-4, -2))
        q = np.float32(np.float32(xs * ws) / ys)
        fan = int(rng.choice(fans))
        w = rng.standard_normal(fan)
        w = np.round(w / np.abs(w).max() * 127).astype(np.int64)     # symmetric per-channel i8
        zx = 0 if rng.random() < 0.6 else int(rng.integers(0, 256))
        bias = int(np.round(rng.standard_normal() * 0.1 * np.abs(w).sum() * 128))
        l = bias + int(np.minimum(w * (0 - zx), w * (255 - zx)).sum())
        h = bias + int(np.maximum(w * (0 - zx), w * (255 - zx)).sum())
        if rng.random() < 0.7:
            t = rq.U8; z = 0 if rng.random() < 0.5 else int(rng.integers(0, 256))
        else:
            t = rq.I8; z = -128 if rng.random() < 0.5 else int(rng.integers(-128, 128))
        lo.append(l); hi.append(h); Q.append(q); zy.append(z); tr.append(t); meta.append(fan)
    return dict(lo=lo, hi=hi, Q=Q, zy=zy, trange=tr, fan=meta)


def build(lo, hi, Q, zy, trange):
    tmin = [t[0] for t in trange]; tmax = [t[1] for t in trange]
    th = rq.thresholds_batch(lo, hi, np.array(Q, np.float32), zy, tmin, tmax)
    return [rq.Channel(lo[i], hi[i], Q[i], zy[i], trange[i], th[i]) for i in range(len(lo))]


def main():
    what = sys.argv[1]
    rng = np.random.default_rng(12345)
    t0 = time.time()
    if what == "mobilenet":
        res = []
        for L in mobilenet_channels(sys.argv[2]):
            chs = build(L["lo"], L["hi"], L["Q"], L["zy"], L["trange"])
            rows = [analyse(c, rng) for c in chs]
            res.append(dict(name=L["name"], shape=L["shape"], channels=rows))
            print(L["name"], L["shape"], "Q=%.4g" % L["Q"][0], "A1 max values",
                  max(r["A1_values"] for r in rows), "A0 max", max(r["A0_values"] for r in rows),
                  "tflite", sum(r["tflite_ok"] for r in rows), "/", len(rows), "%.0fs" % (time.time() - t0), flush=True)
        json.dump(res, open("results_mobilenet.json", "w"))
    else:
        n = int(sys.argv[2]); seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
        R = random_channels(n, seed)
        rows = []
        for s in range(0, n, 500):
            chs = build(R["lo"][s:s + 500], R["hi"][s:s + 500], R["Q"][s:s + 500], R["zy"][s:s + 500], R["trange"][s:s + 500])
            for i, c in enumerate(chs):
                row = analyse(c, rng)
                row["fan"] = R["fan"][s + i]
                rows.append(row)
            print(s + 500, "%.0fs" % (time.time() - t0), flush=True)
        json.dump(rows, open("results_random_%d.json" % seed, "w"))


if __name__ == "__main__":
    main()
