#!/usr/bin/env python3
"""C programs that call kernels, built by dspc with Clang in-process (README "C and C++
programs that call kernels"), with no clang binary reachable: PATH is an empty folder.

  c_program_test.py --dspc build/dspc --source-dir . --work-dir /tmp/x --qemu qemu-hexagon --qemu-cpu v67

Checks, on examples/c-kernels (main.c calls two kernels of kernels.dsp and prints their result):
  - `dspc main.c kernels.dsp -o app.elf --target=hexagon-v68` builds a program that prints the
    expected sums under qemu-hexagon, and `dspc run main.c kernels.dsp` runs it (hexagon-v68
    and host);
  - C++ works too (main.cpp, the same program);
  - -MD names every input of the program;
  - a C syntax error gives Clang's diagnostic (file:line:col: error:, the source line, a caret)
    and exit code 1, and writes no program;
  - a C source that calls a kernel with the wrong arguments is refused by Clang (the header
    declares the kernels).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
EXPECTED = "row sums: 992 1120 1248 1376 1504 1632 1760 1888\ntotal: 11520\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--qemu", required=True)
    ap.add_argument("--qemu-cpu", required=True)
    a = ap.parse_args()
    dspc = os.path.abspath(a.dspc)
    example = os.path.join(a.source_dir, "examples", "c-kernels")
    work = os.path.abspath(a.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    empty_bin = os.path.join(work, "empty-bin")
    os.makedirs(empty_bin)
    # No clang (nor anything else) on the PATH dspc sees.
    env = dict(os.environ, PATH=empty_bin)
    for tool in ["clang", "clang-19", "cc", "gcc", "ld.lld"]:
        assert shutil.which(tool, path=env["PATH"]) is None, tool
    failures = []

    def run(args, expect_status=0, **kw):
        r = subprocess.run(args, env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=300, **kw)
        if r.returncode != expect_status:
            failures.append(f"{' '.join(args)}: exit code {r.returncode}, expected {expect_status}\n{r.stderr}")
        return r

    def expect(cond, what):
        if not cond:
            failures.append(what)

    main_c, kernels = os.path.join(example, "main.c"), os.path.join(example, "kernels.dsp")
    app = os.path.join(work, "app.elf")
    run([dspc, main_c, kernels, "-o", app, "--target=hexagon-v68", "-MD"])
    expect(os.path.exists(app), "no app.elf")
    if os.path.exists(app):
        r = run([a.qemu, "-cpu", a.qemu_cpu, app])
        expect(r.stdout == EXPECTED, f"app.elf under qemu printed {r.stdout!r}, expected {EXPECTED!r}")
    dep = os.path.join(work, "app.d")
    deps = open(dep).read() if os.path.exists(dep) else ""
    expect(main_c in deps and kernels in deps and "libdspc_rt.a" in deps, f"app.d: {deps!r}")

    for target in ["hexagon-v68", "host"]:
        r = run([dspc, "run", main_c, kernels, "--target=" + target])
        expect(r.stdout == EXPECTED, f"dspc run --target={target} printed {r.stdout!r}, expected {EXPECTED!r}")

    # The same program in C++.
    main_cpp = os.path.join(work, "main.cpp")
    shutil.copy(main_c, main_cpp)
    r = run([dspc, "run", main_cpp, kernels])
    expect(r.stdout == EXPECTED, f"C++: printed {r.stdout!r}")

    # A syntax error: Clang's diagnostic, exit code 1, no program.
    bad = os.path.join(work, "bad.c")
    with open(bad, "w") as f:
        f.write('#include "kernels.h"\nint main(void) {\n  return axpy(0, 0, 0) +\n}\n')
    bad_out = os.path.join(work, "bad.elf")
    r = run([dspc, bad, kernels, "-o", bad_out], expect_status=1)
    expect(re.search(r"^" + re.escape(bad) + r":4:1: error: expected expression$", r.stderr, re.M),
           f"syntax error: no Clang diagnostic in {r.stderr!r}")
    expect(re.search(r"^\s*\|?\s*\^$", r.stderr, re.M), f"syntax error: no caret line in {r.stderr!r}")
    expect("internal error" not in r.stderr, "syntax error: an internal error")
    expect(not os.path.exists(bad_out), "a program was written despite the error")
    # A kernel called with the wrong arguments: the generated header declares it.
    with open(bad, "w") as f:
        f.write('#include "kernels.h"\nint main(void) { return row_sums(1.5); }\n')
    r = run([dspc, bad, kernels, "-o", bad_out], expect_status=1)
    expect(re.search(r"bad\.c:2:\d+: error: too few arguments to function call", r.stderr),
           f"wrong arguments: {r.stderr!r}")

    for f in failures:
        print("FAIL " + f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
