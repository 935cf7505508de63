#!/usr/bin/env python3
"""Shows that `dspc run --check` can fail: a wrong result is reported, not waved through.

  check_detects.py --dspc build/dspc --qemu /usr/bin/qemu-hexagon --source-dir . --work-dir /tmp/x

`--qemu` points dspc at a wrapper that runs the real simulator and then corrupts one output
element (it flips the low bit of the last byte of C.npy, element C[2047] of alloc_vtcm).
1. With a wrapper that does not corrupt anything, `--check` passes (exit 0, "matches").
2. With the corrupting wrapper, `--check` must exit 1 and name the element and the count:
   "check: C[2047] is X, the reference says Y" and "C: 1 of 2048 elements differ".
"""
import argparse
import os
import stat
import subprocess
import sys

WRAPPER = r'''#!{python}
import subprocess, sys
rc = subprocess.call([{qemu!r}] + sys.argv[1:])
if {corrupt!r} and rc == 0:
    for arg in sys.argv[1:]:
        if arg.startswith("C="):
            path = arg[2:]
            data = bytearray(open(path, "rb").read())
            data[-1] ^= 1
            open(path, "wb").write(bytes(data))
sys.exit(rc)
'''


def make_wrapper(path, qemu, corrupt):
    with open(path, "w") as f:
        f.write(WRAPPER.format(python=sys.executable, qemu=qemu, corrupt=corrupt))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def run(a, wrapper):
    cmd = [a.dspc, "run", os.path.join(a.source_dir, "examples", "alloc_vtcm.dsp"), "--target=hexagon-v68",
           "--random-inputs", "--seed=7", "--check", f"--qemu={wrapper}"]
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=280)
    print(r.stderr, end="")
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--qemu", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    a = ap.parse_args()
    os.makedirs(a.work_dir, exist_ok=True)
    honest = os.path.join(a.work_dir, "qemu-honest")
    corrupt = os.path.join(a.work_dir, "qemu-corrupt")
    make_wrapper(honest, a.qemu, False)
    make_wrapper(corrupt, a.qemu, True)

    r = run(a, honest)
    if r.returncode != 0 or "C matches the reference interpreter (2048 elements)" not in r.stderr:
        print(f"FAIL: the uncorrupted run should pass --check (exit {r.returncode})")
        return 1
    r = run(a, corrupt)
    if r.returncode != 1:
        print(f"FAIL: a corrupted output must make --check exit 1, got {r.returncode}")
        return 1
    for needle in ["check: C[2047] is ", ", the reference says ", "check: C: 1 of 2048 elements differ"]:
        if needle not in r.stderr:
            print(f"FAIL: expected {needle!r} in the --check report")
            return 1
    print("check-detects-corruption: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
