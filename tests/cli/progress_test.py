#!/usr/bin/env python3
"""Long work shows progress on a terminal, and only there (README "dspc run").

  progress_test.py --dspc build/dspc --source-dir . --work-dir /tmp/x --qemu qemu-hexagon

A run that takes over 2 s (a simulator that first waits 3 s, then runs the program) with its
stderr on a terminal (a pseudo-terminal) shows `dspc: running alloc_vtcm, N s` and erases the
line before its own messages, so the check line and the results are intact. The same run with
stderr on a pipe, with --quiet on the terminal, or on a terminal whose TERM is dumb, shows no
progress. The terminal runs set TERM themselves (xterm), whatever the caller's environment. A
graph run many times shows which inference it is at (`inference K of N`). The runs are
independent and mostly wait on the simulator, so they run at once: the test takes about as
long as its longest run.
"""
import concurrent.futures
import os
import pty
import re
import select
import subprocess
import sys

import clitest

PROGRESS = re.compile(rb"\r\x1b\[Kdspc: ([^\r\n]*?), \d+ s")


def run_on_terminal(cmd, stdout_too=False, term="xterm"):
    """Runs cmd with stderr (and stdout too) on a pseudo-terminal of type `term`; returns (exit
    code, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=slave if stdout_too else subprocess.PIPE, stderr=slave,
                         stdin=subprocess.DEVNULL, env=dict(os.environ, TERM=term))
    os.close(slave)
    seen, out = b"", b""
    while True:
        ready, _, _ = select.select([master] + ([p.stdout] if p.stdout else []), [], [], 1.0)
        if master in ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal is closed: every writer is gone
                chunk = b""
            if not chunk:
                break
            seen += chunk
        if p.stdout and p.stdout in ready:
            out += p.stdout.read1(65536)
        if p.poll() is not None and master not in ready and (not p.stdout or p.stdout not in ready):
            break
    out += p.stdout.read() if p.stdout else b""
    p.wait()
    os.close(master)
    return p.returncode, out, seen


def main():
    a, dspc, src, work = clitest.setup(__doc__, qemu=True)
    slow = clitest.script(os.path.join(work, "slow-qemu"), f"sleep 3\nexec '{a.qemu}' \"$@\"\n")
    seed = os.path.join(src, "examples", "alloc_vtcm.dsp")
    cmd = [dspc, "run", seed, "--random-inputs", "--check", f"--qemu={slow}"]

    # Each check is one independent `dspc run` (its own pseudo-terminal or pipe, its own
    # temporary folder) that mostly waits on the slow simulator: they run at once, and each
    # returns its failures, reported in this order.
    def on_terminal():
        failures = []
        status, out, seen = run_on_terminal(cmd)
        stages = [m.group(1).decode() for m in PROGRESS.finditer(seen)]
        if status != 0:
            failures.append(f"on a terminal: exit code {status}: {seen[-500:]!r}")
        if "running alloc_vtcm" not in stages:
            failures.append(f"on a terminal: no 'dspc: running alloc_vtcm, N s' line: {seen[-500:]!r}")
        # The check line starts a line of its own: the progress line was erased before it.
        if not re.search(rb"(^|\n|\r\x1b\[K)check: C matches the reference interpreter \(2048 elements\)\r?\n", seen):
            failures.append(f"on a terminal: the check line is not intact: {seen[-500:]!r}")
        if not out.startswith(b"C"):
            failures.append(f"on a terminal: stdout is not the result: {out[:200]!r}")
        return failures

    def no_progress(what, args, term):
        status, out, seen = run_on_terminal(cmd + args, term=term)
        if status != 0 or PROGRESS.search(seen) or b"\x1b[K" in seen:
            return [f"{what}: progress shown (exit {status}): {seen[-500:]!r}"]
        return []

    def on_a_pipe():
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0 or b"dspc: running" in r.stderr or b"\x1b[K" in r.stderr:
            return [f"stderr on a pipe: progress shown (exit {r.returncode}): {r.stderr[-500:]!r}"]
        return []

    # A C program writes to the terminal itself: no progress line is left in front of its output.
    def c_program():
        example = os.path.join(src, "examples", "c-kernels")
        status, _, seen = run_on_terminal([dspc, "run", os.path.join(example, "main.c"),
                                           os.path.join(example, "kernels.dsp"), f"--qemu={slow}"], stdout_too=True)
        if status != 0 or not re.search(rb"(^|\n|\x1b\[K)row sums: 992", seen):
            return ["a C program on a terminal: its output is not on a line of its own "
                    f"(exit {status}): {seen[-500:]!r}"]
        return []

    def graph_repeated():
        graph = os.path.join(src, "examples", "graphs", "diamond.dsp")
        # 100,000 inferences: about 6 s on an idle machine (10,000 took under the 2 s threshold).
        status, out, seen = run_on_terminal([dspc, "run", graph, "--random-inputs", f"--qemu={a.qemu}",
                                             "--repeat=100000", "--json-max-values=0", "--json"])
        stages = [m.group(1).decode() for m in PROGRESS.finditer(seen)]
        if status != 0 or not any(re.fullmatch(r"running diamond \(inference \d+ of 100000\)", s) for s in stages):
            return [f"a graph run 100000 times: no 'inference K of 100000' (exit {status}): {stages[-5:]}"]
        return []

    checks = [on_terminal, lambda: no_progress("--quiet on a terminal", ["--quiet"], "xterm"),
              lambda: no_progress("TERM=dumb on a terminal", [], "dumb"), on_a_pipe, c_program, graph_repeated]
    with concurrent.futures.ThreadPoolExecutor(len(checks)) as pool:
        results = [pool.submit(check) for check in checks]
        failures = [f for r in results for f in r.result()]

    return clitest.finish(failures, "progress on a terminal only, erased before other messages, quiet with --quiet")


if __name__ == "__main__":
    sys.exit(main())
