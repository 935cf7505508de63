#!/usr/bin/env python3
"""End-to-end check of a graph: `dspc run FILE --random-inputs --check --json` must pass
bit-exact, and its device round trips per inference must be the fewest device groups any
order of the graph allows (computed here, by dynamic programming over the sets of calls
already run, from the graph's --emit=graph-json), or, with --no-group-device-calls, one per
device call.

  graph_round_trips.py --dspc build/dspc --target hexagon-v68 FILE [--no-group] [--repeat N]
"""
import argparse
import functools
import json
import subprocess
import sys


def fewest_device_groups(graph):
    """The fewest maximal runs of device calls over all topological orders of the calls."""
    nodes = graph["nodes"]
    calls = [i for i, n in enumerate(nodes) if n["op"] != "null"]
    index = {nid: k for k, nid in enumerate(calls)}
    device = [nodes[nid]["attrs"]["placement"] == "device" for nid in calls]
    preds = [0] * len(calls)
    for k, nid in enumerate(calls):
        for src, _, _ in nodes[nid]["inputs"]:
            if src in index:
                preds[k] |= 1 << index[src]
    full = (1 << len(calls)) - 1

    @functools.lru_cache(maxsize=None)
    def best(done, last_device):
        if done == full:
            return 0
        result = None
        for k in range(len(calls)):
            if done >> k & 1 or preds[k] & ~done:
                continue
            cost = 1 if device[k] and not last_device else 0
            r = cost + best(done | 1 << k, device[k])
            result = r if result is None else min(result, r)
        return result

    return best(0, False), sum(device)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--no-group", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("file")
    a = ap.parse_args()
    extra = ["--no-group-device-calls"] if a.no_group else []
    g = json.loads(subprocess.run([a.dspc, a.file, "--emit=graph-json"] + extra, check=True,
                                  stdout=subprocess.PIPE, text=True).stdout)["graphs"]
    if len(g) != 1:
        sys.exit(f"FAIL: expected one graph in {a.file}")
    fewest, device_calls = fewest_device_groups(g[0])
    want = device_calls if a.no_group else fewest
    cmd = [a.dspc, "run", a.file, "--target=" + a.target, "--random-inputs", "--check", "--json",
           "--repeat=" + str(a.repeat), "--timeout=240"] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited with {p.returncode}")
    r = json.loads(p.stdout)
    gr = r["graph"]
    ok = r["status"] == "ok" and r["check"]["passed"]
    rt = gr["round_trips"]["per_inference"]
    hexagon = a.target != "host"
    # In-process (host) sessions send no messages: no round trips at all.
    expected_rt = want if hexagon else 0
    print(f"{g[0]['name']} on {a.target}{' (grouping off)' if a.no_group else ''}: {gr['device_groups']} device "
          f"groups (fewest possible {fewest}, device calls {device_calls}), {rt} round trips per inference "
          f"(expected {expected_rt}), {gr['inference_ms']:.3f} ms per inference, check "
          f"{'passed' if ok else 'FAILED'}")
    if not ok:
        sys.exit("FAIL: the results differ from the reference interpreter")
    if gr["device_groups"] != want:
        sys.exit(f"FAIL: {gr['device_groups']} device groups, want {want}")
    if rt != expected_rt:
        sys.exit(f"FAIL: {rt} round trips per inference, want {expected_rt}")
    if gr["inferences"] != a.repeat or gr["round_trips"]["inferences"] != expected_rt * a.repeat:
        sys.exit("FAIL: round trips are not the same for every inference")


if __name__ == "__main__":
    main()
