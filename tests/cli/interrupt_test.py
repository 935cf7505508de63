#!/usr/bin/env python3
"""An interrupted `dspc run` leaves nothing behind (README "dspc run").

  interrupt_test.py --dspc build/dspc --source-dir . --work-dir /tmp/x

Each case starts `dspc run` with TMPDIR set to an empty folder of its own and a simulator
(--qemu) that waits on a FIFO nobody writes (a session's device server runs it in its sandbox,
which lets it read only: it can write no file, so the test finds it in /proc by the script's
path), so the run is surely in progress; then sends dspc SIGINT or SIGTERM. dspc must exit with 130 (SIGINT) or 143 (SIGTERM), the simulator
process must be gone, and the temporary folder dspc made (dspc-run-*) must be removed. Cases:
the runner (a func), --session (the device server's qemu), a graph, and a C program.
"""
import os
import signal
import subprocess
import sys
import time

import clitest


def alive(pid):
    """Whether the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def find_script(path):
    """The process id of the running script `path` (its command line names it), or None."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if path.encode() in argv[:2] and alive(int(pid)):
            return int(pid)
    return None


def main():
    _, dspc, src, work = clitest.setup(__doc__)
    failures = []
    seed = os.path.join(src, "examples", "alloc_vtcm.dsp")
    graph = os.path.join(src, "examples", "graphs", "diamond.dsp")
    main_c = os.path.join(src, "examples", "c-kernels", "main.c")
    kernels = os.path.join(src, "examples", "c-kernels", "kernels.dsp")
    cases = [
        ("runner", ["run", seed, "--random-inputs"]),
        ("session", ["run", seed, "--random-inputs", "--session", "--timeout=120"]),
        ("graph", ["run", graph, "--random-inputs", "--timeout=120"]),
        ("c-program", ["run", main_c, kernels]),
    ]
    for name, args in cases:
        for sig, status in [(signal.SIGINT, 130), (signal.SIGTERM, 143)]:
            what = f"{name}, {sig.name}"
            case = os.path.join(work, f"{name}-{sig.name}")
            tmp = os.path.join(case, "tmp")
            os.makedirs(tmp)
            fifo = os.path.join(case, "never-written")
            os.mkfifo(fifo)
            qemu = clitest.script(os.path.join(case, "waiting-qemu"), f"read x < '{fifo}'\n")
            env = dict(os.environ, TMPDIR=tmp)
            p = subprocess.Popen([dspc] + args + ["--target=hexagon-v68", f"--qemu={qemu}"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.time() + 240
            qemu_pid = None
            while qemu_pid is None and p.poll() is None and time.time() < deadline:
                time.sleep(0.1)
                qemu_pid = find_script(qemu)
            if qemu_pid is None:
                p.kill()
                failures.append(f"{what}: the simulator never started ({p.communicate()[1].decode()[-500:]})")
                continue
            leftovers = os.listdir(tmp)
            if not any(x.startswith("dspc-") for x in leftovers):
                failures.append(f"{what}: no temporary folder in TMPDIR while running: {leftovers}")
            p.send_signal(sig)
            try:
                _, err = p.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                failures.append(f"{what}: dspc did not exit within 30 s of the signal")
                continue
            if p.returncode != status:
                failures.append(f"{what}: exit code {p.returncode}, expected {status}: {err.decode()[-500:]}")
            for _ in range(50):  # a session's server dies with dspc's threads: give it a moment
                if not alive(qemu_pid):
                    break
                time.sleep(0.1)
            if alive(qemu_pid):
                failures.append(f"{what}: the simulator (pid {qemu_pid}) still runs")
                os.kill(qemu_pid, signal.SIGKILL)
            if os.listdir(tmp):
                failures.append(f"{what}: left in TMPDIR: {os.listdir(tmp)}")
    return clitest.finish(failures, f"{len(cases) * 2} interrupted runs: exit 130/143, no simulator left, no temporary folder left")


if __name__ == "__main__":
    sys.exit(main())
