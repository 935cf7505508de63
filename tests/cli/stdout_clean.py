#!/usr/bin/env python3
"""Nothing but the requested output on stdout, in every mode of dspc.

  stdout_clean.py --dspc build/dspc --source-dir . --work-dir /tmp/x --qemu qemu-hexagon

Every command runs twice: as given, and with every option that makes dspc talk added
(--print-after-all, --time-passes, --verify-each, --explain-schedule; --keep-temps for `dspc run`), and for
Hexagon runs of the runner with a simulator that itself writes to stdout and stderr (a wrapper
around qemu-hexagon given as --qemu). Sessions (--session, graphs) run qemu-hexagon itself: the
device server's sandbox lets no wrapper script start a program, and the session captures the
server's output on its side (runtime-support's tests). Standard output must be the same both times, and be what the
mode asks for:
  - compiling to stdout (-o -, or the text kinds' default): exactly the emitted text or object;
    JSON parses;
  - compiling to a file, and `dspc run --output`: nothing;
  - `dspc run`: the printed results; with --json one JSON object (timings aside, the same);
  - `dspc run main.c kernels.dsp`: the program's own output;
  - a failing compile or run: nothing, or with --json one JSON object.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import clitest

NOISE_COMPILE = ["--print-after-all", "--time-passes", "--verify-each", "--explain-schedule"]
NOISE_RUN = NOISE_COMPILE + ["--keep-temps"]
BAD_DSP = "func broken(A: u8[4]) -> (B: u8[4]) {\n  B[i] = A[i] +\n}\n"


def main():
    a, dspc, src, work = clitest.setup(__doc__, qemu=True)
    # A simulator that talks on both streams before it runs the program.
    noisy = clitest.script(os.path.join(work, "noisy-qemu"), "echo 'simulator: hello on stdout'\n"
                           f"echo 'simulator: hello on stderr' >&2\nexec '{a.qemu}' \"$@\"\n")
    bad = os.path.join(work, "bad.dsp")
    with open(bad, "w") as f:
        f.write(BAD_DSP)
    seed = os.path.join(src, "examples", "alloc_vtcm.dsp")
    dense = os.path.join(src, "examples", "dense.dsp")
    graph = os.path.join(src, "examples", "graphs", "diamond.dsp")
    main_c = os.path.join(src, "examples", "c-kernels", "main.c")
    kernels = os.path.join(src, "examples", "c-kernels", "kernels.dsp")
    failures = []

    def run(args, status):
        r = subprocess.run([dspc] + args, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        if r.returncode != status:
            failures.append(f"dspc {' '.join(args)}: exit code {r.returncode}, expected {status}\n"
                            f"{r.stderr.decode(errors='replace')[-2000:]}")
        # --keep-temps: the folders it kept are this test's to remove.
        for kept in re.findall(rb"keeping temporary files in (\S+)", r.stderr):
            shutil.rmtree(kept.decode(), ignore_errors=True)
        return r

    def both(args, noise, status=0):
        """Runs args plain and with the noise; returns both stdouts, after checking they agree."""
        plain, loud = run(args, status), run(args + noise, status)
        return plain.stdout, loud.stdout

    def same(what, x, y):
        if x != y:
            failures.append(f"{what}: stdout differs with the talking options:\n  plain: {x[:300]!r}\n"
                            f"  loud:  {y[:300]!r}")

    def run_json(what, stdout):
        try:
            report = json.loads(stdout)
        except ValueError as e:
            failures.append(f"{what}: stdout is not one JSON object ({e}): {stdout[:300]!r}")
            return None
        report.pop("timings_ms", None)
        report.get("graph", {}).pop("inference_ms", None)
        return report

    # ---- compiling to stdout: text kinds by default, and -o - for the others.
    for kind in ["tir", "llvm", "asm", "header", "json"]:
        plain, loud = both([seed, f"--emit={kind}"], NOISE_COMPILE)
        same(f"--emit={kind}", plain, loud)
        if not plain:
            failures.append(f"--emit={kind}: nothing on stdout")
    for kind, magic in [("obj", b"\x7fELF"), ("asm", b"")]:
        plain, loud = both([seed, f"--emit={kind}", "-o", "-"], NOISE_COMPILE)
        same(f"--emit={kind} -o -", plain, loud)
        if not loud.startswith(magic):
            failures.append(f"--emit={kind} -o -: stdout does not start with {magic!r}: {loud[:40]!r}")
    plain, loud = both([graph, "--emit=graph-json"], NOISE_COMPILE)
    same("--emit=graph-json", plain, loud)
    run_json("--emit=graph-json", loud)
    _, loud = both([seed, "--emit=json"], NOISE_COMPILE)
    run_json("--emit=json", loud)

    # ---- compiling to files: nothing on stdout.
    for kind, out in [("obj", "k.o"), ("exe", "k.elf"), ("so", "k.so"), ("tir", "k.tir"), ("json", "k.json")]:
        plain, loud = both([seed, f"--emit={kind}", "-o", out], NOISE_COMPILE)
        if plain or loud:
            failures.append(f"--emit={kind} -o {out}: stdout is not empty: {loud[:300]!r}")
    plain, loud = both([bad, "--emit=tir"], NOISE_COMPILE, status=1)
    if plain or loud:
        failures.append(f"a compile error: stdout is not empty: {loud[:300]!r}")

    # ---- dspc run: the results, or one JSON object.
    for target in ["hexagon-v68", "host"]:
        for mode in [[], ["--session"]]:
            qemu = a.qemu if mode else noisy
            base = [dense, f"--target={target}", f"--qemu={qemu}", "--random-inputs", "--check"] + mode
            what = f"run {' '.join(base[1:])}"
            plain, loud = both(["run"] + base, NOISE_RUN)
            same(what, plain, loud)
            if not plain.startswith(b"C"):
                failures.append(f"{what}: stdout does not start with the result C: {plain[:200]!r}")
            plain, loud = both(["run"] + base + ["--json"], NOISE_RUN)
            x, y = run_json(what + " --json", plain), run_json(what + " --json", loud)
            if x is not None and y is not None and x != y:
                failures.append(f"{what} --json: the reports differ with the talking options:\n{x}\n{y}")
            plain, loud = both(["run"] + base + ["--output", "C=c.npy"], NOISE_RUN)
            if plain or loud:
                failures.append(f"{what} --output: stdout is not empty: {loud[:300]!r}")
    plain, loud = both(["run", graph, f"--qemu={a.qemu}", "--random-inputs", "--check"], NOISE_RUN)
    same("run a graph", plain, loud)
    plain, loud = both(["run", graph, f"--qemu={a.qemu}", "--random-inputs", "--check", "--json"], NOISE_RUN)
    x, y = run_json("run a graph --json", plain), run_json("run a graph --json", loud)
    if x is not None and y is not None and x != y:
        failures.append(f"run a graph --json: the reports differ with the talking options:\n{x}\n{y}")
    plain, loud = both(["run", bad, "--random-inputs", "--json"], NOISE_RUN, status=1)
    for out in (plain, loud):
        report = run_json("run --json of a bad program", out)
        if report is not None and report.get("status") != "error":
            failures.append(f"run --json of a bad program: status {report.get('status')!r}, expected 'error'")
    plain, loud = both(["run", bad, "--random-inputs"], NOISE_RUN, status=1)
    if plain or loud:
        failures.append(f"run of a bad program: stdout is not empty: {loud[:300]!r}")

    # ---- a C program: its own output, and nothing of dspc's or the simulator's.
    plain, loud = both(["run", main_c, kernels, f"--qemu={a.qemu}"], ["--time-passes", "--keep-temps"])
    same("run main.c kernels.dsp", plain, loud)
    if b"total: 11520" not in plain:
        failures.append(f"run main.c kernels.dsp: the program's output is missing: {plain[:300]!r}")

    return clitest.finish(failures, "stdout holds only the requested output in every mode")


if __name__ == "__main__":
    sys.exit(main())
