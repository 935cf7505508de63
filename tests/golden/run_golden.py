#!/usr/bin/env python3
"""Runs one golden test: the `// RUN:` (or `# RUN:`) lines of a file, in order, with bash.

Substitutions in RUN lines:
  %dspc      the dspc driver under test
  %s         this test file            %S  its folder
  %t         a scratch path unique to this test (use %t.o, %t.elf, ...)
  FileCheck, llvm-nm, llvm-objdump, not, clang   LLVM 19's tools (not inverts an exit code)
  %qemu      qemu-hexagon
A RUN line ending in '\\' continues on the next RUN line. Every line must exit 0, so a
pipeline into FileCheck fails when FileCheck does (pipefail), and `not %dspc ...` demands a
failure. A file with no RUN line is an error: a test that runs nothing cannot fail.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys


RUN = re.compile(r"\s*(?://|#)\s*RUN:\s?(.*)$")
TOOLS = ("FileCheck", "llvm-nm", "llvm-objdump", "not", "clang")


def parse_run_lines(lines):
    """The commands of the RUN lines among `lines`, continuation lines joined."""
    out, pending = [], ""
    for raw in lines:
        m = RUN.match(raw.rstrip("\n"))
        if not m:
            continue
        text = m.group(1).rstrip()
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        out.append(pending + text)
        pending = ""
    if pending:
        out.append(pending)
    return out


def run_lines(path):
    with open(path, encoding="utf-8") as f:
        return parse_run_lines(f)


def substitute(cmd, dspc, llvm_bin, qemu, test, scratch):
    """Expands %dspc, %qemu, %s, %S, %t and LLVM 19's tools in one RUN command."""
    for key, val in [("%dspc", shlex.quote(dspc)), ("%qemu", shlex.quote(qemu)), ("%s", shlex.quote(test)),
                     ("%S", shlex.quote(os.path.dirname(test))), ("%t", shlex.quote(scratch))]:
        cmd = cmd.replace(key, val)
    for tool in TOOLS:
        full = shlex.quote(os.path.join(llvm_bin, tool))
        cmd = re.sub(r"(?<![\w./-])" + re.escape(tool) + r"(?![\w.-])", full, cmd)
    return cmd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--llvm-bin", required=True)
    ap.add_argument("--qemu", default="qemu-hexagon")
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("test")
    a = ap.parse_args()

    test = os.path.abspath(a.test)
    lines = run_lines(test)
    if not lines:
        print(f"{test}: no RUN lines", file=sys.stderr)
        return 1
    os.makedirs(a.work_dir, exist_ok=True)
    scratch = os.path.join(a.work_dir, re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.relpath(test, "/")))
    for i, line in enumerate(lines, 1):
        cmd = substitute(line, a.dspc, a.llvm_bin, a.qemu, test, scratch)
        print(f"RUN {i}: {cmd}", flush=True)
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], timeout=600)
        if r.returncode != 0:
            print(f"{test}: RUN line {i} failed with exit code {r.returncode}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
