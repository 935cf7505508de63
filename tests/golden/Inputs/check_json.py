#!/usr/bin/env python3
"""Checks dspc's JSON outputs against other sources of truth (golden tests' RUN lines).

  check_json.py module JSON NM_S LIST_PASSES [--tir]
      `dspc --emit=json` output JSON: valid JSON with the schema's keys; `passes` is
      `dspc --list-passes` (LIST_PASSES), without schedule-ops and group-device-calls for TIR input; each function's
      `code_bytes` is its symbol's size in `llvm-nm -S` of the --emit=obj object (NM_S); the
      code sizes fit in `text_bytes`.
  check_json.py run JSON [--status S]
      `dspc run --json` output: valid JSON, the schema's keys and types, timings that are
      non-negative numbers, `status` S (default ok), values (when present) as many as elements.
Prints "ok" or the first problem, and exits 1 on a problem.
"""
import json
import sys


def fail(msg):
    print("check_json: " + msg)
    sys.exit(1)


def want(cond, msg):
    if not cond:
        fail(msg)


def check_module(args):
    path, nm_path, passes_path = args[:3]
    tir = "--tir" in args[3:]
    d = json.load(open(path))
    for key in ("format", "version", "module", "source", "target", "opt_level", "passes", "text_bytes", "functions"):
        want(key in d, f"no key {key!r}")
    want(d["format"] == "dspc-module" and d["version"] == 1, "wrong format/version")
    want(d["module"] is None, "module should be null for --emit=json")
    passes = [p.strip() for p in open(passes_path) if p.strip()]
    if tir:
        passes = [p for p in passes if p not in ("schedule-ops", "group-device-calls")]
    want(d["passes"] == passes, f"passes {d['passes']} != {passes}")
    sizes = {}
    for line in open(nm_path):
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            sizes[parts[3]] = int(parts[1], 16)
    want(isinstance(d["text_bytes"], int) and d["text_bytes"] > 0, "text_bytes not a positive integer")
    total = 0
    for f in d["functions"]:
        for key in ("name", "entry", "params", "vtcm_bytes", "code_bytes"):
            want(key in f, f"function without {key!r}")
        want(f["name"] in sizes, f"{f['name']} not a function symbol in the object")
        want(f["code_bytes"] == sizes[f["name"]], f"{f['name']}: code_bytes {f['code_bytes']} != nm's {sizes[f['name']]}")
        total += f["code_bytes"]
        for p in f["params"]:
            want(set(p) == {"name", "dtype", "shape", "is_output"}, f"param keys {sorted(p)}")
            want(all(isinstance(n, int) and n > 0 for n in p["shape"]), f"bad shape {p['shape']}")
    want(total <= d["text_bytes"], f"code_bytes add up to {total} > text_bytes {d['text_bytes']}")


def check_run(args):
    path = args[0]
    status = args[args.index("--status") + 1] if "--status" in args else "ok"
    d = json.load(open(path))
    keys = ["format", "version", "source", "function", "target", "mode", "status", "error", "outputs", "check",
            "timings_ms"]
    if d.get("mode") == "graph" and "graph" in d:  # a graph's run adds its round trips
        keys.append("graph")
    want(list(d) == keys, f"keys {list(d)} != {keys}")
    want(d["format"] == "dspc-run" and d["version"] == 1, "wrong format/version")
    if "graph" in d:
        g = d["graph"]
        rt = g["round_trips"]
        want(rt["inferences"] == rt["per_inference"] * g["inferences"], "round trips per inference disagree")
        want(g["device_calls_per_inference"] == g["device_groups"], "one device call per device group")
        want(g["device_groups"] >= rt["per_inference"], "more round trips than device groups")
    want(d["status"] == status, f"status {d['status']!r}, expected {status!r}")
    want((d["error"] is None) == (status != "error"), f"error {d['error']!r} with status {status}")
    for name, ms in d["timings_ms"].items():
        want(name in ("compile", "codegen", "link", "run", "check"), f"unknown timing {name}")
        want(isinstance(ms, (int, float)) and ms >= 0, f"timing {name} = {ms!r}")
    for o in d["outputs"]:
        n = 1
        for e in o["shape"]:
            n *= e
        want(o["elements"] == n, f"{o['name']}: elements {o['elements']} != product of {o['shape']}")
        if "values" in o:
            want(len(o["values"]) == n, f"{o['name']}: {len(o['values'])} values for {n} elements")
    if d["check"] is not None:
        want(d["check"]["passed"] == all(c["mismatches"] == 0 for c in d["check"]["outputs"]), "passed disagrees")
        want(d["check"]["passed"] == (status == "ok"), "check.passed disagrees with status")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("module", "run"):
        fail(__doc__)
    try:
        (check_module if sys.argv[1] == "module" else check_run)(sys.argv[2:])
    except (ValueError, KeyError, TypeError, OSError) as e:
        fail(f"{type(e).__name__}: {e}")
    print("ok")


if __name__ == "__main__":
    main()
