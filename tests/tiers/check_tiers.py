#!/usr/bin/env python3
"""The default tier (`ctest -LE full`, `bash setup.sh test`) still reaches every family of tests,
and the long ones are in the `full` tier only (`bash setup.sh test-all`).

  check_tiers.py --build-dir BUILD [--ctest CTEST]

Reads the tests and their labels from `ctest --show-only=json-v1` in BUILD. Fails if a family
below has no test in the default tier, or if a test that must be in `full` only is not.
"""
import argparse
import json
import re
import subprocess
import sys

# Each family and a regex of its tests' names: the default tier keeps at least one of each.
DEFAULT_FAMILIES = {
    "unit tests (GoogleTest)": r"^[A-Z]\w*\.\w+$",
    "golden: errors": r"^golden/errors$",
    "golden: passes": r"^golden/passes$",
    "golden: codegen": r"^golden/codegen$",
    "golden: driver": r"^golden/driver$",
    "golden location check": r"^tools/golden-locations-check$",
    "end-to-end programs on hexagon-v68": r"^e2e/[^/]+/hexagon-v68$",
    "end-to-end programs on host": r"^e2e/[^/]+/host$",
    "examples end to end": r"^e2e/examples/",
    "generic funcs end to end": r"^e2e/generic/",
    "op library": r"^e2e/oplib/",
    "sessions through dspc run": r"^e2e-session/",
    "graphs": r"^e2e-graph/",
    "host runtime sessions": r"^runtime/session/",
    "device runtime": r"^runtime/",
    "shared modules": r"^so/",
    "fuzz regressions": r"^fuzz/(replay|regression)/",
    "onnx": r"^onnx/",
    "HVX op checks": r"^opcheck/suite$",
    "layers": r"^layers/",
    "docs": r"^docs/",
    "bad input": r"^driver/bad-input$",
    "cli": r"^cli/",
    "examples/session": r"^examples/session/",
}
# Tests that only test-all runs.
FULL_ONLY = [r"^difftest/sample-", r"^fuzz/dspc-2000$", r"^install/", r"^build/unix-makefiles$",
             r"^e2e/difftest/", r"^e2e-compile/",
             r"^cli/tir-round-trip-all$", r"^opcheck/suite-all$"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--ctest", default="ctest")
    a = ap.parse_args()
    out = subprocess.run([a.ctest, "--show-only=json-v1"], cwd=a.build_dir, check=True,
                         capture_output=True, text=True).stdout
    tests = {}
    for t in json.loads(out)["tests"]:
        labels = []
        for p in t.get("properties", []):
            if p["name"] == "LABELS":
                labels = p["value"]
        tests[t["name"]] = labels
    # As `ctest -LE full` selects: a label that matches the regex `full` leaves a test out (so
    # onnx-full's opt-in tests too).
    default = [n for n, labels in tests.items() if not any(re.search("full", l) for l in labels)]
    full = [n for n in tests if n not in set(default)]
    bad = 0
    for family, regex in DEFAULT_FAMILIES.items():
        n = sum(1 for name in default if re.search(regex, name))
        print(f"{'ok' if n else 'FAIL'}: {family}: {n} test(s) in the default tier")
        bad += n == 0
    for regex in FULL_ONLY:
        every = [name for name in tests if re.search(regex, name)]
        left = [name for name in every if name in default]
        if not every or left:
            print(f"FAIL: {regex}: {len(every)} test(s), in the default tier: {left[:5]}")
            bad += 1
        else:
            print(f"ok: {regex}: {len(every)} test(s), all in the full tier only")
    print(f"tiers: {len(default)} tests in the default tier, {len(full)} in full only")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
