"""Tables for report.md from results_random_1.json and results_mobilenet.json."""
import collections
import json
import math

OPS_A1 = 4.75          # vmpyewuh_64, vadd, vmpyowh_64_acc, vasr, 3/4 of the saturating packs
OPS_SLOT = 2           # vcmp.eq + if (Q) vadd
OPS_C2 = 22.75         # see report


def bucket(v):
    return str(v) if v <= 3 else (">3" if v <= 10 else ">10")


def dist(rows, key):
    c = collections.Counter(bucket(r[key]) for r in rows)
    n = len(rows)
    return " | ".join("%.1f%%" % (100.0 * c.get(b, 0) / n) for b in ("0", "1", "2", "3", ">3", ">10")) + " | %d" % max(r[key] for r in rows)


def main():
    out = []
    rows = json.load(open("results_random_1.json"))
    n = len(rows)
    out.append("### Random channels (%d; x_scale, y_scale log-uniform in [1e-3, 1e-1], w_scale in [1e-4, 1e-2])\n" % n)
    out.append("Wrong accumulators per channel (= single-value exception slots needed); last column the worst channel.\n")
    out.append("| design | 0 | 1 | 2 | 3 | 4-10 | >10 | worst |")
    out.append("|---|---|---|---|---|---|---|---|")
    # ">3" bucket here means 4..10
    out.append("| A0 exact product, one rounding (half up) | " + dist(rows, "A0_values") + " |")
    out.append("| A1 tuned line (m, D searched) + slots | " + dist(rows, "A1_values") + " |")
    out.append("")
    f = lambda k: sum(1 for r in rows if r[k]) / n * 100
    s0 = [r for r in rows if r["A1s0_fit"] is not None]
    out.append("Exact with no slot: A1 %.1f%%, A1 with s = 0 (no shift) %.1f%% (of the %d with Q < 1/2), A2 (no add, bias fold only) %.1f%%, "
               "TFLite fixed point (importer's test, m0 +- 3) %.1f%%.\n" % (
                   f("A1_fit"), 100.0 * sum(1 for r in s0 if r["A1s0_fit"]) / len(s0), len(s0), f("A2_fit"), f("tflite_ok")))
    # by Q decade
    out.append("By Q (fraction with 0 slots under A1; mean / max slots; TFLite ok):\n")
    out.append("| Q | channels | A1 0 slots | A1 mean slots | A1 max | A0 max | TFLite ok |")
    out.append("|---|---|---|---|---|---|---|")
    by = collections.defaultdict(list)
    for r in rows:
        by[math.floor(math.log10(r["Q"]))].append(r)
    for d in sorted(by):
        g = by[d]
        out.append("| [1e%d, 1e%d) | %d | %.1f%% | %.2f | %d | %d | %.1f%% |" % (
            d, d + 1, len(g), 100.0 * sum(r["A1_values"] == 0 for r in g) / len(g),
            sum(r["A1_values"] for r in g) / len(g), max(r["A1_values"] for r in g), max(r["A0_values"] for r in g),
            100.0 * sum(r["tflite_ok"] for r in g) / len(g)))
    # by levels crossed
    out.append("\nBy output levels the accumulator range crosses:\n")
    out.append("| levels | channels | A1 0 slots | A1 max |")
    out.append("|---|---|---|---|")
    for lo, hi in ((0, 0), (1, 15), (16, 127), (128, 254), (255, 255)):
        g = [r for r in rows if lo <= r["levels"] <= hi]
        if g:
            out.append("| %d-%d | %d | %.1f%% | %d |" % (lo, hi, len(g), 100.0 * sum(r["A1_values"] == 0 for r in g) / len(g),
                                                  max(r["A1_values"] for r in g)))
    causes = collections.Counter()
    for r in rows:
        causes.update(r["A0_causes"])
    out.append("\nCauses of A0's wrong accumulators (random set): %s; channels whose |acc| can exceed 2^24: %d.\n" % (
        dict(causes), sum(r["big_acc"] for r in rows)))
    # MobileNet
    res = json.load(open("results_mobilenet.json"))
    out.append("### MobileNet-shaped model (make_mobilenet.py, 27 QLinearConv, u8 out, zy = 0)\n")
    out.append("Slots per layer = the worst channel (one code path per layer; the slot constants are per-channel vectors).\n")
    out.append("| layer | W shape | Q | 1/Q | levels (max) | A1 0-slot channels | A0 max | A1 max = layer slots | TFLite ok | ops/32 lanes: A1+slots | C2 |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    tot_a1 = tot_best = 0
    for L in res:
        ch = L["channels"]
        q = ch[0]["Q"]
        slots = max(r["A1_values"] for r in ch)
        a1 = OPS_A1 + OPS_SLOT * slots
        out.append("| %s | %s | %.4g | %.2f | %d | %d/%d | %d | %d | %d/%d | %.2f | %.2f |" % (
            L["name"], "x".join(map(str, L["shape"])), q, 1 / q, max(r["levels"] for r in ch),
            sum(r["A1_values"] == 0 for r in ch), len(ch), max(r["A0_values"] for r in ch), slots,
            sum(r["tflite_ok"] for r in ch), len(ch), a1, OPS_C2))
    allc = [r for L in res for r in L["channels"]]
    out.append("\nAll %d MobileNet channels, wrong accumulators per channel:\n" % len(allc))
    out.append("| design | 0 | 1 | 2 | 3 | 4-10 | >10 | worst |")
    out.append("|---|---|---|---|---|---|---|---|")
    out.append("| A0 | " + dist(allc, "A0_values") + " |")
    out.append("| A1 | " + dist(allc, "A1_values") + " |")
    causes = collections.Counter()
    for r in allc:
        causes.update(r["A0_causes"])
    out.append("\nCauses (MobileNet): %s; TFLite ok: %d of %d channels.\n" % (dict(causes), sum(r["tflite_ok"] for r in allc), len(allc)))
    open("tables.md", "w").write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
