#!/usr/bin/env python3
"""Bad input is never a crash: every option value and input file a user can get wrong, in one
table. Each case must exit with code 1 (a user error; 2 is an internal error, a signal a crash),
within the time limit (no hang), with a `dspc: error:` (or `FILE:LINE:COL: error:`) message on
stderr matching the case's pattern, which names the option or the file.

  bad_input.py --dspc build/dspc --source-dir . --work-dir /tmp/x [--jobs 2] [-k FILTER]

The cases cover, for each option that takes a value (the list is read from `dspc --help`, and
an option missing from the table fails the test): a missing value, an empty one, and values
that are negative, huge (99999999999999999999), non-numeric or unknown; and, for files (the
program, --input .npy, --output, -o, --runtime-dir, --qemu, standard input): a missing file, a
directory, an empty file, binary garbage, an endless file (/dev/zero), a full device
(/dev/full), truncated and malformed .npy files, and .npy files of the wrong dtype or shape. Under the sanitizer build (`bash setup.sh test-sanitize`) ASan and UBSan abort
on a memory error, which fails the case too.
"""
import argparse
import concurrent.futures
import os
import re
import stat
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HUGE = "99999999999999999999"

PROGRAM = """func f(A: i8[4], B: i8[4]) -> (C: i8[4]) {
  C[i] = A[i] + B[i]
}
"""


def make_files(work, npy):
    """The input files of the table, in `work`; returns {key: path}."""
    os.makedirs(work, exist_ok=True)
    f = {}

    def put(key, name, data):
        path = os.path.join(work, name)
        with open(path, "wb") as out:
            out.write(data)
        f[key] = path

    put("prog", "f.dsp", PROGRAM.encode())
    put("empty", "empty.dsp", b"")
    put("garbage", "garbage.dsp", bytes((i * 151 + 7) % 256 for i in range(4096)))
    put("nul", "nul.dsp", PROGRAM.encode()[:20] + b"\0\0\0" + PROGRAM.encode()[20:])
    put("truncated", "truncated.dsp", PROGRAM.encode()[:30])
    put("empty_tir", "empty.tir", b"")
    put("ok_npy", "ok.npy", npy.npy_bytes("i8", (4,), [1, 2, 3, 4]))
    put("empty_npy", "empty.npy", b"")
    put("garbage_npy", "garbage.npy", bytes((i * 73 + 1) % 256 for i in range(512)))
    ok = npy.npy_bytes("i8", (4,), [1, 2, 3, 4])
    put("trunc_data", "trunc-data.npy", ok[:-2])
    put("trunc_header", "trunc-header.npy", ok[:30])
    put("trunc_preamble", "trunc-preamble.npy", ok[:7])
    put("extra_data", "extra-data.npy", ok + b"xx")
    put("f32_npy", "f32.npy", npy.npy_bytes("f32", (4,), [1.0, 2.0, 3.0, 4.0]))
    put("shape_npy", "shape.npy", npy.npy_bytes("i8", (2, 2), [1, 2, 3, 4]))
    put("huge_shape", "huge-shape.npy", npy.header("|i1", (99999999999, 99999999999)))
    put("huge_dim", "huge-dim.npy", npy.header("|i1", (int(HUGE),)))
    put("neg_dim", "neg-dim.npy", npy.header("|i1", (-4,)))
    put("bigendian", "big-endian.npy", npy.header(">i4", (4,)) + bytes(16))
    put("object", "object.npy", npy.header("|O", (4,)) + bytes(32))
    put("fortran", "fortran.npy", npy.header("|i1", (4,)).replace(b"False", b"True ") + bytes(4))
    put("bad_version", "bad-version.npy", ok[:6] + b"\x09\x00" + ok[8:])
    put("bad_dict", "bad-dict.npy", ok.replace(b"'descr'", b"'desc!'"))
    put("c_ok", "prog.c", b'#include "f.h"\nint main(void) { return 0; }\n')
    put("c_syntax", "syntax.c", b'#include "f.h"\nint main(void) { return f(0, 0, 0) + }\n')
    put("c_garbage", "garbage.c", bytes((i * 151 + 7) % 256 for i in range(4096)))
    put("c_undefined", "undefined.c", b'int nowhere(void);\nint main(void) { return nowhere(); }\n')
    os.makedirs(os.path.join(work, "dir.c"), exist_ok=True)
    f["c_dir"] = os.path.join(work, "dir.c")
    put("not_exec", "not-exec", b"#!/bin/sh\nexit 0\n")
    put("onnx_empty", "empty.onnx", b"")
    put("onnx_garbage", "garbage.onnx", bytes((i * 97 + 13) % 256 for i in range(4096)))
    os.makedirs(os.path.join(work, "dir.onnx"), exist_ok=True)
    f["onnx_dir"] = os.path.join(work, "dir.onnx")
    os.chmod(f["not_exec"], stat.S_IRUSR | stat.S_IWUSR)
    f["dir"] = work
    f["missing"] = os.path.join(work, "no-such-file.dsp")
    f["missing_npy"] = os.path.join(work, "no-such-file.npy")
    f["missing_dir"] = os.path.join(work, "no-such-dir")
    f["out_in_missing_dir"] = os.path.join(work, "no-such-dir", "out")
    return f


def cases(f):
    """(name, arguments, stderr pattern, standard input). Every case must exit 1 (but the
    controls, whose pattern is None: they must succeed)."""
    P, R = f["prog"], ["run", f["prog"], "--target=host"]
    RI = R + ["--random-inputs"]
    IN = lambda spec: R + ["--input", spec, "--input", "B=" + f["ok_npy"]]  # noqa: E731
    t = []

    def add(name, args, pattern, stdin=None):
        t.append((name, args, pattern, stdin))

    def numeric(opt, base, pattern, extra=()):
        """Negative, huge, non-numeric, fractional, empty and missing values of a numeric option."""
        for kind, v in [("negative", "-5"), ("huge", HUGE), ("non-numeric", "lots"), ("fraction", "1.5"),
                        ("hex", "0x10"), ("plus", "+3"), ("space", " 7"), ("empty", "")] + list(extra):
            add(f"{opt}/{kind}", base + [f"{opt}={v}"], pattern)
        add(f"{opt}/separate-negative", base + [opt, "-5"], pattern)
        add(f"{opt}/missing", base + [opt], f"missing value after {re.escape(opt)}")

    def string(opt, base, bad, pattern, empty_ok_pattern=None):
        """An unknown, an empty and a missing value of an option taking a word."""
        if bad is not None:
            add(f"{opt}/bad", base + [f"{opt}={bad}"], pattern)
            add(f"{opt}/separate-bad", base + [opt, bad], pattern)
        add(f"{opt}/empty", base + [f"{opt}="], empty_ok_pattern or f"empty value for {re.escape(opt)}")
        add(f"{opt}/missing", base + [opt], f"missing value after {re.escape(opt)}")

    # ---- compile options
    string("--target", [P], "hexagon-v99", r"unknown target 'hexagon-v99'")
    add("--target/negative", [P, "--target=-5"], r"unknown target '-5'")
    string("--emit", [P], "pdf", r"unknown --emit kind 'pdf'")
    add("--emit/graph-json-without-graph", [P, "--emit=graph-json"], r"--emit=graph-json needs a \.dsp file with a graph")
    string("--print-after", [P], "no-such-pass", r"unknown pass 'no-such-pass' in --print-after")
    # ONNX models: the import options, and bad model files.
    for opt in ["--input-layout", "--output-layout"]:
        string(opt, [P], "nchhw", re.escape(opt) + r" must be nchw or nhwc, got 'nchhw'",
               re.escape(opt) + r" must be nchw or nhwc, got ''")
        add(f"{opt}/not-onnx", [P, f"{opt}=nhwc"], r"go with an \.onnx model")
    # (An extent 0, x=0x3, is a tensor without elements: tests/onnx/bad_models.py runs it.)
    for kind, v in [("no-name", "=1x3"), ("no-shape", "x="), ("negative", "x=-1x3"),
                    ("huge", "x=" + HUGE), ("non-numeric", "x=axb"), ("seven-dims", "x=1x1x1x1x1x1x1"),
                    ("trailing-x", "x=2x"), ("empty", "")]:
        add(f"--input-shape/{kind}", [P, "--input-shape", v], r"--input-shape needs NAME=DIMS|empty value for --input-shape")
    add("--input-shape/missing", [P, "--input-shape"], r"missing value after --input-shape")
    add("--input-shape/twice", [P, "--input-shape=x=1", "--input-shape=x=2"], r"--input-shape x is given more than once")
    add("--input-shape/not-onnx", [P, "--input-shape=x=1"], r"go with an \.onnx model")
    add("onnx/missing", [f["dir"] + "/nowhere.onnx"], r"cannot open '.*nowhere\.onnx'")
    add("onnx/directory", [f["onnx_dir"]], r"cannot read '.*dir\.onnx': it is a directory")
    add("onnx/empty", [f["onnx_empty"]], r"empty\.onnx: error: the file is empty, not an ONNX model")
    add("onnx/garbage", [f["onnx_garbage"]], r"garbage\.onnx: error: cannot read the file as an ONNX model")
    add("onnx/run-garbage", ["run", f["onnx_garbage"], "--random-inputs"], r"garbage\.onnx: error: cannot read")
    string("--inject-internal-error", [P], "no-such-pass", r"--inject-internal-error, got 'no-such-pass'")
    add("--inject-internal-error/bad-kind", [P, "--inject-internal-error=simplify:boom"],
        r"--inject-internal-error, got 'simplify:boom'")
    string("--runtime-dir", [P, "--emit=exe", "-o", f["dir"] + "/x.elf"], None, None)
    add("--runtime-dir/missing-dir", [P, "--emit=exe", "-o", f["dir"] + "/x.elf", "--runtime-dir=" + f["missing_dir"]],
        r"runtime-support library for hexagon-v68 not found: " + re.escape(f["missing_dir"]))
    add("--runtime-dir/a-file", [P, "--emit=exe", "-o", f["dir"] + "/x.elf", "--runtime-dir=" + f["prog"]],
        r"runtime-support library for hexagon-v68 not found: " + re.escape(f["prog"]))
    add("-o/empty", [P, "-o", ""], r"empty value for -o")
    add("-o/missing", [P, "-o"], r"missing value after -o")
    add("-o/directory", [P, "-o", f["dir"]], r"cannot write '" + re.escape(f["dir"]) + "': Is a directory")
    add("-o/missing-dir", [P, "-o", f["out_in_missing_dir"]], re.escape(f["out_in_missing_dir"]))
    add("-o/exe-directory", [P, "--emit=exe", "-o", f["dir"]], re.escape(f["dir"]) + ": Is a directory")
    add("-o/exe-missing-dir", [P, "--emit=exe", "-o", f["out_in_missing_dir"]], re.escape(f["out_in_missing_dir"]))
    add("-o/so-missing-dir", [P, "--emit=so", "-o", f["out_in_missing_dir"]], re.escape(f["out_in_missing_dir"]))
    add("-o/exe-stdout", [P, "--emit=exe", "-o", "-"], r"--emit=exe needs an output file")
    for v in ["-O", "-O4", "-O-1", "-Ofast", "-O" + HUGE, "-O00"]:
        add(f"-O/{v}", [P, v], r"invalid optimisation level '" + re.escape(v) + "'")
    # -I DIR (where `import` looks): missing, empty, not a directory, a file.
    add("-I/missing", [P, "-I"], r"missing value after -I")
    add("-I/empty", [P, "-I", ""], r"empty value for -I")
    add("-I/missing-dir", [P, "-I", f["missing_dir"]], r"-I " + re.escape(f["missing_dir"]) + ": not a directory")
    add("-I/a-file", [P, "-I" + f["prog"]], r"-I " + re.escape(f["prog"]) + ": not a directory")
    add("--inject-internal-error/codegen-kind", [P, "--inject-internal-error=codegen:check"],
        r"--inject-internal-error, got 'codegen:check'")
    # -MF FILE (the depfile; with -MD): missing, empty, without -MD, unwritable, with run.
    MD = [P, "-o", f["dir"] + "/md.o", "-MD"]
    add("-MF/missing", MD + ["-MF"], r"missing value after -MF")
    add("-MF/empty", MD + ["-MF", ""], r"empty value for -MF")
    add("-MF/without-MD", [P, "-o", f["dir"] + "/md.o", "-MF", f["dir"] + "/md.d"], r"-MF needs -MD")
    add("-MF/directory", MD + ["-MF", f["dir"]], r"cannot write '" + re.escape(f["dir"]) + "': Is a directory")
    add("-MF/missing-dir", MD + ["-MF", f["out_in_missing_dir"]], re.escape(f["out_in_missing_dir"]))
    add("-MD/stdout", [P, "-o", "-", "-MD"], r"-MD needs an output file")
    add("-MD/run", RI + ["-MD"], r"-MD and -MF go with compiling, not 'dspc run'")
    numeric("--vtcm-capacity", [P], r"invalid byte count '.*' for --vtcm-capacity|empty value for --vtcm-capacity",
            extra=[("over-u32", "4294967296")])
    # A control: 0 is a valid capacity, and f needs no VTCM, so this compiles (exit 0).
    add("--vtcm-capacity/zero", [P, "--vtcm-capacity=0", "-o", f["dir"] + "/zero.o"], None)

    # ---- run options
    numeric("--seed", RI, r"--seed needs a whole number from 0 to 999999999999999999, got '.*'")
    numeric("--timeout", RI, r"--timeout needs seconds from 1 to 86400, got '.*'",
            extra=[("zero", "0"), ("over-a-day", "86401")])
    numeric("--start-timeout", RI + ["--session"], r"--start-timeout needs seconds from 1 to 86400, got '.*'",
            extra=[("zero", "0"), ("over-a-day", "86401")])
    add("--start-timeout/not-a-session", RI + ["--start-timeout=5"], r"--start-timeout goes with --session or a graph")
    numeric("--sim-vtcm-capacity", RI, r"invalid byte count '.*' for --sim-vtcm-capacity|empty value for --sim-vtcm-capacity",
            extra=[("over-u32", "4294967296")])
    numeric("--json-max-values", RI + ["--json"], r"--json-max-values needs a whole number from 0 to 1000000000, got '.*'",
            extra=[("over-a-billion", "1000000001")])
    add("--json-max-values/without-json", RI + ["--json-max-values=3"], r"--json-max-values needs --json")
    numeric("--repeat", RI, r"--repeat needs a count from 1 to 1000000, got '.*'|empty value for --repeat",
            extra=[("zero", "0"), ("over-a-million", "1000001")])
    add("--repeat/not-a-graph", RI + ["--repeat=2"], r"--repeat goes with a graph")
    add("--lazy-calls/not-a-graph", RI + ["--lazy-calls"], r"--lazy-calls goes with a graph")
    string("--func", RI, "nosuch", r"no function 'nosuch' in .*f\.dsp \(functions: f\)")
    string("--qemu", ["run", P, "--random-inputs"], None, None)
    add("--qemu/missing-file", ["run", P, "--random-inputs", "--qemu=" + f["missing"]],
        r"cannot run the simulator \(--qemu\): '" + re.escape(f["missing"]) + "': No such file")
    add("--qemu/not-in-path", ["run", P, "--random-inputs", "--qemu=no-such-qemu-hexagon"],
        r"cannot run the simulator \(--qemu\): 'no-such-qemu-hexagon': No such file")
    add("--qemu/directory", ["run", P, "--random-inputs", "--qemu=" + f["dir"]],
        r"cannot run the simulator \(--qemu\): '" + re.escape(f["dir"]) + "': Is a directory")
    add("--qemu/not-executable", ["run", P, "--random-inputs", "--qemu=" + f["not_exec"]],
        r"cannot run the simulator \(--qemu\): '" + re.escape(f["not_exec"]) + "': Permission denied")
    add("--qemu/session-missing-file", ["run", P, "--random-inputs", "--session", "--qemu=" + f["missing"]],
        r"cannot run the simulator \(--qemu\)")
    for opt in ["--input", "--output"]:
        for kind, v in [("no-equals", "A"), ("no-name", "=x.npy"), ("no-file", "A="), ("empty", "")]:
            add(f"{opt}/{kind}", R + [opt, v], f"expected NAME=FILE after {opt}, got '{re.escape(v)}'")
        add(f"{opt}/missing", R + [opt], f"missing value after {opt}")
        add(f"{opt}/unknown-name", RI + [opt, "Q=" + f["ok_npy"]], f"{opt} Q=.*: function f has no {'input' if opt == '--input' else 'result'} 'Q'")
    add("--input/a-result", RI + ["--input", "C=" + f["ok_npy"]], r"--input C=.*: C is a result of f, not an input")
    add("--input/twice", RI + ["--input", "A=" + f["ok_npy"], "--input", "A=" + f["ok_npy"]],
        r"--input A is given more than once")
    add("--output/an-input", RI + ["--output", "A=" + f["dir"] + "/a.npy"], r"--output A=.*: A is an input of f, not a result")
    add("--output/twice", RI + ["--output", "C=" + f["dir"] + "/c.npy", "--output", "C=" + f["dir"] + "/d.npy"],
        r"--output C is given more than once")
    add("--output/directory", RI + ["--output", "C=" + f["dir"]], r"cannot open " + re.escape(f["dir"]) + " for writing")
    add("--output/missing-dir", RI + ["--output", "C=" + f["out_in_missing_dir"]],
        r"cannot open " + re.escape(f["out_in_missing_dir"]) + " for writing")
    add("--input/none", R, r"no value for input A: give --input A=FILE.npy or --random-inputs")

    # ---- .npy inputs
    for key, pattern in [
            ("missing_npy", r"cannot open the file"), ("dir", r"cannot read the file"),
            ("empty_npy", r"not a \.npy file"), ("garbage_npy", r"not a \.npy file \(bad magic\)"),
            ("trunc_data", r"data has 2 bytes, the shape needs 4"), ("trunc_header", r"truncated \.npy header"),
            ("trunc_preamble", r"not a \.npy file"), ("extra_data", r"data has 6 bytes, the shape needs 4"),
            ("f32_npy", r"holds f32\[4\] but A is i8\[4\]"), ("shape_npy", r"holds i8\[2, 2\] but A is i8\[4\]"),
            ("huge_shape", r"shorter than the shape says|too large"), ("huge_dim", r"dimension too large"),
            ("neg_dim", r"malformed \.npy header"), ("bigendian", r"big-endian \.npy data"),
            ("object", r"unsupported \.npy dtype '\|O'"), ("fortran", r"Fortran-order"),
            ("bad_version", r"version"), ("bad_dict", r"malformed \.npy header|descr")]:
        add(f"npy/{key}", IN("A=" + f[key]), re.escape(f[key]) + ":? .*" + pattern)

    # ---- the program file
    for prefix, base in [("compile", []), ("run", ["run"])]:
        tail = ["--random-inputs"] if prefix == "run" else []
        add(f"{prefix}/file-missing", base + [f["missing"]] + tail,
            r"cannot open '" + re.escape(f["missing"]) + "': No such file")
        add(f"{prefix}/file-directory", base + [f["dir"]] + tail,
            r"cannot read '" + re.escape(f["dir"]) + "': it is a directory")
        add(f"{prefix}/file-empty", base + [f["empty"]] + tail, re.escape(f["empty"]) + r":1:1: error: empty program")
        add(f"{prefix}/file-garbage", base + [f["garbage"]] + tail, re.escape(f["garbage"]) + r":1:1: error: ")
        add(f"{prefix}/file-nul", base + [f["nul"]] + tail, re.escape(f["nul"]) + r":\d+:\d+: error: ")
        add(f"{prefix}/file-truncated", base + [f["truncated"]] + tail, re.escape(f["truncated"]) + r":\d+:\d+: error: ")
        add(f"{prefix}/file-empty-tir", base + [f["empty_tir"]] + tail, re.escape(f["empty_tir"]) + r":1:1: error: ")
        add(f"{prefix}/file-empty-name", base + [""] + tail, r"cannot open '': No such file|no input file")
    add("stdin/empty", ["-"], r"<stdin>:1:1: error: empty program")
    add("stdin/garbage", ["-"], r"<stdin>:1:1: error: ", stdin=f["garbage"])
    add("stdin/endless", ["-"], r"cannot read standard input: larger than 64 MiB", stdin="/dev/zero")
    add("compile/file-endless", ["/dev/zero"], r"cannot read '/dev/zero': larger than 64 MiB")
    add("npy/endless", IN("A=/dev/zero"), r"/dev/zero: not a \.npy file")
    add("-o/full-device", [P, "--emit=tir", "-o", "/dev/full"], r"cannot write '/dev/full'")
    add("--output/full-device", RI + ["--output", "C=/dev/full"], r"cannot write /dev/full")
    add("options/none", [], r"no input file")
    add("options/two-files", [P, P], r"more than one input file")
    add("options/unknown", [P, "--bogus=1"], r"unknown option '--bogus=1'")
    # C/C++ sources with kernels: a program (dspc main.c kernels.dsp).
    C, X = f["c_ok"], f["dir"] + "/prog.elf"
    add("c/missing-file", [f["dir"] + "/no-such.c", P, "-o", X], r"cannot open '.*no-such\.c': No such file")
    add("c/directory", [f["c_dir"], P, "-o", X], r"cannot open '.*dir\.c': not a regular file")
    add("c/syntax-error", [f["c_syntax"], P, "-o", X], r"syntax\.c:2:\d+: error: expected expression")
    add("c/garbage", [f["c_garbage"], P, "-o", X], r"garbage\.c:\d+:\d+: error: ")
    add("c/undefined-symbol", [f["c_undefined"], P, "-o", X], r"undefined symbol: nowhere")
    add("c/no-kernels", [C], r"no \.dsp input")
    add("c/emit", [C, P, "--emit=obj"], r"--emit=obj does not go with")
    add("c/stdout", [C, P, "-o", "-"], r"a program needs an output file")
    add("c/run-only-option", ["run", C, P, "--random-inputs"], r"--random-inputs does not go with C/C\+\+ sources")
    add("c/same-stem", [C, P, P, "-o", X], r"two kernel files would both give the header 'f\.h'")
    add("c/control", [C, P, "-o", X], None)
    for opt in ["--seed=1", "--timeout=5", "--start-timeout=5", "--qemu=x", "--func=f", "--keep-temps", "--check", "--session",
                "--random-inputs", "--sim-vtcm-capacity=1", "--input", "--output", "--repeat=2", "--lazy-calls"]:
        args = [P, opt] + (["A=" + f["ok_npy"]] if opt in ("--input", "--output") else [])
        want = r"--func=f picks the function or graph 'dspc run' runs" if opt == "--func=f" else \
            re.escape(opt.split("=")[0]) + r" goes with 'dspc run'"
        add(f"run-only/{opt}", args, want)
    for opt in [["-o", f["dir"] + "/x"], ["--emit=llvm"]]:
        add(f"compile-only/{opt[0]}", RI + opt, re.escape(opt[0].split("=")[0]) + r" does not go with 'dspc run'")
    return [c for c in t if c[2] is not None] + [c for c in t if c[2] is None]


def options_in_help(dspc):
    """The options of `dspc --help` that take a value: --name=V, --name V and -o FILE forms."""
    text = subprocess.run([dspc, "--help"], stdout=subprocess.PIPE, text=True, check=True).stdout
    opts = set()
    for line in text.splitlines():
        m = re.match(r"\s+(-{1,2}[\w-]+)(=| )([A-Z]\S*)", line)
        if m:
            opts.add(m.group(1))
        if re.match(r"\s+-O0 ", line):
            opts.add("-O")
    return opts


def run_case(dspc, case, timeout, cwd):
    name, args, pattern, stdin = case
    try:
        with open(stdin or os.devnull, "rb") as inp:
            r = subprocess.run([dspc] + args, stdin=inp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return f"{name}: no answer within {timeout} s (a hang)"
    err = r.stderr.decode("utf-8", "replace")
    cmd = " ".join(repr(a) if not a or " " in a else a for a in ["dspc"] + args)
    if pattern is None:  # the control cases: the option is accepted
        return None if r.returncode == 0 else f"{name}: {cmd}\n  exit code {r.returncode}, expected 0\n{err}"
    problems = []
    if r.returncode != 1:
        what = f"killed by signal {-r.returncode}" if r.returncode < 0 else f"exit code {r.returncode}"
        problems.append(f"{what}, expected 1 (a user error)")
    if "internal error" in err or "Sanitizer" in err or "runtime error:" in err:
        problems.append("an internal error or a sanitizer report")
    # An ONNX model has no lines: its errors are located at the file and, inside, at the node.
    if not re.search(r"(^dspc: error: |^\S.*:\d+:\d+: error: |^\S+\.onnx: error: )", err, re.M):
        problems.append("no 'dspc: error:' or located error on stderr")
    if not re.search(pattern, err):
        problems.append(f"stderr does not match /{pattern}/")
    if not problems:
        return None
    return f"{name}: {cmd}\n  " + "\n  ".join(problems) + "\n  stderr: " + err[:2000].replace("\n", "\n          ")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per case before it counts as a hang")
    ap.add_argument("-k", dest="filter", default="", help="run only the cases whose name contains this")
    a = ap.parse_args()
    a.dspc = os.path.abspath(a.dspc)  # the cases run in the work directory
    sys.path.insert(0, os.path.join(a.source_dir, "tests", "e2e"))
    import npy_tool  # noqa: E402

    files = make_files(os.path.abspath(a.work_dir), npy_tool)
    table = cases(files)

    # Every option that takes a value has cases: a new option must come with its bad values.
    covered = {re.split(r"[/=]", c[0])[0] for c in table}
    uncovered = sorted(options_in_help(a.dspc) - covered)
    if uncovered:
        print("FAIL: options of dspc --help without bad-value cases here: " + ", ".join(uncovered))
        return 1

    table = [c for c in table if a.filter in c[0]]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        failures = [f for f in pool.map(lambda c: run_case(a.dspc, c, a.timeout, files["dir"]), table) if f]
    for f in failures:
        print("FAIL " + f)
    print(f"{len(table) - len(failures)} of {len(table)} bad-input cases give a clear error"
          f" ({len(covered)} options and file kinds)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
