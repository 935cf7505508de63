#!/usr/bin/env python3
"""Every --emit=tir output compiles back to the same module (README "TIR").

  tir_round_trip.py --dspc build/dspc --source-dir . --work-dir /tmp/x [--jobs 2] [--only SUBSTR]
                    [--sample N]

For every program of the end-to-end tests (tests/e2e: programs, generic instantiations,
graphs, the op-library network), every example (examples/*.dsp, examples/graphs/*.dsp) and
every golden test file that compiles with the default options and the generic instantiations
its RUN lines ask for (tests/golden/**/*.dsp and *.tir; the error tests do not compile, and are
counted apart):

  A.dsp --emit=llvm            -> direct.ll
  A.dsp --emit=tir             -> A.tir
  A.tir --emit=llvm            -> back.ll     must equal direct.ll
  A.tir --emit=tir             -> A2.tir      must equal A.tir

The LLVM IR is compared at -O0 (dspc's passes are the same at every -O; the IR LLVM starts
from is what the TIR decides), with the module's name lines left out. A program that compiles
from .dsp but whose TIR does not compile back, or compiles to other code, fails the test.

--sample N tries every Nth program of that list (sorted by family, then name), a fixed sample
of each family: the default test tier runs that, the full tier every program.
"""
import concurrent.futures
import glob
import os
import re
import shlex
import subprocess
import sys

import clitest


def programs(src):
    """(name, path, extra args) for every program to try."""
    out = []
    for path in sorted(glob.glob(os.path.join(src, "tests/e2e/programs/*.dsp"))):
        out.append(("e2e/" + os.path.basename(path), path, []))
    for path in sorted(glob.glob(os.path.join(src, "tests/e2e/generic/*.dsp"))):
        # The instantiations its `# E2E-RUN: NAME ARGS` lines run (--func='f<1, 2>').
        with open(path) as f:
            runs = re.findall(r"^# E2E-RUN: \S+ (.+)$", f.read(), re.M)
        funcs = [a for r in runs for a in shlex.split(r) if a.startswith("--func=")]
        out.append(("e2e-generic/" + os.path.basename(path), path, funcs))
    for pattern in ["tests/e2e/graphs/*.dsp", "tests/e2e/exact/*.dsp", "tests/e2e/oplib/*.dsp",
                    "examples/*.dsp", "examples/graphs/*.dsp"]:
        for path in sorted(glob.glob(os.path.join(src, pattern))):
            out.append((os.path.relpath(path, src), path, []))
    for path in sorted(glob.glob(os.path.join(src, "tests/golden/**/*.dsp"), recursive=True) +
                       glob.glob(os.path.join(src, "tests/golden/**/*.tir"), recursive=True)):
        if "/Inputs/" in path:
            continue
        # The generic instantiations its RUN lines compile.
        with open(path, errors="replace") as f:
            insts = sorted(set(re.findall(r"--func='([^']*<[^']*>)'", f.read())))
        out.append((os.path.relpath(path, src), path, [f"--func={i}" for i in insts]))
    return out


def strip_names(ll):
    return "\n".join(l for l in ll.split("\n") if not l.startswith("; ModuleID") and
                     not l.startswith("source_filename"))


def one(dspc, work, k, name, path, args):
    """Returns ('ok' | 'skipped' | 'fail', message)."""
    base = os.path.join(work, f"{k:04d}")
    common = ["-O0"] + args

    def dspc_run(*cmd):
        return subprocess.run([dspc] + list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=600)

    direct = dspc_run(path, "--emit=llvm", "-o", base + ".direct.ll", *common)
    if direct.returncode != 0:
        if name.startswith("tests/golden/"):
            return "skipped", ""  # an error test: nothing to round-trip
        return "fail", f"{name}: does not compile:\n{direct.stderr}"
    r = dspc_run(path, "--emit=tir", "-o", base + ".tir", *common)
    if r.returncode != 0:
        return "fail", f"{name}: compiles to LLVM IR but not to TIR:\n{r.stderr}"
    tir_args = [a for a in common if not a.startswith("--func=")]  # TIR holds the instances
    r = dspc_run(base + ".tir", "--emit=llvm", "-o", base + ".back.ll", *tir_args)
    if r.returncode != 0:
        return "fail", f"{name}: its --emit=tir output does not compile back:\n{r.stderr}"
    with open(base + ".direct.ll") as f1, open(base + ".back.ll") as f2:
        if strip_names(f1.read()) != strip_names(f2.read()):
            return "fail", f"{name}: its TIR compiles to other LLVM IR than the source ({base}.direct.ll, {base}.back.ll)"
    r = dspc_run(base + ".tir", "--emit=tir", "-o", base + ".2.tir", *tir_args)
    with open(base + ".tir") as f1, open(base + ".2.tir") as f2:
        if r.returncode != 0 or f1.read() != f2.read():
            return "fail", f"{name}: its TIR does not print back as the same TIR\n{r.stderr}"
    for suffix in [".direct.ll", ".back.ll", ".tir", ".2.tir"]:
        os.remove(base + suffix)
    return "ok", ""


def main():
    def extra(ap):
        ap.add_argument("--jobs", type=int, default=2)
        ap.add_argument("--only", help="only the programs whose name contains this")
        ap.add_argument("--sample", type=int, default=1, metavar="N", help="every Nth program only")
    a, dspc, src, work = clitest.setup(__doc__, extra=extra)
    if a.sample < 1:
        print("tir_round_trip.py: --sample takes a positive count", file=sys.stderr)
        return 2
    todo = [p for p in programs(src) if not a.only or a.only in p[0]][::a.sample]
    counts = {"ok": 0, "skipped": 0, "fail": 0}
    e2e_ok = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(one, dspc, work, k, *p) for k, p in enumerate(todo)]
        for p, fut in zip(todo, futures):
            status, msg = fut.result()
            counts[status] += 1
            if status == "ok" and not p[0].startswith("tests/golden/"):
                e2e_ok += 1
            if msg:
                print("FAIL:", msg, file=sys.stderr)
    print(f"TIR round trip: {counts['ok']} programs compile back to the same LLVM IR "
          f"({e2e_ok} end-to-end programs and examples, {counts['ok'] - e2e_ok} golden files); "
          f"{counts['skipped']} golden files do not compile (error tests); {counts['fail']} failures")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
