#!/usr/bin/env python3
"""Regenerates the CHECK lines of golden test files from dspc's current output.

  python3 tools/update-golden.py [--dspc build/dspc] [--dry-run] FILE...

Only files that opt in are touched. A file opts in with a marker comment, followed by the
block of check lines it owns:

  // AUTOGEN-CHECKS: 2
  // CHECK: ...                 <- replaced
  // CHECK-NEXT: ...            <- replaced

The marker names what to run:
  - a number N: the N-th RUN line of the file (counted as lit counts them, continuation
    lines joined). Its command is the part before the last `| FileCheck ...`,
    and the check prefix comes from that FileCheck's --check-prefix (default CHECK);
  - anything else: a shell command, e.g. `// AUTOGEN-CHECKS: %dspc %s --emit=header`,
    optionally starting with `prefix=NAME` to write NAME: lines instead of CHECK: lines.
Substitutions are those of tests/golden/lit.cfg.py: %dspc, %s, %S, %t, %qemu, python3, and
LLVM's `not`, `count`, FileCheck, llvm-nm, llvm-objdump, clang (the tool list is shared, in
tests/golden/golden_tools.py). %t is a scratch path of this script's own (--work-dir), not
lit's. stderr is not captured unless the command says `2>&1`.

The block after the marker (consecutive `// PREFIX:`, `// PREFIX-NEXT:`, -SAME, -EMPTY,
-NOT, -DAG, -LABEL, -COUNT-n lines) is replaced by the output: the first non-empty line as
`PREFIX:`, the following ones as `PREFIX-NEXT:`, empty lines as `PREFIX-EMPTY:`. FileCheck
metacharacters `{{` and `[[` are escaped, trailing blanks dropped, and the test's own path and
scratch path are replaced by `{{.*}}` patterns so the checks do not depend on the checkout.
A unified diff of every change is printed; --dry-run prints it and writes nothing.
Read the diff before committing: the new checks say what the output IS, not what it should be.

--self-test checks this script on a scratch golden file (needs no dspc).
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
import golden_tools  # noqa: E402  (the tools RUN lines name bare, as lit.cfg.py substitutes them)
import golden_locations  # noqa: E402  (tools/golden_locations.py)

MARKER = re.compile(r"^(\s*(?://|#)\s*)AUTOGEN-CHECKS:\s*(.*?)\s*$")
def split_filecheck(run_line):
    """'CMD | FileCheck --check-prefix=X %s' -> ('CMD', 'X')."""
    m = re.search(r"\|\s*FileCheck\b([^|]*)$", run_line)
    if not m:
        raise ValueError(f"RUN line does not pipe into FileCheck: {run_line}")
    opts = m.group(1)
    p = re.search(r"--check-prefix(?:es)?[= ]([A-Za-z0-9_-]+)", opts)
    return run_line[:m.start()].rstrip(), (p.group(1) if p else "CHECK")


def substitute(cmd, a, test, scratch):
    """Expands %dspc, %qemu, %s, %S, %t and the bare tools in one RUN command, as lit does."""
    for key, val in [("%dspc", a.dspc), ("%qemu", a.qemu), ("%s", test), ("%S", os.path.dirname(test)),
                     ("%t", scratch)]:
        cmd = cmd.replace(key, shlex.quote(val))
    for name, path in golden_tools.tool_paths(a.llvm_bin, sys.executable):
        cmd = re.sub(golden_tools.tool_regex(name), lambda _m, p=path: shlex.quote(p), cmd)
    return cmd


def escape(line, test, scratch):
    """One output line as a FileCheck pattern matching it literally."""
    parts = re.split(r"(\{\{|\[\[|" + re.escape(scratch) + r"[\w./-]*|" + re.escape(test) + ")", line)
    out = []
    for p in parts:
        if p == "{{":
            out.append("{{[{][{]}}")
        elif p == "[[":
            out.append("{{[[][[]}}")
        elif p == test:
            out.append("{{.*}}" + os.path.basename(test))
        elif p.startswith(scratch) and p:
            out.append("{{.*}}")
        else:
            out.append(p)
    return "".join(out).rstrip()


def check_block(leader, prefix, output, test, scratch):
    lines = [escape(line, test, scratch) for line in output.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise ValueError("the command printed nothing: no checks to write")
    block = []
    for k, line in enumerate(lines):
        if not line.strip():
            block.append(f"{leader}{prefix}-EMPTY:")
        else:
            block.append(f"{leader}{prefix}{':' if k == 0 else '-NEXT:'} {line}")
    return block


def update_file(path, a):
    test = os.path.abspath(path)
    with open(test, encoding="utf-8") as f:
        original = f.read().split("\n")
    runs = golden_tools.parse_run_lines(original)
    scratch = os.path.join(a.work_dir, re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.relpath(test, "/")))
    os.makedirs(a.work_dir, exist_ok=True)
    lines, k, found = [], 0, False
    while k < len(original):
        line = original[k]
        lines.append(line)
        k += 1
        m = MARKER.match(line)
        if not m:
            continue
        found = True
        leader, spec = m.group(1), m.group(2)
        if re.fullmatch(r"\d+", spec):
            n = int(spec)
            if not 1 <= n <= len(runs):
                raise ValueError(f"{path}: AUTOGEN-CHECKS names RUN line {n}, the file has {len(runs)}")
            cmd, prefix = split_filecheck(runs[n - 1])
        else:
            prefix = "CHECK"
            pm = re.match(r"prefix=([A-Za-z0-9_-]+)\s+(.*)$", spec)
            cmd = pm.group(2) if pm else spec
            prefix = pm.group(1) if pm else prefix
        directive = re.compile(r"^\s*(?://|#)\s*" + re.escape(prefix) +
                               r"(-NEXT|-SAME|-EMPTY|-NOT|-DAG|-LABEL|-COUNT-\d+)?:")
        while k < len(original) and directive.match(original[k]):
            k += 1  # drop the old block
        full = substitute(cmd, a, test, scratch)
        r = subprocess.run(["bash", "-o", "pipefail", "-c", full], stdout=subprocess.PIPE, text=True,
                           errors="replace", timeout=600)
        if r.returncode != 0:
            print(f"{path}: note: `{cmd}` exited with {r.returncode} (checks written anyway)", file=sys.stderr)
        lines.extend(check_block(leader, prefix, r.stdout, test, scratch))
    if not found:
        print(f"{path}: no AUTOGEN-CHECKS marker, skipped", file=sys.stderr)
        return False
    # Diagnostics located in this file say their line relative to the check line, as every
    # golden does (tools/golden_locations.py), so that edits above them break nothing.
    lines = golden_locations.convert(test, "\n".join(lines), move=False).split("\n")
    if lines == original:
        return False
    sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in original], [l + "\n" for l in lines],
                                               fromfile=path, tofile=path + " (updated)"))
    if not a.dry_run:
        with open(test, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    return True


def self_test(a):
    """Writes a scratch golden, regenerates its checks, and runs FileCheck on the result."""
    with tempfile.TemporaryDirectory() as tmp:
        golden = os.path.join(tmp, "sample.dsp")
        with open(golden, "w") as f:
            f.write("// RUN: printf 'first {{x}}\\n\\n  third [[y]]\\n' | FileCheck --check-prefix=OUT %s\n"
                    "// RUN: echo %s:12:3: error | FileCheck --check-prefix=LOC %s\n"
                    "// AUTOGEN-CHECKS: 1\n// OUT: stale\n// OUT-NEXT: stale too\n"
                    "// AUTOGEN-CHECKS: prefix=CMD echo hello %s\n// CMD: bye\n"
                    "// AUTOGEN-CHECKS: 2\n// LOC: stale\n"
                    "func f(A: i8[1]) -> (C: i8[1]) {\n  C[i] = A[i]\n}\n")
        a.work_dir = tmp
        a.dry_run = False
        if not update_file(golden, a):
            print("self-test: FAIL, nothing updated")
            return 1
        text = open(golden).read()
        want = ["// OUT: first {{[{][{]}}x}}", "// OUT-EMPTY:", "// OUT-NEXT:   third {{[[][[]}}y]]",
                "// CMD: hello {{.*}}sample.dsp", "// LOC: {{.*}}sample.dsp:[[@LINE+2]]:3: error"]
        for w in want:
            if w not in text:
                print(f"self-test: FAIL, expected line {w!r} in:\n{text}")
                return 1
        if "stale" in text or "bye" in text:
            print(f"self-test: FAIL, old checks left over:\n{text}")
            return 1
        fc = os.path.join(a.llvm_bin, "FileCheck")
        if os.path.exists(fc):
            r = subprocess.run(f"printf 'first {{{{x}}}}\\n\\n  third [[y]]\\n' | {shlex.quote(fc)} "
                               f"--check-prefix=OUT {shlex.quote(golden)}", shell=True)
            if r.returncode != 0:
                print("self-test: FAIL, FileCheck rejects the regenerated checks")
                return 1
            for line, want_rc in ((12, 0), (11, 1)):
                r = subprocess.run(f"echo {shlex.quote(golden)}:{line}:3: error | {shlex.quote(fc)} "
                                   f"--check-prefix=LOC {shlex.quote(golden)}", shell=True, capture_output=True)
                if (r.returncode == 0) != (want_rc == 0):
                    print(f"self-test: FAIL, FileCheck {'rejects' if want_rc == 0 else 'accepts'} "
                          f"the location at line {line}")
                    return 1
        if update_file(golden, a):
            print("self-test: FAIL, a second update changed the file again")
            return 1
    print("self-test: ok")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", default=os.path.join(ROOT, "build", "dspc"))
    ap.add_argument("--llvm-bin", default="/usr/lib/llvm-19/bin")
    ap.add_argument("--qemu", default="qemu-hexagon")
    ap.add_argument("--work-dir", default=os.path.join(tempfile.gettempdir(), "dspc-update-golden"))
    ap.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a)
    if not a.files:
        ap.error("no files given")
    a.dspc = os.path.abspath(a.dspc)
    status, changed = 0, 0
    for path in a.files:
        try:
            changed += update_file(path, a)
        except (ValueError, subprocess.TimeoutExpired) as e:
            print(f"{path}: error: {e}", file=sys.stderr)
            status = 1
    print(f"update-golden: {changed} file(s) {'would change' if a.dry_run else 'changed'}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
