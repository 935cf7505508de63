#!/usr/bin/env python3
"""Generates the end-to-end test programs (tests/e2e/programs/*.dsp) and their edge-value data.

Deterministic: the same script always writes the same bytes.

  python3 tests/e2e/gen_programs.py --programs tests/e2e/programs   # rewrite the checked-in .dsp
  python3 tests/e2e/gen_programs.py --check tests/e2e/programs      # exit 1 if they are stale
  python3 tests/e2e/gen_programs.py --data DIR                      # write the .npy edge tables

Each program says how CTest runs it in `# E2E-RUN: VARIANT ARGS...` lines: one test per line
and target, `dspc run FILE --target=T ARGS... --random-inputs --check` (tests/e2e/CMakeLists.txt).
`%data` in ARGS is the folder --data wrote. Inputs named E or S are tables of edge values
(extremes, -1, 0, shift amounts around the bit width, inf/nan/-0.0 for floats) given with
--input; every other input is random (full range for integers, [-8, 8) for floats).
Float results that may be NaN are mapped to a fixed value first: the bit pattern of a NaN a
machine generates differs between x86 (the interpreter) and Hexagon, and --check is bit-exact.
"""
import argparse
import filecmp
import glob
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npy_tool  # noqa: E402

INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOATS = ["f32", "f64"]
N = 515  # random vectors: a few HVX vectors of i8 plus a ragged tail


def bits(t):
    return int(t[1:])


def signed(t):
    return t[0] == "i"


def lo(t):
    return -(1 << (bits(t) - 1)) if signed(t) else 0


def hi(t):
    return (1 << (bits(t) - 1)) - 1 if signed(t) else (1 << bits(t)) - 1


# ---------------------------------------------------------------------------------- data

def edge_values(t):
    mn, mx = lo(t), hi(t)
    if signed(t):
        return [mn, mn + 1, mn // 2, -100, -7, -2, -1, 0, 1, 2, 3, 7, 16, mx // 2 + 1, mx - 1, mx]
    pattern = int("55" * (bits(t) // 8), 16)
    return [0, 1, 2, 3, 7, 16, 100, mx // 2 - 1, mx // 2, mx // 2 + 1, pattern, mx - 16, mx - 7,
            mx - 2, mx - 1, mx]


def shift_values(t):
    b = bits(t)
    if signed(t):
        return [lo(t), -b, -1, 0, 1, 2, 3, b // 2, b - 2, b - 1, b, b + 1, 2 * b, 63, 64, hi(t)]
    return [0, 1, 2, 3, 4, 5, b // 2, b - 2, b - 1, b, b + 1, 2 * b, 63, 64, hi(t) - 1, hi(t)]


INF, NAN = float("inf"), float("nan")
FLOAT_EDGE = {  # 16 values crossed with themselves
    "f32": [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-45, -1e-40, 3.4028234663852886e38,
            -3.4028234663852886e38, INF, -INF, NAN, 7.0, 1e20],
    "f64": [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 5e-324, -1e-310, 1.7976931348623157e308,
            -1.7976931348623157e308, INF, -INF, NAN, 7.0, 1e200],
}
FLOAT_CAST = {  # 24 values converted to every integer dtype (saturation, truncation, NaN)
    "f32": [0.0, -0.0, 0.4, -0.6, 1.5, -2.5, 127.5, -128.5, 255.5, 256.0, 32767.5, -32768.9,
            65535.5, 2147483520.0, 2147483648.0, -2147483904.0, 4294967040.0, 4294967296.0,
            9.223371487098962e18, 9.223372036854776e18, 1.8446744073709552e19, INF, -INF, NAN],
    "f64": [0.0, -0.0, 0.4, -0.6, 1.5, -2.5, 127.5, -128.5, 255.5, 256.0, 32767.5, -32768.9,
            65535.5, 2147483647.5, 2147483648.0, -2147483648.5, -2147483649.0, 4294967295.5,
            4294967296.0, 9223372036854774784.0, 9223372036854775808.0, 18446744073709549568.0,
            18446744073709551616.0, NAN],
}


def npy_of(dtype, values, shape=None):
    return npy_tool.npy_bytes(dtype, shape or [len(values)], values)


def write_data(folder):
    os.makedirs(folder, exist_ok=True)
    files = {}
    for t in INTS:
        files[f"edge_{t}.npy"] = npy_of(t, edge_values(t))
        files[f"shift_{t}.npy"] = npy_of(t, shift_values(t))
    for f in FLOATS:
        files[f"fedge_{f}.npy"] = npy_of(f, FLOAT_EDGE[f])
        files[f"fcast_{f}.npy"] = npy_of(f, FLOAT_CAST[f])
    for name, data in files.items():
        path = os.path.join(folder, name)
        if os.path.exists(path) and open(path, "rb").read() == data:
            continue
        with open(path, "wb") as out:
            out.write(data)


# ---------------------------------------------------------------------------------- programs

class Program:
    def __init__(self, name, doc):
        self.name, self.doc, self.runs, self.funcs = name, doc, [], []
        self.extra_targets = []  # run on these too, besides hexagon-v68 and host
        self.compile_targets = []  # only compiled and linked for these (qemu cannot run their code)

    def func(self, name, params, results, body, schedule=None, runargs=""):
        sig_in = ", ".join(f"{n}: {d}[{', '.join(map(str, s))}]" for n, d, s in params)
        sig_out = ", ".join(f"{n}: {d}[{', '.join(map(str, s))}]" for n, d, s in results)
        text = f"func {name}({sig_in}) -> ({sig_out}) {{\n"
        text += "".join(f"  {line}\n" for line in body)
        if schedule:
            text += "  schedule {\n" + "".join(f"    {line}\n" for line in schedule) + "  }\n"
        text += "}\n"
        self.funcs.append(text)
        self.runs.append((name, runargs))

    def split(self):
        """One program per function, named NAME_FUNC: a test compiles only what it runs."""
        out = []
        for text, run in zip(self.funcs, self.runs):
            p = Program(f"{self.name}_{run[0]}", self.doc)
            p.funcs, p.runs = [text], [run]
            p.extra_targets, p.compile_targets = self.extra_targets, self.compile_targets
            out.append(p)
        return out

    def text(self, seed_base):
        out = "".join(f"# {line}\n" if line else "#\n" for line in self.doc.split("\n"))
        out += "# Generated by tests/e2e/gen_programs.py: edit the generator, not this file.\n"
        if self.extra_targets:
            out += "# E2E-EXTRA-TARGETS: " + " ".join(self.extra_targets) + "\n"
        if self.compile_targets:
            out += "# E2E-COMPILE-TARGETS: " + " ".join(self.compile_targets) + "\n"
        several = len(self.funcs) > 1
        for k, (name, args) in enumerate(self.runs):
            parts = [name] + ([f"--func={name}"] if several else []) + ([args] if args else [])
            parts.append(f"--seed={seed_base + k}")
            out += "# E2E-RUN: " + " ".join(parts) + "\n"
        return out + "\n" + "\n".join(self.funcs)


def lit_max(t):
    return str(hi(t))


def int_program(t):
    s = signed(t)
    p = Program(f"int_{t}", f"Elementwise integer semantics over {t}: wrap-around, floor division and\n"
                f"modulo, shifts, comparisons/select/bool, min/max/clamp. E holds {t} edge values\n"
                f"(extremes, -1, 0, 1, ...), S shift amounts around the bit width; A and B are random.")
    E, S, A, B = ("E", t, [16]), ("S", t, [16]), ("A", t, [N]), ("B", t, [N])
    sq, vec = [16, 16], [N]
    mask = 2 * bits(t) - 1

    results = [("ADD", t, sq), ("SUB", t, sq), ("MUL", t, sq), ("NOT", t, [16])]
    body = ["ADD[i, j] = E[i] + E[j]", "SUB[i, j] = E[i] - E[j]", "MUL[i, j] = E[i] * E[j]",
            "NOT[i] = ~E[i]"]
    if s:
        results += [("NEG", t, [16]), ("ABS", t, [16])]
        body += ["NEG[i] = -E[i]", "ABS[i] = abs(E[i])"]
    results += [("RADD", t, vec), ("RSUB", t, vec), ("RMUL", t, vec), ("RBIT", t, vec), ("RMAC", t, vec)]
    body += ["RADD[i] = A[i] + B[i]", "RSUB[i] = A[i] - B[i]", "RMUL[i] = A[i] * B[i]",
             "RBIT[i] = (A[i] & B[i]) | ((A[i] ^ ~B[i]) & 85)",
             "RMAC[i] = A[i] * 3 - B[i] * A[i] + 100"]
    p.func("wrap", [E, A, B], results, body, runargs=f"--input E=%data/edge_{t}.npy")

    p.func("divmod", [E, A, B],
           [("DIV", t, sq), ("MOD", t, sq), ("RDIV", t, vec), ("RMOD", t, vec), ("SDIV", t, vec),
            ("SMOD", t, vec), ("SDIV2", t, vec), ("RECON", t, vec)],
           ["DIV[i, j] = E[i] / E[j]", "MOD[i, j] = E[i] % E[j]",
            "RDIV[i] = A[i] / B[i]", "RMOD[i] = A[i] % B[i]",
            "SDIV[i] = A[i] / (B[i] % 8 - 4)", "SMOD[i] = A[i] % (B[i] % 8 - 4)",
            "SDIV2[i] = (A[i] % 64 - 32) / (B[i] % 8 - 4) + (A[i] % 64 - 32) % (B[i] % 8 - 4)",
            "RECON[i] = A[i] / (B[i] % 8 - 4) * (B[i] % 8 - 4) + A[i] % (B[i] % 8 - 4)"],
           runargs=f"--input E=%data/edge_{t}.npy")

    p.func("shift", [E, S, A, B],
           [("SHL", t, sq), ("SHR", t, sq), ("RSHL", t, vec), ("RSHR", t, vec), ("RSHN", t, vec)],
           ["SHL[i, j] = E[i] << S[j]", "SHR[i, j] = E[i] >> S[j]",
            f"RSHL[i] = A[i] << (B[i] & {mask})", f"RSHR[i] = A[i] >> (B[i] & {mask})",
            "RSHN[i] = (A[i] >> (B[i] % 24 - 8)) ^ (A[i] << (B[i] % 24 - 8))"],
           runargs=f"--input E=%data/edge_{t}.npy --input S=%data/shift_{t}.npy")

    cl = "clamp(E[i], -7, 100)" if s else "clamp(E[i], 2, 100)"
    p.func("cmp", [E, A, B],
           [("LT", "bool", sq), ("LE", "bool", sq), ("GT", "bool", sq), ("GE", "bool", sq),
            ("EQ", "bool", sq), ("NE", "bool", sq), ("SEL", t, sq), ("MN", t, sq), ("MX", t, sq),
            ("CLT", t, sq), ("CL", t, [16]), ("RB", "bool", vec), ("RSEL", t, vec), ("RCL", t, vec),
            ("RI", "i32", vec)],
           ["LT[i, j] = E[i] < E[j]", "LE[i, j] = E[i] <= E[j]", "GT[i, j] = E[i] > E[j]",
            "GE[i, j] = E[i] >= E[j]", "EQ[i, j] = E[i] == E[j]", "NE[i, j] = E[i] != E[j]",
            "SEL[i, j] = select(E[i] < E[j] && E[j] != 0 || E[i] == 7, E[i] - E[j], E[j] * 2)",
            "MN[i, j] = min(E[i], E[j])", "MX[i, j] = max(E[i], E[j])",
            "CLT[i, j] = clamp(E[i], min(E[j], 7), max(E[j], 7))",
            f"CL[i] = {cl}",
            "RB[i] = (A[i] < B[i]) != (A[i] > 0) ^ !(B[i] == A[i] * 2) | (A[i] >= B[i]) & (B[i] <= 3)",
            "RSEL[i] = select(A[i] > B[i], A[i] - B[i], B[i] - A[i]) + min(A[i], B[i]) - max(A[i], 3)",
            "RCL[i] = clamp(A[i], B[i] & 7, 100)",
            "RI[i] = i32(A[i] == B[i]) + i32(A[i] < B[i]) * 2 + i32(!(A[i] != 0)) * 4"],
           runargs=f"--input E=%data/edge_{t}.npy")
    return p


def consts_program():
    p = Program("consts", "Integer operations with constant operands, per dtype: division and modulo by\n"
                "constants (powers of two, negative, 0, -1), constant shifts (also >= the bit width),\n"
                "literals at the dtype's maximum, and expressions the simplifier folds completely.")
    for t in INTS:
        b, mx = bits(t), lit_max(t)
        wrapmin = f"(A[i] * 0 + {mx} + 1)"  # MIN for signed, 0 for unsigned, through folding
        outs, body = [], []

        def out(name, expr, dtype=t):
            outs.append((name, dtype, [N]))
            body.append(f"{name}[i] = {expr}")

        out("D7", "A[i] / 7")
        out("M7", "A[i] % 7")
        out("D16", "A[i] / 16")
        out("M16", "A[i] % 16")
        out("D0", "A[i] / 0")
        out("M0", "A[i] % 0")
        out("DMAX", f"A[i] / {mx}")
        out("MMAX", f"A[i] % {mx}")
        if signed(t):
            out("DN7", "A[i] / -7")
            out("MN7", "A[i] % -7")
            out("DN16", "A[i] / -16")
            out("MN16", "A[i] % -16")
            out("DN1", "A[i] / -1")
            out("MN1", "A[i] % -1")
            out("SHN", "(A[i] << -1) | (A[i] >> -1)")
        out("SH", f"(A[i] << 3) ^ (A[i] >> 2) ^ (A[i] >> {b - 1})")
        out("SHB", f"(A[i] << {b}) | (A[i] >> {b})")
        out("SHR1", f"A[i] >> {b + 1}")
        out("EXTA", f"A[i] + {mx}")
        out("EXTS", f"A[i] - {mx}")
        out("EXTM", f"A[i] * {mx}")
        out("FOLD", wrapmin)
        m1 = "-1" if signed(t) else mx  # all ones, written as a literal that fits the dtype
        m7 = "-7" if signed(t) else str(hi(t) - 6)
        out("FOLDDIV", f"{wrapmin} / {t}({m1})")
        out("FOLDMOD", f"{wrapmin} % {t}({m1})")
        out("FOLD1", f"A[i] * 0 + {t}({m7}) / {t}(2) + {t}({m7}) % {t}(2)")
        out("FOLD2", f"A[i] - A[i] + {t}(5) / {t}(0) + {t}(5) % {t}(0)")
        out("FOLD3", f"A[i] * 0 + ({t}(1) << {t}({b})) + ({t}({m1}) >> {t}({b + 1}))")
        out("FOLD4", f"A[i] * 0 + ({t}({m1}) >> {t}({b - 1})) + ({t}(100) * {t}(3))")
        if signed(t):
            out("FOLDNEG", f"-{wrapmin} + abs({wrapmin})")
        p.func(f"c_{t}", [("A", t, [N])], outs, body)
    return p


def literals_min_program():
    p = Program("literals_min", "Negative literals at each signed dtype's minimum (`-128` fits i8).")
    outs, body, params = [], [], []
    for name, t in [("A", "i8"), ("B", "i16"), ("C", "i32"), ("D", "i64")]:
        params.append((name, t, [64]))
        outs.append((name + "R", t, [64]))
        m = str(-lo(t))
        body.append(f"{name}R[i] = {name}[i] / -{m} + {name}[i] % -{m} + max({name}[i], -{m}) + min({name}[i], -{m})")
    p.func("lit_min", params, outs, body)
    return p


def literals_cast_program():
    p = Program("literals_cast", "README: an integer literal alone is i32, and int->int casts wrap, so u8(-1) is\n"
                "255 and i8(300) is 44 (an earlier parser typed a literal in a cast with the cast's\n"
                "dtype and rejected these).")
    p.func("lit_cast", [("A", "u8", [64])],
           [("U8", "u8", [64]), ("I8", "i8", [64]), ("U16", "u16", [64]), ("U64", "u64", [64])],
           ["U8[i] = A[i] + u8(-1)", "I8[i] = i8(A[i]) + i8(300)", "U16[i] = u16(A[i]) * u16(-3)",
            "U64[i] = u64(A[i]) ^ u64(-1)"])
    return p


def unsigned_negabs_program():
    p = Program("unsigned_negabs", "Unary minus and abs on unsigned dtypes (wrap; abs is the identity).")
    params, outs, body = [], [], []
    for t in ["u8", "u16", "u32", "u64"]:
        params.append((f"E{t}", t, [16]))
        outs += [(f"NEG{t}", t, [16]), (f"ABS{t}", t, [16])]
        body += [f"NEG{t}[i] = -E{t}[i]", f"ABS{t}[i] = abs(E{t}[i])"]
    p.func("negabs", params, outs, body,
           runargs=" ".join(f"--input E{t}=%data/edge_{t}.npy" for t in ["u8", "u16", "u32", "u64"]))
    return p


def casts_program():
    p = Program("casts", "Casts between every integer dtype (widening, narrowing, sign changes), to bool\n"
                "and to f32/f64 (round to nearest even), on edge values E and random values A.")
    for t in INTS:
        outs, body = [], []
        for u in INTS + ["bool", "f32", "f64"]:
            outs.append((f"E_{u}", u, [16]))
            body.append(f"E_{u}[i] = {u}(E[i])")
        for u in INTS + ["bool", "f32", "f64"]:
            outs.append((f"R_{u}", u, [N]))
            body.append(f"R_{u}[i] = {u}(A[i])")
        outs.append(("CHAIN", t, [N]))
        body.append(f"CHAIN[i] = {t}(u8(A[i])) ^ {t}(i16(A[i])) ^ {t}(u32(i8(A[i]))) ^ {t}(i64(u16(A[i])))")
        p.func(f"from_{t}", [("E", t, [16]), ("A", t, [N])], outs, body,
               runargs=f"--input E=%data/edge_{t}.npy")
    return p


def float_program(f):
    other = "f64" if f == "f32" else "f32"
    p = Program(f"float_{f}", f"{f} elementwise: + - * / % min max abs neg, comparisons, select, clamp, on\n"
                "random values and on a table of edge values (0, -0, denormals, max, inf, nan), and\n"
                "casts to every integer dtype (truncation, saturation, NaN -> 0), to bool and to " + other + ".")
    A, B, vec = ("A", f, [N]), ("B", f, [N]), [N]
    p.func("arith", [A, B],
           [("ADD", f, vec), ("SUB", f, vec), ("MUL", f, vec), ("DIV", f, vec), ("MOD", f, vec),
            ("MN", f, vec), ("MX", f, vec), ("NEG", f, vec), ("ABS", f, vec), ("MIX", f, vec),
            ("SEL", f, vec), ("CL", f, vec), ("LT", "bool", vec), ("LE", "bool", vec),
            ("EQ", "bool", vec), ("NE", "bool", vec)],
           ["ADD[i] = A[i] + B[i]", "SUB[i] = A[i] - B[i]", "MUL[i] = A[i] * B[i]",
            "DIV[i] = A[i] / B[i]", "MOD[i] = A[i] % B[i]", "MN[i] = min(A[i], B[i])",
            "MX[i] = max(A[i], B[i])", "NEG[i] = -A[i]", "ABS[i] = abs(A[i] - B[i])",
            "MIX[i] = (A[i] * 1.5 - B[i]) / (A[i] + 10.0) + 0.1",
            "SEL[i] = select(A[i] < B[i] || A[i] == 0.0, A[i] * B[i], -A[i])",
            "CL[i] = clamp(A[i], -2.5, 3.25)",
            "LT[i] = A[i] < B[i]", "LE[i] = A[i] <= B[i] * 0.5", "EQ[i] = A[i] == B[i]",
            "NE[i] = A[i] != A[i] * 1.0"])

    def nonan(e):
        return f"select({e} != {e}, 4242.0, {e})"

    sq = [16, 16]
    ops = [("ADD", "+"), ("SUB", "-"), ("MUL", "*"), ("DIV", "/"), ("MOD", "%")]
    results = [(n, f, sq) for n, _ in ops] + [("MN", f, sq), ("MX", f, sq)]
    body = [f"{n}[i, j] = {nonan(f'E[i] {op} E[j]')}" for n, op in ops]
    body += ["MN[i, j] = min(E[i], E[j])", "MX[i, j] = max(E[i], E[j])"]
    for n, op in [("LT", "<"), ("LE", "<="), ("GT", ">"), ("EQ", "=="), ("NE", "!=")]:
        results.append((n, "bool", sq))
        body.append(f"{n}[i, j] = E[i] {op} E[j]")
    results.append(("NAN", "bool", sq))
    body.append("NAN[i, j] = E[i] * E[j] - E[j] != E[i] * E[j] - E[j]")
    p.func("edge", [("E", f, [16])], results, body, runargs=f"--input E=%data/fedge_{f}.npy")

    outs, body = [], []
    for u in INTS + ["bool"]:
        outs.append((f"E_{u}", u, [24]))
        body.append(f"E_{u}[i] = {u}(E[i])")
    outs.append((f"E_{other}", other, [24]))
    body.append(f"E_{other}[i] = select(E[i] != E[i], 4242.0, {other}(E[i]))")
    scale = {"i8": "40.0", "u8": "40.0", "i16": "5000.0", "u16": "10000.0", "i32": "300000000.0",
             "u32": "600000000.0", "i64": "2000000000000000000.0", "u64": "4000000000000000000.0"}
    for u in INTS:
        outs.append((f"R_{u}", u, vec))
        body.append(f"R_{u}[i] = {u}(A[i] * {scale[u]})")
    outs += [("R_" + other, other, vec), ("R_bool", f, vec)]
    body += [f"R_{other}[i] = {other}(A[i] * 0.3)",
             f"R_bool[i] = {f}(A[i] > 0.0) + {f}(bool(A[i] * 0.0)) + {f}(A[i] < 1.0 && A[i] > -1.0)"]
    p.func("convert", [("E", f, [24]), A], outs, body, runargs=f"--input E=%data/fcast_{f}.npy")
    # The bits of a converted NaN: the interpreter (x86) keeps sign and payload.
    p.func("nan_cast", [("E", f, [24])], [("G", other, [24])], [f"G[i] = {other}(E[i])"],
           runargs=f"--input E=%data/fcast_{f}.npy")
    return p


def bools_program():
    p = Program("bools", "bool tensors as inputs and results: && || ! == != & | ^, select, casts.")
    P, Q, A = ("P", "bool", [N]), ("Q", "bool", [N]), ("A", "i32", [N])
    p.func("bools", [P, Q, A],
           [("R", "bool", [N]), ("S", "i32", [N]), ("T", "bool", [N]), ("U", "u8", [N])],
           ["R[i] = P[i] && !Q[i] || P[i] ^ Q[i]",
            "S[i] = select(P[i], A[i], -A[i]) + i32(Q[i])",
            "T[i] = (P[i] == Q[i]) != (P[i] | Q[i]) & !(A[i] > 0)",
            "U[i] = select(P[i] != Q[i], u8(A[i]), u8(P[i]) * 7)"])
    return p


def reduce_program():
    p = Program("reduce", "Reductions sum/min/max over one and two axes, inside larger expressions, with\n"
                "wrapping accumulators (i8, u64) and float accumulators (order of the axes matters).")
    p.func("ints", [("A", "i8", [8, 16]), ("U", "u16", [16, 8]), ("L", "i64", [6, 5]), ("W", "u64", [6, 5])],
           [("S1", "i8", [8]), ("S1W", "i32", [8]), ("MN", "i8", [8]), ("MX", "i8", [8]),
            ("S2", "i32", [3]), ("T2", "u32", [8]), ("NST", "i8", [8]), ("LMX", "i64", [6]),
            ("LMN", "i64", [5]), ("WMN", "u64", [6]), ("WMX", "u64", [5]), ("WS", "u64", [1]),
            ("K1", "i8", [8])],
           ["S1[m] = sum(A[m, k], k: 16)",
            "S1W[m] = sum(i32(A[m, k]), k: 16)",
            "MN[m] = min(A[m, k], k: 16)",
            "MX[m] = max(A[m, k], k: 16)",
            "S2[z] = sum(i32(A[k, j]) * (z + 1), k: 8, j: 16)",
            "T2[n] = sum(u32(U[k, n]) * u32(U[15 - k, 7 - n]), k: 16)",
            "NST[m] = sum(A[m, k], k: 16) * 2 - max(A[m, k2], k2: 16) + min(A[7 - m, k3] >> 1, k3: 16)",
            "LMX[a] = max(L[a, b] * 3, b: 5)",
            "LMN[b] = min(L[a, b] - L[5 - a, b], a: 6)",
            "WMN[a] = min(W[a, b], b: 5)",
            "WMX[b] = max(W[a, b] + 5, a: 6)",
            "WS[z] = sum(W[a, b], a: 6, b: 5)",
            "K1[m] = sum(A[m, k], k: 1)"])
    p.func("floats", [("F", "f32", [8, 16]), ("D", "f64", [4, 6])],
           [("FS", "f32", [8]), ("FS2", "f32", [1]), ("FS3", "f32", [1]), ("FMX", "f32", [8]),
            ("FMN", "f32", [16]), ("DS", "f64", [4]), ("DS2", "f64", [1]), ("DMX", "f64", [6]),
            ("FN", "f32", [8])],
           ["FS[m] = sum(F[m, k], k: 16)",
            "FS2[z] = sum(F[k, j] * 0.37, k: 8, j: 16)",
            "FS3[z] = sum(F[k, j] * 0.37, j: 16, k: 8)",
            "FMX[m] = max(F[m, k] * F[m, k], k: 16)",
            "FMN[k] = min(F[m, k], m: 8)",
            "DS[a] = sum(D[a, b] * D[a, b], b: 6)",
            "DS2[z] = sum(D[a, b] * 0.1, b: 6, a: 4)",
            "DMX[b] = max(-D[a, b], a: 4)",
            "FN[m] = sum(F[m, k], k: 16) / max(F[m, k2], k2: 16) - 1.0"])
    return p


def reduce_nested_program():
    p = Program("reduce_nested", "Less common reduction forms: a reduction inside a reduction, a reduction\n"
                "variable name reused by two reductions, reduction and binary min in one expression.")
    p.func("nested", [("A", "i16", [6, 4, 5])],
           [("N", "i16", [6]), ("R", "i16", [6]), ("M", "i16", [6])],
           ["N[a] = sum(max(A[a, b, c], c: 5), b: 4)",
            "R[a] = sum(A[a, k, 0], k: 4) + sum(A[a, k, 4], k: 4)",
            "M[a] = min(min(A[a, k, 1], k: 4), A[a, 0, 0]) + max(select(A[a, 0, k] > 0, A[a, 1, k], A[a, 2, k]), k: 5)"])
    return p


def access_program():
    p = Program("access", "2-D and 3-D accesses: transposes (`B[j, i]`), reversed indices, non-square\n"
                "shapes, intermediate stages read in a different order than they were written.")
    p.func("transpose", [("A", "i16", [5, 7]), ("B", "i16", [7, 5])],
           [("C", "i16", [7, 5]), ("D", "i16", [5, 7])],
           ["C[i, j] = A[j, i] + B[i, j]", "D[i, j] = B[j, i] * A[i, j] - A[i, 6 - j]"])
    p.func("stages", [("A", "u8", [6, 10])], [("C", "u8", [6, 10])],
           ["T[y: 6, x: 10] = A[y, x] >> 1", "U[x: 10, y: 6] = T[y, x] + 1",
            "C[y, x] = U[x, y] + T[5 - y, 9 - x]"])
    p.func("three_d", [("L", "i32", [3, 4, 5])], [("M", "i32", [5, 4, 3]), ("S", "i32", [3])],
           ["M[a, b, c] = L[c, b, a] * 2 + L[2 - c, 3 - b, a]", "S[a] = sum(L[a, b, c], b: 4, c: 5)"])
    p.func("wide", [("A", "u8", [3, 300])], [("C", "u8", [300, 3])],
           ["C[x, y] = A[y, x] + A[2 - y, 299 - x]"])
    return p


def conv_body(h, w):
    return (f"O[y, x] = u8(clamp(sum(i16(I[clamp(y + r - 1, 0, {h - 1}), clamp(x + s - 1, 0, {w - 1})]) "
            f"* i16(K[r, s]), r: 3, s: 3) >> 4, 0, 255))")


def stencil_program():
    p = Program("stencil", "The 3x3 convolution of examples/conv3x3.dsp with clamped borders at small sizes (a single\n"
                "pixel, smaller than the window, ragged widths), and a 5-tap separable blur.")
    for h, w in [(1, 1), (2, 3), (7, 9), (16, 130)]:
        p.func(f"conv_{h}x{w}", [("I", "u8", [h, w]), ("K", "i8", [3, 3])], [("O", "u8", [h, w])],
               [conv_body(h, w)])
    p.func("blur5", [("I", "u16", [9, 140])], [("O", "u16", [9, 140])],
           ["H[y: 9, x: 140] = sum(u32(I[y, clamp(x + t - 2, 0, 139)]), t: 5)",
            "O[y, x] = u16(sum(H[clamp(y + t - 2, 0, 8), x], t: 5) / 25)"])
    return p


def boxes_program():
    p = Program("boxes", "The automatic schedule's boxes: a 5x5 window (two-row top and bottom edges in\n"
                "one box), an interior whose main box of aligned vectors leaves a first and a last\n"
                "vector to an ends box, and u16 taps read with aligned loads and constant shuffles.")
    p.func("dilate5_11x300", [("I", "u8", [11, 300])], [("O", "u8", [11, 300])],
           ["O[y, x] = max(I[clamp(y + r - 2, 0, 10), clamp(x + s - 2, 0, 299)], r: 5, s: 5)"])
    p.func("gauss_5x333", [("I", "u8", [5, 333])], [("O", "u8", [5, 333])],
           ["R[y: 5, x: 333] = u16(I[clamp(y - 1, 0, 4), x]) + 2 * u16(I[y, x]) + u16(I[clamp(y + 1, 0, 4), x])",
            "O[y, x] = u8((R[y, clamp(x - 2, 0, 332)] + 3 * R[y, clamp(x - 1, 0, 332)] + R[y, x] + 3 * R[y, clamp(x + 1, 0, 332)] + R[y, clamp(x + 2, 0, 332)]) >> 4)"])
    return p


def layouts_program():
    p = Program("layouts", "Layout changes read as interleaved rows (F dense row loads and vshuff rounds, not\n"
                "a gather), and dot products over a packed copy (four stride-4 strands read as one\n"
                "dense span): dense u8 x u8 and i8 x u8 with B packed once, odd and tiny shapes,\n"
                "F = 2 (u16), 4 and 8, rows shorter than their stride, and forms that stay gathers.")
    p.func("dense_packed", [("A", "u8", [5, 12]), ("B", "u8", [12, 128])], [("C", "u32", [5, 128])],
           ["Bq[ko: 3, l: 512] = B[ko * 4 + l % 4, l / 4]",
            "C[m, n] = sum(u32(A[m, k]) * u32(Bq[k / 4, n * 4 + k % 4]), k: 12)"],
           ["Bq.vectorize(l, 512)"])
    p.func("dense_packed_signed", [("A", "i8", [3, 8]), ("B", "u8", [8, 130])], [("C", "i32", [3, 130])],
           ["Bq[ko: 2, l: 520] = B[ko * 4 + l % 4, l / 4]",
            "C[m, n] = sum(i32(A[m, k]) * i32(Bq[k / 4, n * 4 + k % 4]), k: 8)"])
    p.func("dense_packed_1", [("A", "u8", [1, 4]), ("B", "u8", [4, 1])], [("C", "u32", [1, 1])],
           ["Bq[ko: 1, l: 4] = B[ko * 4 + l % 4, l / 4]",
            "C[m, n] = sum(u32(A[m, k]) * u32(Bq[k / 4, n * 4 + k % 4]), k: 4)"])
    p.func("interleave", [("H", "u16", [10, 128]), ("B", "u8", [16, 128]), ("E", "u8", [3, 127])],
           [("P", "u16", [5, 256]), ("Q", "u8", [2, 1024]), ("R", "u8", [3, 128]), ("S", "u8", [3, 127])],
           ["P[r, l] = H[r * 2 + l % 2, l / 2] + u16(l)",
            "Q[r, l] = B[r * 8 + l % 8, l / 8]",
            "T[r: 4, l: 512] = B[r * 4 + l % 4, l / 4] ^ 85",
            "R[r, l] = T[r, l * 4 + 3] - T[r + 1, l * 4]",
            "S[r, l] = E[r, l / 2 + l % 2] + E[2 - r, 126 - l]"],
           ["P.vectorize(l, 128)", "Q.vectorize(l, 1024)", "T.vectorize(l, 256)", "R.vectorize(l, 128)",
            "S.vectorize(l, 128)"])
    return p


def vtcm_program():
    p = Program("vtcm", "Stages in VTCM: 1-D, 2-D, non-i8 dtypes, several at once, read by a reduction,\n"
                "read transposed, chained, with the global.vtcm alias. Runs on host too (the host\n"
                "runtime emulates the pool).")
    p.func("v1d", [("A", "i8", [200]), ("B", "i8", [200])], [("C", "i8", [200])],
           ["A_buf[i: 200] = A[i]", "B_buf[i: 200] = B[i]", "C[i] = A_buf[i] + B_buf[i]"],
           ['A_buf.set_scope("local.vtcm")', 'B_buf.set_scope("local.vtcm")'])
    p.func("v2d", [("A", "i16", [8, 33])], [("C", "i16", [33, 8])],
           ["T[y: 8, x: 33] = A[y, x] * 3", "C[x, y] = T[y, x] - 1"],
           ['T.set_scope("local.vtcm")'])
    p.func("vtypes", [("A", "i32", [50]), ("F", "f32", [40]), ("U", "u64", [24])],
           [("C", "i32", [50]), ("G", "f32", [40]), ("V", "u64", [24])],
           ["TA[i: 50] = A[i] * 7", "TF[i: 40] = F[i] * 0.5", "TU[i: 24] = U[i] >> 3",
            "C[i] = TA[49 - i] + TA[i]", "G[i] = TF[i] - F[39 - i]", "V[i] = TU[i] * TU[23 - i]"],
           ['TA.set_scope("local.vtcm")', 'TF.set_scope("global.vtcm")', 'TU.set_scope("local.vtcm")'])
    p.func("vreduce", [("A", "u8", [16, 40])], [("C", "u32", [16]), ("D", "u16", [40])],
           ["T[m: 16, k: 40] = u16(A[m, k]) * 3", "C[m] = sum(u32(T[m, k]), k: 40)",
            "D[k] = max(T[m, k], m: 16)"],
           ['T.set_scope("local.vtcm")'])
    p.func("vchain", [("A", "u8", [12, 20])], [("O", "u8", [12, 20])],
           ["H[y: 12, x: 20] = u16(A[y, clamp(x - 1, 0, 19)]) + u16(A[y, x]) * 2 + u16(A[y, clamp(x + 1, 0, 19)])",
            "V[y: 12, x: 20] = H[clamp(y - 1, 0, 11), x] + H[y, x] * 2 + H[clamp(y + 1, 0, 11), x]",
            "O[y, x] = u8(V[y, x] >> 4)"],
           ['H.set_scope("local.vtcm")', 'V.set_scope("local.vtcm")'])
    p.func("vmix", [("A", "i8", [300])], [("C", "i8", [300]), ("D", "i32", [300])],
           ["T[i: 300] = A[i] ^ 85", "G[i: 300] = i32(T[i]) * 1000",
            "C[i] = T[i] - A[299 - i]", "D[i] = G[i] + i32(T[299 - i])"],
           ['T.set_scope("local.vtcm")'])
    return p


def workspace_program():
    p = Program("workspace", "An intermediate larger than 32 KiB (it comes from the runtime's workspace), next\n"
                "to a VTCM stage.")
    p.func("big", [("A", "i16", [96, 160])], [("C", "i16", [96, 160])],
           ["T[y: 96, x: 160] = i32(A[y, x]) * 3", "V[y: 96, x: 160] = i16(T[95 - y, x] >> 1)",
            "C[y, x] = V[y, x] + i16(T[y, 159 - x])"],
           ['V.set_scope("local.vtcm")'])
    return p


def misc_program():
    p = Program("misc", "Data-dependent reads (gathers through clamp), results read by later results, 4-D\n"
                "tensors, bool counts, several live stack temporaries, six VTCM stages of odd sizes.")
    p.func("gather", [("A", "i16", [64]), ("B", "u8", [300])], [("C", "i16", [300]), ("D", "i16", [300])],
           ["C[i] = A[clamp(i32(B[i]), 0, 63)]",
            "D[i] = A[clamp(i32(B[i]) - 100, 0, 63)] + A[63 - clamp(i32(B[299 - i]) / 4, 0, 63)]"])
    p.func("chain_results", [("A", "i32", [100])], [("C", "i32", [100]), ("D", "i32", [100]), ("E", "i64", [1])],
           ["C[i] = A[i] * 3", "D[i] = C[99 - i] - A[i]", "E[z] = sum(i64(D[k]) * i64(C[k]), k: 100)"])
    p.func("four_d", [("A", "u8", [2, 3, 4, 5]), ("P", "bool", [3, 7])], [("C", "u8", [5, 4, 3, 2]), ("N", "i32", [3])],
           ["C[a, b, c, d] = A[d, c, b, a] + A[1 - d, 2 - c, 3 - b, 4 - a]", "N[r] = sum(i32(P[r, k]), k: 7)"])
    n = 7000  # 28000 bytes each: below the workspace threshold, so they live on the stack
    p.func("stack_stages", [("A", "i32", [n])], [("C", "i32", [n])],
           [f"T0[i: {n}] = A[i] + 1", f"T1[i: {n}] = T0[i] * 3", f"T2[i: {n}] = T1[{n - 1} - i] ^ T0[i]",
            f"T3[i: {n}] = T2[i] + T1[i]", f"T4[i: {n}] = T3[{n - 1} - i] - T0[i]", f"T5[i: {n}] = T4[i] >> 2",
            f"T6[i: {n}] = T5[i] * T0[{n - 1} - i]", f"T7[i: {n}] = T6[i] + T1[i] + T2[i] + T3[i]",
            "C[i] = T7[i] ^ T4[i] ^ T5[i] ^ T6[i]"])
    p.func("many_vtcm", [("A", "u8", [1000])], [("C", "u32", [1000])],
           ["V0[i: 1000] = u16(A[i])", "V1[i: 999] = u32(A[i + 1]) * 3", "V2[i: 13] = A[i * 7]",
            "V3[i: 2049] = u64(A[i % 1000])", "V4[i: 1] = A[0]",
            "V5[i: 1000] = u32(V0[i]) + V1[clamp(i, 0, 998)] + u32(V2[i % 13]) + u32(V3[i * 2]) + u32(V4[0])",
            "C[i] = V5[999 - i]"],
           [f'V{k}.set_scope("local.vtcm")' for k in range(6)])
    return p


def schedule_program():
    p = Program("schedule", "Schedules never change results: split (E % F == 0, shift inwards, E < F), tile,\n"
                "reorder, vectorize, unroll and parallel (with and without a factor), chained calls and\n"
                "compute_inline, compute_at, cache_read, cache_write and storage_align, on extents 1, 3, 127\n"
                "and 130, 2-D stages, reductions and VTCM stages.\n"
                "The interpreter runs the unscheduled program.")
    ext = [1, 3, 127, 130]
    params = [(f"A{n}", "i16", [n]) for n in ext]
    results = [(f"C{n}", "i16", [n]) for n in ext]
    body = [f"T{n}[x: {n}] = A{n}[x] * 3 + A{n}[{n - 1} - x]" for n in ext]
    body += [f"C{n}[x] = T{n}[{n - 1} - x] - i16(x)" for n in ext]
    p.func("split_1d", params, results, body,
           ["T1.split(x, xo, xi, 1)", "C1.split(x, xo, xi, 4)",
            "T3.split(x, xo, xi, 2)", "C3.split(x, xo, xi, 3)",
            "T127.split(x, xo, xi, 128)", "C127.split(x, xo, xi, 16).split(xi, xio, xii, 5)",
            "T130.split(x, xo, xi, 13)", "C130.split(x, x, xi, 64)"])
    p.func("vectorize_unroll", params, results, body,
           ["T1.vectorize(x)", "C1.unroll(x, 4)",
            "T3.vectorize(x, 128)", "C3.unroll(x)",
            "T127.vectorize(x, 32)", "C127.unroll(x, 4).vectorize(x_u)",
            "T130.vectorize(x, 128)", "C130.split(x, xo, xi, 64).vectorize(xi, 16).unroll(xo)"])
    p.func("tile_2d", [("A", "u8", [127, 130])], [("C", "u8", [127, 130]), ("D", "u8", [127, 130])],
           ["T[y: 127, x: 130] = A[y, x] ^ A[126 - y, 129 - x]",
            "C[y, x] = T[y, x] + u8(x) - u8(y)",
            "D[y, x] = T[126 - y, x] >> 1"],
           ["T.tile(x, y, xo, yo, xi, yi, 32, 8).vectorize(xi)",
            "C.tile(x, y, xi, yi, 128, 3).parallel(y)",
            "D.tile(x, y, xo, yo, xi, yi, 130, 127).unroll(yi, 2)"])
    p.func("reorder_2d", [("A", "i32", [3, 130]), ("B", "i32", [127, 1])],
           [("C", "i32", [3, 130]), ("D", "i32", [127, 1]), ("E", "i32", [1, 127])],
           ["C[y, x] = A[y, x] * (x + 1) - A[2 - y, 129 - x]",
            "D[y, x] = B[y, x] + y",
            "E[y, x] = B[x, y] * D[126 - x, 0]"],
           ["C.reorder(y, x).split(x, xo, xi, 8).reorder(xi, xo, y)",
            "D.reorder(y, x).vectorize(y, 64)",
            "E.split(x, xo, xi, 4).reorder(xo, y, xi).parallel(xi)"])
    p.func("reduction", [("A", "u8", [130, 3]), ("B", "u8", [3, 127])],
           [("C", "u32", [130, 127]), ("M", "u8", [130])],
           ["C[m, n] = sum(u32(A[m, k]) * u32(B[k, n]), k: 3) + u32(n)",
            "M[m] = max(A[m, k], k: 3) - min(B[k, m % 127], k: 3)"],
           ["C.split(n, no, ni, 32).vectorize(ni).reorder(m, no).unroll(m, 2)",
            "M.vectorize(m, 64)"])
    p.func("vtcm", [("A", "i8", [130]), ("B", "i8", [3, 127])], [("C", "i8", [130]), ("D", "i8", [3, 127])],
           ["T[x: 130] = A[x] + A[129 - x]", "U[y: 3, x: 127] = B[y, x] * 5",
            "C[x] = T[129 - x] ^ T[x]", "D[y, x] = U[2 - y, 126 - x] - U[y, x]"],
           ['T.set_scope("local.vtcm").split(x, xo, xi, 64).vectorize(xi)',
            'U.set_scope("local.vtcm").tile(x, y, xo, yo, xi, yi, 128, 2)',
            "C.vectorize(x, 128)", "D.reorder(y, x)"])
    p.func("inline", [("A", "i16", [3, 130]), ("B", "u8", [127])],
           [("C", "i16", [3, 130]), ("D", "u32", [127]), ("E", "u8", [1])],
           ["P[y: 3, x: 130] = A[y, x] * 2 + A[2 - y, 129 - x]",
            "Q[y: 3, x: 130] = P[y, x] - P[2 - y, x]",
            "C[y, x] = Q[y, x] + P[y, 129 - x]",
            "S[i: 127] = sum(u32(B[clamp(i + k - 1, 0, 126)]), k: 3)",
            "D[i] = S[i] * S[126 - i] + sum(S[k], k: 3)",
            "V[i: 1] = B[i] + B[126]",
            "E[i] = V[i] * V[0]"],
           ["P.compute_inline()", "Q.compute_inline()", "C.split(x, xo, xi, 64).vectorize(xi)",
            "S.compute_inline()", "D.vectorize(i, 32)", "V.compute_inline()"])
    p.func("compute_at", [("I", "u16", [127, 130]), ("A", "i32", [3, 130]), ("B", "u8", [1, 3])],
           [("O", "u16", [127, 130]), ("C", "i32", [3, 130]), ("D", "u8", [1, 3])],
           ["H[y: 127, x: 130] = I[y, clamp(x - 1, 0, 129)] + I[y, x] * 2 + I[y, clamp(x + 1, 0, 129)]",
            "O[y, x] = H[clamp(y - 1, 0, 126), x] + H[y, x] + H[clamp(y + 1, 0, 126), 129 - x]",
            "P[y: 3, x: 130] = A[y, x] * 7 - A[2 - y, x]",
            "C[y, x] = sum(P[clamp(y + k - 1, 0, 2), clamp(x + j - 2, 0, 129)], k: 3, j: 5) + P[y, x]",
            "T[y: 1, x: 3] = B[y, 2 - x] ^ 90",
            "D[y, x] = T[y, x] + T[0, 2 - x]"],
           ["H.compute_at(O, y).vectorize(x, 64)", "O.split(x, xo, xi, 64).vectorize(xi)",
            'P.set_scope("local.vtcm").compute_at(C, xo)', "C.tile(x, y, xo, yo, xi, yi, 32, 2)",
            "T.compute_at(D, x)"])
    # cache_read and cache_write schedule the same program.
    cached = ([("A", "u8", [127, 130]), ("B", "i16", [1]), ("E", "i32", [3]), ("F", "u8", [127])],
              [("C", "u8", [127, 130]), ("D", "i16", [1]), ("G", "i32", [3]), ("H", "u8", [127])],
              ["T[y: 127, x: 130] = A[126 - y, x] ^ A[y, 129 - x]",
               "C[y, x] = T[y, x] + A[y, x] - T[126 - y, 129 - x]",
               "D[x] = B[x] * B[0] - 7",
               "G[x] = E[2 - x] * 3 + E[x]",
               "H[x] = F[126 - x] + F[x] * 2"])
    p.func("cache_read", *cached,
           schedule=['T.cache_read(A, "local.vtcm").split(x, xo, xi, 64).vectorize(xi)',
                     'C.cache_read(T, "local.vtcm").cache_read(A, "global").vectorize(x, 128)',
                     'D.cache_read(B, "local.vtcm")', 'G.cache_read(E, "global.vtcm").vectorize(x, 32)',
                     'H.cache_read(F, "local.vtcm").vectorize(x, 128)'])
    p.func("cache_write", *cached,
           schedule=['T.cache_write("local.vtcm").tile(x, y, xi, yi, 64, 4).vectorize(xi)',
                     'C.split(x, xo, xi, 32).cache_write("local.vtcm").vectorize(xi)',
                     'D.cache_write("local.vtcm")', 'G.cache_write("global").unroll(x)',
                     'H.cache_write("local.vtcm").vectorize(x, 128)'])
    p.func("storage_align", [("A", "u8", [127, 130]), ("B", "i16", [3, 1]), ("E", "i32", [1, 3, 127])],
           [("C", "u8", [127, 130]), ("D", "i16", [3, 1]), ("G", "i32", [1, 3, 127])],
           ["T[y: 127, x: 130] = A[126 - y, x] ^ A[y, 129 - x]",
            "C[y, x] = T[y, x] + A[y, x] - T[126 - y, 129 - x]",
            "U[y: 3, x: 1] = B[2 - y, x] * 5",
            "D[y, x] = U[y, x] - U[2 - y, 0] + B[y, x]",
            "P[z: 1, y: 3, x: 127] = E[z, 2 - y, x] * 3 + E[z, y, 126 - x]",
            "G[z, y, x] = P[z, y, x] ^ P[0, 2 - y, 126 - x]"],
           ['T.set_scope("local.vtcm").storage_align(y, 256).vectorize(x, 128)',
            "C.vectorize(x, 128)",
            "U.storage_align(0, 3)",
            'P.set_scope("local.vtcm").storage_align(1, 32).storage_align(z, 1000)',
            'G.cache_write("local.vtcm").storage_align(y, 128).vectorize(x, 32)'])
    return p


def store_at_program():
    p = Program("store_at", "store_at: a producer stored in a buffer of its compute_at region, inside the consumer's\n"
                "loop (widened to whole vectors and partitioned at its clamps when the region's innermost\n"
                "range is fixed), and vector loads at constant positions whose clamps repeat lanes (read as\n"
                "aligned vectors and a shuffle), on extents 1, 3, 127, 130 and 256.\n"
                "The interpreter runs the unscheduled program.")
    # The dilation of bench/schedules/dilate3x3.dsp at a small size: rows paired, the vertical
    # maximum stored per pair of rows, the horizontal taps clamped at the row's two edge vectors.
    p.func("rows", [("I", "u8", [7, 256])], [("O", "u8", [7, 256])],
           ["V[y: 7, x: 256] = select(y % 2 == 0, max(I[clamp(y - 1, 0, 6), x], max(I[y, x], I[clamp(y + 1, 0, 6), x])), "
            "max(max(I[clamp(y - 1, 0, 6), x], I[y, x]), I[clamp(y + 1, 0, 6), x]))",
            "O[y, x] = max(V[y, max(x - 1, 0)], max(V[y, x], V[y, min(x + 1, 255)]))"],
           ["O.split(y, y, yi, 2).unroll(yi).vectorize(x)",
            "V.compute_at(O, y).store_at(O, y).unroll(y).vectorize(x, 128).unroll(x)"])
    # Clamped reads in the producer (partitioned), a region wider than the reads (widened to
    # whole vectors of 64), storage_align, a consumer loop inside the store loop.
    p.func("clamped", [("I", "i16", [127, 130])], [("O", "i16", [127, 130])],
           ["H[y: 127, x: 130] = I[y, clamp(x - 1, 0, 129)] + I[y, x] * 2 - I[y, clamp(x + 1, 0, 129)]",
            "O[y, x] = H[y, clamp(x - 2, 0, 129)] ^ H[y, 129 - x] + H[y, x]"],
           ["H.compute_at(O, y).store_at(O, y).vectorize(x, 64).storage_align(y, 128)",
            "O.split(x, xo, xi, 32).vectorize(xi)"])
    # A region whose min moves with the loop (no widening), in VTCM, read by a reduction; and
    # tiny extents.
    p.func("moving", [("A", "i32", [3, 130]), ("B", "u8", [1, 3]), ("E", "u8", [1])],
           [("C", "i32", [3, 130]), ("D", "u8", [1, 3]), ("F", "u8", [1])],
           ["P[y: 3, x: 130] = A[y, x] * 7 - A[2 - y, x]",
            "C[y, x] = sum(P[clamp(y + k - 1, 0, 2), clamp(x + j - 2, 0, 129)], k: 3, j: 5) + P[y, x]",
            "T[y: 1, x: 3] = B[y, 2 - x] ^ 90",
            "D[y, x] = T[y, x] + T[0, 2 - x]",
            "U[x: 1] = E[x] * 3",
            "F[x] = U[x] + 1"],
           ['P.set_scope("local.vtcm").compute_at(C, xo).store_at(C, xo)', "C.tile(x, y, xo, yo, xi, yi, 32, 2)",
            "T.compute_at(D, x).store_at(D, x)", "U.store_at(F, x).compute_at(F, x)"])
    # Window loads: clamped taps over a whole row at a constant position (a consumer with a
    # compute_at producer is not partitioned), in 8-, 16- and 32-bit lanes; 130 u8 lanes are
    # not whole vectors (a gather).
    for t, w in (("u8", 256), ("i16", 128), ("i32", 64), ("u8", 130)):
        p.func(f"window_{t}_{w}", [("I", t, [3, w])], [("O", t, [3, w])],
               [f"P[y: 3, x: {w}] = I[y, x] ^ 5",
                f"O[y, x] = max(P[y, max(x - 1, 0)], P[y, min(x + 1, {w - 1})]) - P[y, max(x - 2, 0)] "
                f"+ P[y, min(x + 3, {w - 1})]"],
               ["P.compute_at(O, y).store_at(O, y).vectorize(x)", "O.vectorize(x)"])
    return p


def programs():
    """Most groups are split into one file per function, so that each test compiles only the
    function it runs; access, vtcm and reduce keep several functions per file (run with --func)."""
    ps = [q for t in INTS for q in int_program(t).split()]
    ps += consts_program().split() + casts_program().split() + stencil_program().split()
    ps += [q for f in FLOATS for q in float_program(f).split()]
    ps += [literals_min_program(), literals_cast_program(), unsigned_negabs_program(), bools_program(),
           reduce_program(), reduce_nested_program(), access_program(), vtcm_program(), workspace_program(),
           misc_program()]
    ps += schedule_program().split()  # last: the seeds of the programs above stay as they were
    ps += boxes_program().split()
    ps += layouts_program().split()
    ps += store_at_program().split()
    # A few programs also run for the oldest Hexagon version, and are compiled and linked for
    # the newest ones (qemu-hexagon -cpu v67 cannot decode all v69/v73 instructions).
    others = {"float_f32_arith", "float_f32_edge", "float_f64_arith", "int_i16_shift", "int_i32_divmod",
              "casts_from_i32", "vtcm", "reduce"}
    for p in ps:
        if p.name in others:
            p.extra_targets = ["hexagon-v65"]
            p.compile_targets = ["hexagon-v69", "hexagon-v73"]
    return ps


def write_programs(folder):
    os.makedirs(folder, exist_ok=True)
    for old in glob.glob(os.path.join(folder, "*.dsp")):
        os.remove(old)
    for k, p in enumerate(programs()):
        with open(os.path.join(folder, p.name + ".dsp"), "w", encoding="utf-8") as out:
            out.write(p.text(seed_base=100 * (k + 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", help="write the .dsp programs into this folder")
    ap.add_argument("--check", help="compare this folder with freshly generated programs")
    ap.add_argument("--data", help="write the .npy edge-value tables into this folder")
    a = ap.parse_args()
    if not (a.programs or a.check or a.data):
        ap.error("nothing to do")
    if a.programs:
        write_programs(a.programs)
    if a.data:
        write_data(a.data)
    if a.check:
        with tempfile.TemporaryDirectory() as tmp:
            write_programs(tmp)
            fresh = sorted(os.listdir(tmp))
            have = sorted(n for n in os.listdir(a.check) if n.endswith(".dsp"))
            stale = [n for n in fresh if n not in have or not filecmp.cmp(os.path.join(tmp, n),
                                                                          os.path.join(a.check, n), shallow=False)]
            extra = [n for n in have if n not in fresh]
            if stale or extra:
                print("stale e2e programs (rerun tests/e2e/gen_programs.py --programs):", *(stale + extra))
                return 1
            print(f"{len(fresh)} e2e programs up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
