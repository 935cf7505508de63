#!/usr/bin/env python3
"""End-to-end tests of the runner (device/runner.c) linked with fake_kernel.c.

  run_runner_tests.py --runner EXE --single-runner EXE --work-dir DIR [-- LAUNCHER...]

LAUNCHER (e.g. `qemu-hexagon -cpu v67`) runs the Hexagon executables; empty for the host.
Prints one line per failed check and exits 1 if any failed.
"""
import argparse
import os
import random
import struct
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "e2e"))
import npy_tool  # noqa: E402

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


class Runner:
    def __init__(self, launcher, exe, work):
        self.launcher, self.exe, self.work = launcher, exe, work

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, *args):
        p = subprocess.run(self.launcher + [self.exe] + list(args), capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout, p.stderr


def read_output(path):
    """(descr, shape, values) of a file the runner wrote, which must be version 1.0."""
    array = npy_tool.read(path)
    if array.version != (1, 0):
        raise ValueError(f"{path}: version {array.version}, the runner writes 1.0")
    return array.descr, array.shape, npy_tool.values(array)


def wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--single-runner", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("launcher", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.work_dir, exist_ok=True)
    multi = Runner(a.launcher, a.runner, a.work_dir)
    single = Runner(a.launcher, a.single_runner, a.work_dir)
    p = multi.path

    # add_i32: the only function of the single runner; B as a version 2.0 file.
    av = [1, -2, 3, 2**31 - 1, -(2**31), 100]
    bv = [10, 20, -30, 1, -1, -100]
    npy_tool.write(p("a.npy"), "i32", (2, 3), av)
    npy_tool.write(p("b.npy"), "i32", (2, 3), bv, version=2)
    code, out, err = single.run("A=" + p("a.npy"), "B=" + p("b.npy"), "C=" + p("c.npy"))
    expect(code == 0 and err == "", f"add_i32 runs: exit {code}, stderr {err!r}")
    if code == 0:
        descr, shape, cv = read_output(p("c.npy"))
        expect(descr == "<i4" and shape == (2, 3), f"add_i32 output header: {descr} {shape}")
        expect(cv == [wrap32(x + y) for x, y in zip(av, bv)], f"add_i32 values: {cv}")

    # Several functions: --func is required, then it works.
    code, out, err = multi.run("A=" + p("a.npy"), "B=" + p("b.npy"), "C=" + p("c2.npy"))
    expect(code == 2 and "choose one with --func=NAME" in err and "add_i32" in err, f"no --func: {code} {err!r}")
    code, out, err = multi.run("--func=add_i32", "C=" + p("c2.npy"), "A=" + p("a.npy"), "B=" + p("b.npy"))
    expect(code == 0 and read_output(p("c2.npy"))[2] == [wrap32(x + y) for x, y in zip(av, bv)],
           f"--func=add_i32, bindings in any order: {code} {err!r}")

    # The kernel's error path: exit 1, the last error on stderr, outputs not written.
    npy_tool.write(p("x.npy"), "f32", (4,), [1.0, 2.0, 3.0, 4.0])
    if os.path.exists(p("y.npy")):
        os.remove(p("y.npy"))
    code, out, err = multi.run("--func=always_fails", "X=" + p("x.npy"), "Y=" + p("y.npy"))
    expect(code == 1, f"failing kernel exits 1, got {code}")
    expect(err == "error: fake kernel failure: X[0] was not looked at\n", f"failing kernel message: {err!r}")
    expect(not os.path.exists(p("y.npy")), "no output after a kernel failure")

    # VTCM through the kernel: default capacity works, a small one fails with the pool's message.
    av8 = [(i % 256) - 128 for i in range(2048)]
    npy_tool.write(p("a8.npy"), "i8", (2048,), av8)
    code, out, err = multi.run("--func=stage_in_vtcm", "A=" + p("a8.npy"), "C=" + p("c8.npy"))
    expect(code == 0, f"stage_in_vtcm runs: {code} {err!r}")
    if code == 0:
        descr, shape, cv = read_output(p("c8.npy"))
        expect(descr == "|i1" and shape == (2048,), f"stage_in_vtcm header {descr} {shape}")
        expect(cv == [((x + 1 + 128) % 256) - 128 for x in av8], "stage_in_vtcm values")
    code, out, err = multi.run("--vtcm-capacity=1024", "--func=stage_in_vtcm", "A=" + p("a8.npy"), "C=" + p("c8.npy"))
    expect(code == 1 and err == "error: VTCM allocation of 2048 bytes failed: only 1024 of 1024 bytes free, "
           "largest free block 1024\n", f"VTCM exhaustion: {code} {err!r}")
    code, out, err = multi.run("--vtcm-capacity=2048", "--func=stage_in_vtcm", "A=" + p("a8.npy"), "C=" + p("c8.npy"))
    expect(code == 0, f"--vtcm-capacity=2048 is enough: {code} {err!r}")

    # Every size class, a 0-d parameter, bool.
    uv, dv, sv, mv = [0, 1, 2, 255, 7], [1.5, -2.0, 0.1, 4.0, 1e300], [-100], [True, False, False, True]
    npy_tool.write(p("u.npy"), "u8", (5,), uv)
    npy_tool.write(p("d.npy"), "f64", (5,), dv)
    npy_tool.write(p("s.npy"), "i64", (), sv)
    npy_tool.write(p("m.npy"), "bool", (2, 2), mv)
    code, out, err = multi.run("--func=mixed", "U=" + p("u.npy"), "D=" + p("d.npy"), "S=" + p("s.npy"),
                               "M=" + p("m.npy"), "R=" + p("r.npy"), "Q=" + p("q.npy"), "N=" + p("n.npy"))
    expect(code == 0, f"mixed runs: {code} {err!r}")
    if code == 0:
        expect(read_output(p("r.npy")) == ("<f8", (5,), [u * d / 4.0 for u, d in zip(uv, dv)]),
               f"mixed R: {read_output(p('r.npy'))}")
        expect(read_output(p("q.npy")) == ("<i8", (), [-14]), f"mixed Q: {read_output(p('q.npy'))}")
        expect(read_output(p("n.npy")) == ("|b1", (2, 2), [not m for m in mv]), f"mixed N: {read_output(p('n.npy'))}")

    # Malformed inputs: exit 2 with a one-line message naming the parameter.
    def bad_input(name, content, message):
        with open(p(name), "wb") as f:
            f.write(content)
        code, out, err = single.run("A=" + p(name), "B=" + p("b.npy"), "C=" + p("c3.npy"))
        ok = code == 2 and err.startswith("error: A: ") and message in err and err.count("\n") == 1
        expect(ok, f"{name}: want exit 2 and {message!r}, got {code} {err!r}")

    good = npy_tool.header("<i4", (2, 3)) + struct.pack("<6i", *av)
    bad_input("short.npy", b"\x93NUM", "not a .npy file")
    bad_input("text.npy", b"hello, this is not numpy data at all", "bad magic")
    bad_input("f4.npy", npy_tool.header("<f4", (2, 3)) + bytes(24),
              "expected dtype '<i4' and shape (2, 3), the file has '<f4' and shape (2, 3)")
    bad_input("shape.npy", npy_tool.header("<i4", (3, 2)) + bytes(24), "the file has '<i4' and shape (3, 2)")
    bad_input("flat.npy", npy_tool.header("<i4", (6,)) + bytes(24), "the file has '<i4' and shape (6,)")
    bad_input("truncated.npy", good[:-4], "expected 24 bytes of data, the file has 20")
    bad_input("extra.npy", good + b"\x00", "more data than its shape holds")
    bad_input("bigendian.npy", npy_tool.header(">i4", (2, 3)) + bytes(24), "big-endian")
    bad_input("fortran.npy", good.replace(b"False", b"True "), "Fortran-order")
    bad_input("version.npy", good[:6] + b"\x05\x00" + good[8:], "unsupported .npy format version 5.0")
    bad_input("hugeheader.npy", good[:8] + b"\xff\xff" + good[10:], "truncated")
    bad_input("v2huge.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\x7f" + b" " * 100, "larger than 65536")
    bad_input("nodict.npy", good[:10] + b"[" + good[11:], "malformed .npy header")
    code, out, err = single.run("A=" + p("missing.npy"), "B=" + p("b.npy"), "C=" + p("c3.npy"))
    expect(code == 2 and "cannot open for reading" in err, f"missing file: {code} {err!r}")

    # Random corruption of a good file: always exit 0 or 2, never a crash.
    rng = random.Random(99)
    for i in range(40):
        data = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data[:rng.randint(8, len(data))]) if rng.random() < 0.3 else bytes(data)
        with open(p("fuzz.npy"), "wb") as f:
            f.write(data)
        code, out, err = single.run("A=" + p("fuzz.npy"), "B=" + p("b.npy"), "C=" + p("c4.npy"))
        expect(code in (0, 2) and (code == 0 or err.startswith("error: A: ")), f"fuzz {i}: {code} {err!r}")

    # Usage errors.
    def usage(args, message):
        code, out, err = multi.run(*args)
        expect(code == 2 and message in err and err.startswith("error: "), f"{args}: want {message!r}, got {code} {err!r}")

    A, B, C = "A=" + p("a.npy"), "B=" + p("b.npy"), "C=" + p("c5.npy")
    usage(["--func=add_i32", A, B], "missing C=PATH for output parameter C of add_i32")
    usage(["--func=add_i32", A, B, C, A], "parameter A is given more than once")
    usage(["--func=add_i32", A, B, C, "Z=" + p("z.npy")], "add_i32 has no parameter named 'Z'")
    usage(["--func=nope", A, B, C], "no function named 'nope'")
    usage(["--func=add_i32", "--frobnicate", A, B, C], "unknown option '--frobnicate'")
    usage(["--func=add_i32", "stray", A, B, C], "expected PARAM=PATH, got 'stray'")
    usage(["--vtcm-capacity=12k", "--func=add_i32", A, B, C], "--vtcm-capacity expects a byte count")
    usage(["--vtcm-capacity=4294967296", "--func=add_i32", A, B, C], "--vtcm-capacity expects a byte count")
    usage(["--vtcm-capacity=2000000000", "--func=add_i32", A, B, C], "1 GiB")
    usage(["--func=add_i32", A, B, "C=" + p("no/such/dir/c.npy")], "cannot open for writing")
    code, out, err = multi.run("--help")
    expect(code == 0 and out.startswith("usage:"), f"--help: {code} {out!r}")

    print(f"{len(failures)} failed" if failures else "all runner tests passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
