"""Exact ties (acc * Q a half-integer exactly): Q with short mantissas, e.g. power-of-two scales."""
import numpy as np
import rq, run, designc

rng = np.random.default_rng(3)
Qs = [2.0 ** -8, 2.0 ** -11, 3 * 2.0 ** -12, 5 * 2.0 ** -14, 0.75 * 2.0 ** -6, 2.0 ** -16]
rows = []
for Q in Qs:
    Q = np.float32(Q)
    for zy, tr in ((0, rq.U8), (128, rq.U8), (-128, rq.I8), (3, rq.I8)):
        lo, hi = -int(300 / float(Q)), int(300 / float(Q))
        for big in (0, 1):
            if big:
                lo, hi = lo - (1 << 25), hi + (1 << 25)     # beyond 2^24: f32(acc) rounds too
            ch = run.build([lo], [hi], [Q], [zy], [tr])[0]
            r0 = rq.exact_line(ch)
            runs0 = rq.mismatches(ch, r0)
            causes = {}
            for a, b, d in runs0:
                c = rq.classify_miss(ch, a)
                causes[c] = causes.get(c, 0) + 1
            best = run.drop_search(ch, rq.choose_K(ch.Q), "add", maxdrop=2, budget=30)
            a1 = min(rq.n_values(runs0), best[0] if best else 10 ** 9)
            c = designc.check_channel(ch, rng)
            rows.append((float(Q), zy, tr, big, len(ch.lev), rq.n_values(runs0), len(runs0), causes, a1, c[0], len(c[1])))
            print(rows[-1], flush=True)
