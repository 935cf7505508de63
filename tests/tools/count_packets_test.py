#!/usr/bin/env python3
"""tools/count-packets, the project's packet counter (bench/README.md).

  count_packets_test.py --dspc build/dspc --source-dir . --work-dir /tmp/x --qemu qemu-hexagon --llvm-bin DIR

On examples/alloc_vtcm.dsp built by dspc --emit=exe:
  - the functions it reads from the ELF are llvm-nm's (every defined text symbol with a size,
    at its address);
  - a made-up trace (over 1 MiB, so read in several chunks) is counted exactly: addresses in a
    function go to it, others to '?', --func sums the named ones;
  - a real run under qemu-hexagon: the counts per function are the lines of the saved trace
    that qemu itself labels with that function, the total is every line, and two runs agree;
  - the program's exit code comes back (a missing input: the runner's 2), and a stripped
    program is an error, not a wrong count.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import clitest  # noqa: E402


def main():
    def extra(ap):
        ap.add_argument("--llvm-bin", required=True)
    a, dspc, src, work = clitest.setup(__doc__, qemu=True, extra=extra)
    tool = os.path.join(src, "tools", "count-packets")
    failures = []
    elf = os.path.join(work, "av.elf")
    subprocess.run([dspc, os.path.join(src, "examples", "alloc_vtcm.dsp"), "--emit=exe", "-o", elf], check=True)

    def count(args, status=0):
        p = subprocess.run([sys.executable, tool, "--qemu", a.qemu, "--json"] + args, cwd=work,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != status:
            failures.append(f"count-packets {' '.join(args)}: exit {p.returncode}, expected {status}: {p.stderr[-500:]}")
            return None
        return json.loads(p.stdout)

    # 1. The ELF's functions, against llvm-nm.
    sys.path.insert(0, os.path.dirname(tool))
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("count_packets", tool)
    cp = importlib.util.module_from_spec(importlib.util.spec_from_loader("count_packets", loader))
    loader.exec_module(cp)
    ours = {name: (start, end) for start, end, name in cp.read_functions(elf)}
    nm = subprocess.run([os.path.join(a.llvm_bin, "llvm-nm"), "-S", "--defined-only", elf], stdout=subprocess.PIPE,
                        text=True, check=True).stdout
    checked = 0
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "Tt" and int(f[1], 16) > 0:
            checked += 1
            addr, size = int(f[0], 16), int(f[1], 16)
            if ours.get(f[3]) != (addr, addr + size) and not any(s == addr for s, _ in ours.values()):
                failures.append(f"{f[3]}: llvm-nm says [{addr:#x}, {addr + size:#x}), count-packets {ours.get(f[3])}")
    if checked < 20 or "alloc_vtcm" not in ours or "dspc_main" not in ours:
        failures.append(f"too few functions read from the ELF: {sorted(ours)[:10]}")

    # 2. A made-up trace.
    kernel, main_fn = ours["alloc_vtcm"], ours["dspc_main"]
    lines = []
    for k in range(30000):
        lines.append(f"Trace 0: 0x7f0000000000 [00000000/{kernel[0] + 4 * (k % 3):08x}/00000000/00000201] alloc_vtcm")
        lines.append(f"Trace 0: 0x7f0000000100 [00000000/{main_fn[1] - 4:08x}/00000000/00000201] dspc_main")
    lines.append("Trace 0: 0x7f0000000200 [00000000/00000010/00000000/00000201] ")
    lines.append("some other log line")
    trace = os.path.join(work, "made-up.trace")
    with open(trace, "w") as f:
        f.write("\n".join(lines) + "\n")
    d = count(["--from-trace", trace, "--func", "alloc_vtcm", elf])
    want = {"alloc_vtcm": 30000, "dspc_main": 30000, "?": 1}
    if d and (d["by_symbol"] != want or d["total"] != 60001 or d["picked"] != 30000 or d["exit"] != 0):
        failures.append(f"made-up trace: {d}, expected by_symbol {want}, total 60001, picked 30000")

    # 3. A real run, against qemu's own labels.
    npy = os.path.join(src, "tests", "e2e", "npy_tool.py")
    for name, seed in [("A", 1), ("B", 2)]:
        subprocess.run([sys.executable, npy, "write", os.path.join(work, name + ".npy"), "i8", "2048"] +
                       [str((seed * k) % 256 - 128) for k in range(2048)], check=True)
    run = ["--func", "alloc_vtcm", "--", elf, "A=A.npy", "B=B.npy", "C=C.npy"]
    saved = os.path.join(work, "real.trace")
    d1, d2 = count(["--save-trace", saved] + run), count(run)
    if d1 and d2:
        labels = {}
        n = 0
        with open(saved, errors="replace") as f:
            for line in f:
                if line.startswith("Trace "):
                    n += 1
                    label = line.rstrip("\n").split("] ", 1)[1] if "] " in line else ""
                    labels[label] = labels.get(label, 0) + 1
        for name, c in d1["by_symbol"].items():
            if name != "?" and labels.get(name) != c:
                failures.append(f"real run: {name}: count-packets {c}, qemu's labels {labels.get(name)}")
        if d1["total"] != n or n < 1000:
            failures.append(f"real run: total {d1['total']}, trace lines {n}")
        if d1["by_symbol"] != d2["by_symbol"] or d1["picked"] <= 0 or d1["exit"] != 0:
            failures.append(f"real run: not repeatable, or no kernel packets: {d1['picked']} {d2['picked']} {d1['exit']}")

    # 4. Exit codes and errors.
    d = count(["--", elf, "A=missing.npy", "B=B.npy", "C=C.npy"], status=2)
    if d and d["exit"] != 2:
        failures.append(f"a failing program: exit {d['exit']} in the report, expected 2")
    stripped = os.path.join(work, "stripped.elf")
    subprocess.run([os.path.join(a.llvm_bin, "llvm-strip"), elf, "-o", stripped], check=True)
    p = subprocess.run([sys.executable, tool, "--", stripped], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode == 0 or "no symbol table" not in p.stderr:
        failures.append(f"a stripped program: exit {p.returncode}: {p.stderr[-300:]}")
    return clitest.finish(failures, f"count-packets: {checked} functions as llvm-nm reads them, made-up and real traces exact")


if __name__ == "__main__":
    sys.exit(main())
