#!/usr/bin/env python3
"""The CPU time of each CTest test (user + system, its child processes included).

  python3 tools/test-cpu.py --build-dir build [--jobs 2] [--tsv FILE] [-- CTEST_ARGS...]

Runs the tests that `ctest CTEST_ARGS` would run (e.g. `-- -LE full` for the default tier,
`-- -L e2e`), each as CTest would (its command, folder and environment), on --jobs workers, and
measures each with wait4(): the CPU seconds of the test's process and of every process it
waited for. On a shared, loaded machine wall time says little about a test, and CPU time
still holds: on an idle machine with N cores, a tier takes about its CPU seconds / N.

Prints one line per test (CPU seconds, wall seconds, status, name), the total per label, and
the total; --tsv also writes the rows as tab-separated values. Fixture setup tests run before
the tests that require them. Status is CTest's (exit code, PASS_REGULAR_EXPRESSION,
WILL_FAIL, SKIP_RETURN_CODE); the exit code is 1 if a test failed.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def ctest_tests(build_dir, ctest_args):
    out = subprocess.run(["ctest", "--show-only=json-v1", *ctest_args], cwd=build_dir, check=True,
                         capture_output=True, text=True).stdout
    tests = []
    for t in json.loads(out)["tests"]:
        if not t.get("command"):
            continue
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append((t["name"], t["command"], props))
    return tests


def run_test(build_dir, name, command, props):
    env = dict(os.environ)
    for kv in props.get("ENVIRONMENT", []):
        k, _, v = kv.partition("=")
        env[k] = v
    cwd = props.get("WORKING_DIRECTORY", build_dir)
    timeout = float(props.get("TIMEOUT", 1500))
    with tempfile.TemporaryFile() as log:
        start = time.monotonic()
        p = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        status, usage, timed_out = None, None, False
        while status is None:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid == 0:
                status = None
                if time.monotonic() - start > timeout:
                    os.killpg(p.pid, 9)
                    timed_out = True
                time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        log.seek(0)
        output = log.read().decode(errors="replace")
    cpu = usage.ru_utime + usage.ru_stime
    rc = p.returncode
    if timed_out:
        verdict = "timeout"
    elif "SKIP_RETURN_CODE" in props and rc == int(props["SKIP_RETURN_CODE"]):
        verdict = "skipped"
    else:
        if "PASS_REGULAR_EXPRESSION" in props:
            ok = any(re.search(r, output, re.S) for r in props["PASS_REGULAR_EXPRESSION"])  # CMake: . matches \n
        else:
            ok = rc == 0
        if any(re.search(r, output, re.S) for r in props.get("FAIL_REGULAR_EXPRESSION", [])):
            ok = False
        if props.get("WILL_FAIL"):
            ok = not ok
        verdict = "passed" if ok else "failed"
    return name, cpu, wall, verdict, props.get("LABELS", [])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tsv", help="also write the rows here")
    ap.add_argument("ctest_args", nargs="*", help="after --: what ctest would select, e.g. -LE full")
    a = ap.parse_args()
    build_dir = os.path.abspath(a.build_dir)
    tests = ctest_tests(build_dir, a.ctest_args)
    setups = [t for t in tests if t[2].get("FIXTURES_SETUP")]
    rest = [t for t in tests if not t[2].get("FIXTURES_SETUP")]
    rows = []
    for t in setups:
        rows.append(run_test(build_dir, *t))
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [pool.submit(run_test, build_dir, *t) for t in rest]
        for f in concurrent.futures.as_completed(futures):
            rows.append(f.result())
            name, cpu, wall, verdict, _labels = rows[-1]
            print(f"{cpu:9.2f} {wall:9.2f}  {verdict:8} {name}", flush=True)
    per_label = collections.defaultdict(lambda: [0, 0.0])
    for _name, cpu, _wall, _verdict, labels in rows:
        for label in labels or ["(none)"]:
            per_label[label][0] += 1
            per_label[label][1] += cpu
    print("\nCPU seconds per label (a test with several labels counts in each):")
    for label, (n, cpu) in sorted(per_label.items(), key=lambda kv: -kv[1][1]):
        print(f"  {label:14} {n:5} tests {cpu:10.1f} s")
    total = sum(r[1] for r in rows)
    failed = [r[0] for r in rows if r[3] in ("failed", "timeout")]
    print(f"test-cpu: {len(rows)} tests, {total:.1f} CPU seconds (about {total / a.jobs:.0f} s on "
          f"{a.jobs} idle cores), {len(failed)} failed")
    for name in failed:
        print(f"  failed: {name}")
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("name\tcpu_s\twall_s\tstatus\tlabels\n")
            for name, cpu, wall, verdict, labels in sorted(rows):
                f.write(f"{name}\t{cpu:.3f}\t{wall:.3f}\t{verdict}\t{';'.join(labels)}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
