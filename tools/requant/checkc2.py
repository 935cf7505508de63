"""Verifies design C2 of docs/requant.md (the exact integer emulation of ONNX's f32
requantization) against numpy's f32 arithmetic, by brute force at every output level's start and
around every half-integer band: on N random channels (seed S), and, given a model, on its
QLinearConv channels, the exact-tie scales and accumulators beyond 2^24.

  /usr/bin/python3 tools/requant/checkc2.py N S [MODEL.onnx | -]

Exit status 1 when any accumulator's result differs (ctest tools/requant-c2 runs 40 channels).
"""
import sys
import numpy as np
import rq, run, designc

rng = np.random.default_rng(11)
n = int(sys.argv[1])
tot = skipped = npts = 0
fails = []
R = run.random_channels(n, int(sys.argv[2]))
big = 0
for s in range(0, n, 500):
    chs = run.build(R["lo"][s:s + 500], R["hi"][s:s + 500], R["Q"][s:s + 500], R["zy"][s:s + 500], R["trange"][s:s + 500])
    for ch in chs:
        r = designc.check_channel2(ch, rng)
        if r is None:
            skipped += 1
            continue
        tot += 1; npts += r[0]; big += max(-ch.lo, ch.hi) > (1 << 24)
        if r[1]:
            fails.append((float(ch.Q), ch.lo, ch.hi, ch.zy, r[1][:3]))
print("C2 random: channels", tot, "(|acc| > 2^24 reachable in", big, ") skipped", skipped, "points", npts, "failing", len(fails))
for f in fails[:5]:
    print(f)
if len(sys.argv) > 3 and sys.argv[3] != "-":
    tot = fl = np_ = 0
    for L in run.mobilenet_channels(sys.argv[3]):
        for ch in run.build(L["lo"], L["hi"], L["Q"], L["zy"], L["trange"]):
            r = designc.check_channel2(ch, rng)
            tot += 1; np_ += r[0]; fl += bool(r[1])
    print("C2 mobilenet: channels", tot, "points", np_, "failing", fl)
    fails += [None] * fl
    # ties
    tot = fl = np_ = 0
    for Q in [2.0 ** -8, 2.0 ** -11, 3 * 2.0 ** -12, 5 * 2.0 ** -14, 0.75 * 2.0 ** -6, 2.0 ** -16, 1 / 1524, 1 / 2032, 1 / 4064]:
        Q = np.float32(Q)
        for zy, tr in ((0, rq.U8), (128, rq.U8), (-128, rq.I8), (3, rq.I8)):
            for extra in (0, 1 << 25):
                lo, hi = -int(300 / float(Q)) - extra, int(300 / float(Q)) + extra
                ch = run.build([lo], [hi], [Q], [zy], [tr])[0]
                r = designc.check_channel2(ch, rng)
                tot += 1; np_ += r[0]; fl += bool(r[1])
                if r[1]:
                    print("tie fail", float(Q), zy, r[1][:3])
    print("C2 ties/1-over-integer: channels", tot, "points", np_, "failing", fl)
    fails += [None] * fl
    # thresholds beyond 2^24: small Q, wide ranges
    tot = fl = np_ = 0
    for Q in [1.1e-6, 2.3e-6, 3.7e-6, 6.1e-6, 9e-6, 1.7e-5]:
        Q = np.float32(Q)
        for zy, tr in ((0, rq.U8), (128, rq.U8), (-128, rq.I8), (3, rq.I8)):
            lo, hi = max(-int(300 / float(Q)), -(1 << 31) + 1), min(int(300 / float(Q)), (1 << 31) - 1)
            ch = run.build([lo], [hi], [Q], [zy], [tr])[0]
            r = designc.check_channel2(ch, rng, band_cap=20)
            tot += 1; np_ += r[0]; fl += bool(r[1])
            if r[1]:
                print("big fail", float(Q), zy, r[1][:3])
            r0 = rq.exact_line(ch); runs0 = rq.mismatches(ch, r0)
            print("  Q=%.2g zy=%d levels=%d thresholds>2^24: %d  A0 wrong values=%d causes=%s" % (
                float(Q), zy, len(ch.lev), int((np.abs(ch.T) > (1 << 24)).sum()), rq.n_values(runs0),
                {c: sum(1 for a, b, d in runs0 if rq.classify_miss(ch, a) == c) for c in ("acc>2^24", "f32 product", "tie")}))
    print("C2 beyond 2^24: channels", tot, "points", np_, "failing", fl)
    fails += [None] * fl
sys.exit(1 if fails else 0)
