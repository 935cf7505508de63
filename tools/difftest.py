#!/usr/bin/env python3
"""Random differential testing of dspc: random well-typed programs with random legal schedules,
each run on hexagon-v68 (under qemu-hexagon) and on the host, and compared bit for bit with
the reference interpreter (which ignores schedules).

  python3 tools/difftest.py --dspc build/dspc --count 1000 --seed 1 [--jobs 2]
  python3 tools/difftest.py --dspc build/dspc --only 17 --seed 1 --print   # show case 17

Case k depends only on (--seed, k): a run is reproducible, and `--only K` replays one case.
Each case is one function (tools/difftest.py --print shows it) with:
  - one to three inputs and one or two results, all 1-D or all 2-D, with extents drawn from
    1, 2, 3, 5, 7, 13, 31, 64, 100, 127, 128, 129, 130 and 257 (odd, prime, and below, at
    and above the vector length);
  - zero to three intermediate stages; every dtype (i8 ... u64, f32, f64) and every operator,
    casts, select with comparisons and logic, min/max/abs/clamp, count_leading_zeros/popcount, sum/min/max reductions,
    and clamped neighbourhood reads of inputs and earlier stages;
  - a random schedule: none (the automatic one) or per stage some of split, tile, reorder,
    vectorize, unroll, parallel, compute_at (and store_at at its loop), compute_inline, set_scope("local.vtcm"),
    cache_read, cache_write, storage_align and prefetch, combined as the README allows.
About a quarter of the cases (KIND_SHARE, drawn from the stream "SEED:K:kind") are instead of one
of the fixed kinds (KINDS, class KindMaker), each with random dtypes (HVX_INTS more often) and
sizes that make the automatic schedule vectorize it, and mostly no schedule (a fifth get a
random one as above):
  - reduce: sum/min/max along the contiguous axis, lengths 1 to 1100 (128 dividing them or not,
    from an offset or not), widened or not, of one or two inputs (products, |a - b|, squares),
    over one or two axes, 1-D or 2-D results; and sums across rows;
  - dot: i8 x i8, u8 x i8, i8 x u8, u8 x u8, i16 x i16, ... products summed into i32 (or u32,
    i64, i16): dot products of rows, matrix-vector, A times B transposed, matrix products, filters;
  - transpose: O[i, j] = I[j, i] of an input or of a stage, alone, cast or in an expression;
  - strided: stride-2/3/4 reads (decimation, several taps widened and narrowed), 1-D and 2-D;
  - interleave: stride-2/3/4 writes (planes into a channel axis or into x % s), planes out of
    a channel axis or a stride, nearest-neighbour upscaling;
  - widths: every integer width widened, narrowed, averaged, high half of products, saturated.
`--only-kinds reduce,dot` runs those kinds only; `--kinds` generates the cases without running
them, counts the kinds and their features (tags) and checks that each appears (ctest
difftest/kinds). The other cases are the same programs as before the kinds existed.
It runs `dspc run FILE --random-inputs --seed=K --check --json` for each target. A case FAILS
when dspc crashes or reports an internal error, or when --check finds a difference (a
miscompile). A located compile error on a generated program counts as "rejected" (the
generator made a combination dspc refuses; the summary counts them, and a legal program
rejected would be a dspc bug to look at). A failing case is shrunk (schedule lines dropped,
stages dropped, expressions replaced by leaves, while it still fails the same way) and saved
to --out-dir with the command that shows it; add it to tests/difftest/regressions/ once fixed.
A saved case says how to run it in an `# E2E-RUN: VARIANT --seed=K` line, as the end-to-end
programs do (tests/e2e/CMakeLists.txt): ctest runs each regression on both targets,
`ctest -R e2e/difftest/`.

The last line is a summary:
  difftest: N cases, N ok, N rejected, N mismatches, N crashes
Exit code 1 if any case failed.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOATS = ["f32", "f64"]
EXTENTS = [1, 2, 3, 5, 7, 13, 31, 64, 100, 127, 128, 129, 130, 257]
TARGETS = ["hexagon-v68", "host"]


def bits(t):
    return int(t[1:])


def lit(rng, t):
    """A literal of dtype t, suffixed so that it types alone."""
    if t in FLOATS:
        v = rng.choice(["0.0", "1.0", "0.5", "2.5", "3.0", "100.0", "1e10", "0.001"])
        return v + t if rng.random() < 0.8 else f"-{v}{t}"
    hi = (1 << (bits(t) - 1)) - 1 if t[0] == "i" else (1 << bits(t)) - 1
    v = rng.choice([0, 1, 2, 3, 7, 15, 100, hi, hi - 1, 1, 5])
    v = min(v, hi)
    if t[0] == "i" and rng.random() < 0.3:
        return f"(-{v}{t})"
    return f"{v}{t}"


class Tensor:
    def __init__(self, name, dtype, shape, is_input=False):
        self.name, self.dtype, self.shape, self.is_input = name, dtype, shape, is_input


class Stage:
    def __init__(self, name, dtype, shape, expr, is_result, vars=None):
        self.name, self.dtype, self.shape, self.expr, self.is_result = name, dtype, shape, expr, is_result
        self.vars = vars  # its index variables, if not the default ones (Case.vars)

    def reads(self, name):
        return re.search(r"\b" + re.escape(name) + r"\[", self.expr) is not None


class Gen:
    """Typed random expressions over the tensors visible to one stage."""

    def __init__(self, rng, visible, shape, reduce_ok=True):
        self.rng, self.visible, self.shape, self.reduce_ok = rng, visible, shape, reduce_ok
        self.rvars = []  # reduction variables in scope: (name, extent)

    def index(self, d, extent_here, extent_there):
        rng = self.rng
        v = ["y", "x"][d + 2 - len(self.shape)] if len(self.shape) == 2 else "x"
        terms = v
        if self.rvars and rng.random() < 0.6:
            r, e = rng.choice(self.rvars)
            terms = f"{v} + {r} - {e // 2}"
        elif rng.random() < 0.4:
            terms = f"{v} {rng.choice(['+', '-'])} {rng.choice([1, 2, 3])}"
        elif extent_here == extent_there and rng.random() < 0.15:
            return f"{extent_there - 1} - {v}"
        if terms == v and extent_here == extent_there:
            return v
        return f"clamp({terms}, 0, {extent_there - 1})"

    def load(self, t):
        tensor = self.rng.choice(self.visible)
        idx = ", ".join(self.index(d, self.shape[d], tensor.shape[d]) for d in range(len(self.shape)))
        e = f"{tensor.name}[{idx}]"
        return e if tensor.dtype == t else f"{t}({e})"

    def cond(self, depth):
        rng = self.rng
        s = rng.choice(INTS + FLOATS)
        c = f"{self.expr(s, depth + 1)} {rng.choice(['<', '<=', '>', '>=', '==', '!='])} {self.expr(s, depth + 1)}"
        r = rng.random()
        if r < 0.15:
            return f"!({c})"
        if r < 0.3:
            return f"({c}) {rng.choice(['&&', '||'])} ({self.cond(depth + 1)})"
        return c

    def expr(self, t, depth=0):
        rng = self.rng
        if depth >= 4 or rng.random() < 0.25 + 0.15 * depth:
            return self.load(t) if rng.random() < 0.75 else lit(rng, t)
        is_float = t in FLOATS
        choice = rng.random()
        if choice < 0.45:
            ops = ["+", "-", "*", "/", "%"] + ([] if is_float else ["<<", ">>", "&", "|", "^"])
            op = rng.choice(ops)
            return f"({self.expr(t, depth + 1)} {op} {self.expr(t, depth + 1)})"
        if choice < 0.55:
            f = rng.choice(["min", "max"])
            return f"{f}({self.expr(t, depth + 1)}, {self.expr(t, depth + 1)})"
        if choice < 0.62:
            if not is_float and rng.random() < 0.3:
                f = rng.choice(["count_leading_zeros", "popcount"])
                return f"{f}({self.expr(t, depth + 1)})"
            if is_float or t[0] == "i":
                return f"{rng.choice(['-', 'abs'])}({self.expr(t, depth + 1)})"
            return f"~({self.expr(t, depth + 1)})"
        if choice < 0.72:
            s = rng.choice(INTS + FLOATS)
            return f"{t}({self.expr(s, depth + 1)})"
        if choice < 0.8:
            return f"select({self.cond(depth + 1)}, {self.expr(t, depth + 1)}, {self.expr(t, depth + 1)})"
        if choice < 0.85:
            a, b = sorted([rng.randint(0, 100), rng.randint(0, 100)])
            return f"clamp({self.expr(t, depth + 1)}, {a}{t if not is_float else t}, {b}{t})" if not is_float \
                else f"clamp({self.expr(t, depth + 1)}, {a}.0{t}, {b}.0{t})"
        if self.reduce_ok and not self.rvars and choice < 0.95:
            op = rng.choice(["sum", "min", "max"])
            r, e = "r", rng.choice([1, 2, 3, 4, 5, 8])
            axes = [(r, e)]
            if rng.random() < 0.3:
                axes.append(("s", rng.choice([2, 3])))
            self.rvars = axes
            body = self.expr(t, depth + 1)
            self.rvars = []
            return f"{op}({body}, {', '.join(f'{n}: {x}' for n, x in axes)})"
        return self.load(t)


class Case:
    def __init__(self, seed, k):
        self.k = k
        self.inputs, self.stages, self.tags = [], [], set()
        pick = random.Random(f"{seed}:{k}:kind")
        if pick.random() < KIND_SHARE:
            self.kind = pick.choices(KINDS, KIND_WEIGHTS)[0]
            self.rng = random.Random(f"{seed}:{k}:{self.kind}")
            getattr(KindMaker(self), self.kind)()
            self.schedule = self.make_schedule() if self.rng.random() < 0.2 else []
            if self.schedule:
                self.tags.add(self.kind + "-scheduled")
            return
        self.kind = "random"
        self.rng = random.Random(f"{seed}:{k}")
        rng = self.rng
        rank = rng.choice([1, 2, 2])
        def shape():
            return [rng.choice(EXTENTS[:8]) for _ in range(rank - 1)] + [rng.choice(EXTENTS)]
        out_shape = shape()
        self.inputs = []
        for n in range(rng.randint(1, 3)):
            s = out_shape if rng.random() < 0.6 else shape()
            self.inputs.append(Tensor("ABD"[n], rng.choice(INTS + FLOATS + INTS), s, True))
        self.stages = []
        visible = list(self.inputs)
        for n in range(rng.randint(0, 3)):
            t = rng.choice(INTS + FLOATS + INTS)
            s = out_shape if rng.random() < 0.7 else shape()
            st = Stage("TUVW"[n], t, s, Gen(rng, visible, s).expr(t), False)
            self.stages.append(st)
            visible.append(Tensor(st.name, t, s))
        for n in range(rng.randint(1, 2)):
            t = rng.choice(INTS + FLOATS + INTS)
            s = out_shape if n == 0 else shape()
            self.stages.append(Stage("CE"[n], t, s, Gen(rng, visible, s).expr(t), True))
        self.schedule = self.make_schedule() if rng.random() < 0.85 else []

    def vars(self, st):
        if st.vars:
            return st.vars
        return ["y", "x"] if len(st.shape) == 2 else ["x"]

    def make_schedule(self):
        rng = self.rng
        lines = []
        inlined, at, vtcm = set(), {}, set()
        readers = {st.name: [o.name for o in self.stages if o.reads(st.name)] for st in self.stages}
        for st in self.stages:
            if st.is_result:
                continue
            r = rng.random()
            if r < 0.2 and readers[st.name]:
                lines.append(f"{st.name}.compute_inline()")
                inlined.add(st.name)
            elif r < 0.45 and len(readers[st.name]) == 1:
                at[st.name] = readers[st.name][0]
        for st in self.stages:
            if st.name in inlined:
                continue
            chain = []
            vs = self.vars(st)
            x = vs[-1]
            if not st.is_result and rng.random() < 0.3:
                chain.append('set_scope("local.vtcm")')
                vtcm.add(st.name)
            if st.is_result and rng.random() < 0.15 and not any(at.get(o) == st.name for o in at):
                chain.append('cache_write("local.vtcm")')
            reads_inputs = [i.name for i in self.inputs if st.reads(i.name)]
            if reads_inputs and rng.random() < 0.15 and st.name not in at:
                cached = rng.choice(reads_inputs)
                chain.append(f'cache_read({cached}, "{rng.choice(["local.vtcm", "global"])}")')
                reads_inputs.remove(cached)  # the stage now reads the copy
            if not st.is_result and len(vs) == 2 and rng.random() < 0.15:
                chain.append(f"storage_align(y, {rng.choice([3, 16, 128, 256])})")
            kind = rng.random()
            outer = "y" if len(vs) == 2 else None
            if kind < 0.35:
                chain.append(f"vectorize({x}, {rng.choice([4, 8, 16, 32, 64, 128, 256])})")
            elif kind < 0.5:
                chain.append(f"split({x}, xo, xi, {rng.choice([2, 3, 7, 32, 128])}).vectorize(xi)")
            elif kind < 0.6 and len(vs) == 2:
                chain.append(f"tile(x, y, xi, yi, {rng.choice([8, 32, 128])}, {rng.choice([1, 2, 4])}).vectorize(xi)")
            elif kind < 0.7 and len(vs) == 2:
                chain.append("reorder(y, x)")
                outer = "x"
            elif kind < 0.8:
                chain.append(f"unroll({x}, {rng.choice([2, 3, 4])})")
            if outer and rng.random() < 0.2:
                chain.append(f"unroll({outer}, 2)" if rng.random() < 0.5 else f"parallel({outer})")
            if st.name in at:
                consumer = next(s for s in self.stages if s.name == at[st.name])
                loop = self.vars(consumer)[0]
                chain.append(f"compute_at({consumer.name}, {loop})")
                if rng.random() < 0.4:  # storage of the region only, inside that loop
                    chain.append(f"store_at({consumer.name}, {loop})")
            elif outer and reads_inputs and rng.random() < 0.15:
                chain.append(f"prefetch({rng.choice(reads_inputs)}, {outer}, {rng.choice([1, 2])})")
            if chain:
                lines.append(f"{st.name}." + ".".join(chain))
        return lines

    def text(self, schedule=None, stages=None):
        stages = self.stages if stages is None else stages
        schedule = self.schedule if schedule is None else schedule
        sig = lambda ts: ", ".join(f"{t.name}: {t.dtype}[{', '.join(map(str, t.shape))}]" for t in ts)
        out = f"func case{self.k}({sig(self.inputs)}) -> ({sig([s for s in stages if s.is_result])}) {{\n"
        for st in stages:
            vs = self.vars(st)
            if st.is_result:
                out += f"  {st.name}[{', '.join(vs)}] = {st.expr}\n"
            else:
                out += f"  {st.name}[{', '.join(f'{v}: {e}' for v, e in zip(vs, st.shape))}] = {st.expr}\n"
        if schedule:
            out += "  schedule {\n" + "".join(f"    {l}\n" for l in schedule) + "  }\n"
        return out + "}\n"


# The kinds of cases besides the random ones ("random", above): each a fixed form with random
# dtypes and sizes, sized so that the automatic schedule vectorizes it (reduction lengths up to
# ~1100, 128 dividing them or not; innermost extents of a vector or more, or not). A case is of
# one of them with probability KIND_SHARE, drawn from its own stream (so the random cases are
# the same programs as before these kinds existed).
KIND_SHARE = 0.25
KINDS = ["reduce", "dot", "transpose", "strided", "interleave", "widths"]
KIND_WEIGHTS = [3, 2, 1, 1, 1, 1]
RED_LENGTHS = [1, 2, 3, 7, 31, 64, 100, 127, 128, 129, 130, 200, 255, 256, 257, 300, 383, 384,
               500, 511, 512, 513, 640, 700, 768, 1000, 1023, 1024, 1025, 1100]
VEC_EXTENTS = [1, 3, 7, 31, 63, 64, 65, 100, 127, 128, 129, 130, 200, 255, 256, 257, 300, 384, 513,
               640, 1000]
# The dtypes HVX has lanes for in dspc's code (64-bit and float stages run in scalar code), drawn
# more often than the others.
HVX_INTS = ["u8", "i8", "u16", "i16", "u32", "i32"] * 2
ROWS = [1, 2, 3, 4, 5, 7, 8]
WIDER = {"i8": ["i16", "i32", "i64"], "u8": ["u16", "u32", "i16", "i32", "u64"],
         "i16": ["i32", "i64"], "u16": ["u32", "i32", "u64"], "i32": ["i64"], "u32": ["u64", "i64"],
         "i64": [], "u64": []}


def red_length(rng):
    return rng.choice(RED_LENGTHS) if rng.random() < 0.7 else rng.randint(1, 1100)


class KindMaker:
    """Builds one case of a kind: inputs, stages and tags (the features it exercises, which the
    --kinds check looks for)."""

    def __init__(self, case):
        self.case, self.rng = case, case.rng

    def inp(self, dtype, shape):
        t = Tensor("ABDFGH"[len(self.case.inputs)], dtype, list(shape), True)
        self.case.inputs.append(t)
        return t

    def result(self, name, dtype, shape, expr, vars=None):
        self.case.stages.append(Stage(name, dtype, list(shape), expr, True, vars))

    def stage(self, name, dtype, shape, expr, vars=None):
        self.case.stages.append(Stage(name, dtype, list(shape), expr, False, vars))

    def tag(self, *tags):
        self.case.tags.update(tags)

    # Reductions along the contiguous axis (and, less often, across rows).
    def reduce(self):
        rng = self.rng
        n = red_length(rng)
        self.tag("reduce", "reduce-len-" + ("1" if n == 1 else "mult128" if n % 128 == 0 else "nondiv128"))
        if n > 1024:
            self.tag("reduce-len-over1024")
        rows = rng.choice(ROWS)
        t = rng.choice(["u8", "i8", "u8", "i8", "i16", "u16"] + INTS + ["f32"])
        op = rng.choice(["sum", "sum", "sum", "min", "max"])
        if op == "sum" and t in INTS and WIDER[t] and rng.random() < 0.7:
            acc = rng.choice(WIDER[t])
        elif op != "sum" and t in INTS and WIDER[t] and rng.random() < 0.3:
            acc = rng.choice(WIDER[t])
        else:
            acc = t
        self.tag(f"reduce-{op}", f"reduce-{t}-to-{acc}")
        off = rng.choice([0, 0, 0, 1, 3, 64])
        kk = f"k + {off}" if off else "k"
        form = rng.random()
        if form < 0.15:  # across rows: the outputs' own axis is the contiguous one
            a = self.inp(t, [n, rows * 37 if rng.random() < 0.5 else rng.choice(VEC_EXTENTS)])
            self.result("C", acc, [a.shape[1]], f"{op}({self.conv(acc, f'A[r, x]', t)}, r: {n})")
            self.tag("reduce-columns")
            return
        three = rng.random() < 0.2
        if three:  # a 2-D result, or two reduction axes
            z = rng.choice([1, 2, 3])
            a = self.inp(t, [z, rows, n + off])
            if rng.random() < 0.5:
                idx, res_shape, axes, vs = f"y, x, {kk}", [z, rows], f"k: {n}", None
            else:
                idx, res_shape, axes, vs = f"x, s, {kk}", [z], f"s: {rows}, k: {n}", None
                self.tag("reduce-two-axes")
        else:
            a = self.inp(t, [rows, n + off])
            idx, res_shape, axes, vs = f"x, {kk}", [rows], f"k: {n}", None
        src = "A"
        if rng.random() < 0.15:  # the reduction reads a stage, not an input
            vs_u = ["z", "y", "x"] if len(a.shape) == 3 else ["y", "x"]
            ix = ", ".join(vs_u)
            e = f"(A[{ix}] {rng.choice(['+', '^', '*'])} {lit(rng, t)})" if t in INTS else f"(A[{ix}] * {lit(rng, t)})"
            self.stage("U", t, a.shape, e, vs_u)
            src = "U"
            self.tag("reduce-of-stage")
        load = lambda nm: f"{nm}[{idx}]"
        body = self.conv(acc, load(src), t)
        r = rng.random()
        if r < 0.25 and t in INTS:
            off_b = rng.choice([off, off, 0, 1, 2, 5])  # B read from another offset, or the same
            self.inp(t, a.shape[:-1] + [n + off_b])
            load_b = f"B[{idx.replace(kk, f'k + {off_b}' if off_b else 'k')}]"
            if off_b != off:
                self.tag("reduce-two-offsets")
            if op == "sum" and acc[0] == "i" and t[0] == "u":
                body = f"abs({self.conv(acc, load(src), t)} - {self.conv(acc, load_b, t)})"
                self.tag("reduce-absdiff")
            else:
                body = f"({body} {rng.choice(['+', '-', '*'])} {self.conv(acc, load_b, t)})"
        elif r < 0.4:
            body = f"({body} * {body})"
            self.tag("reduce-square")
        elif r < 0.5:
            body = f"({body} + {lit(rng, acc)})"
        elif r < 0.6 and acc in INTS:
            body = f"select({load(src)} > {lit(rng, t)}, {body}, {lit(rng, acc)})"
        if rng.random() < 0.2 and len(res_shape) == 1:  # a further stage reads the reduction
            self.stage("T", acc, res_shape, f"{op}({body}, {axes})", ["x"])
            self.result("C", acc, res_shape, f"(T[x] {rng.choice(['+', '^'] if acc in INTS else ['+'])} {lit(rng, acc)})")
        else:
            self.result("C", acc, res_shape, f"{op}({body}, {axes})", vs)

    @staticmethod
    def conv(to, e, frm):
        return e if to == frm else f"{to}({e})"

    # Products of narrow integers summed into a wider one: dot products of rows, matrix-vector,
    # A times B transposed, matrix products and short filters.
    def dot(self):
        rng = self.rng
        ta, tb = rng.choice([("i8", "i8"), ("u8", "i8"), ("i8", "u8"), ("u8", "u8"), ("i16", "i16"),
                             ("u16", "u16"), ("i16", "i8"), ("u8", "u16")])
        acc = rng.choice(["i32", "i32", "i32", "i32", "u32", "u32", "i64", "i16"])
        self.tag("dot", f"dot-{ta}x{tb}")
        n = red_length(rng)
        prod = f"{acc}(A[{{a}}]) * {acc}(B[{{b}}])"
        form = rng.choice(["rows", "gemv", "abt", "matmul", "fir"])
        self.tag(f"dot-{form}")
        if form == "rows":
            rows = rng.choice(ROWS)
            self.inp(ta, [rows, n]); self.inp(tb, [rows, n])
            self.result("C", acc, [rows], f"sum({prod.format(a='x, k', b='x, k')}, k: {n})")
        elif form == "gemv":
            rows = rng.choice(ROWS + [16, 33])
            self.inp(ta, [rows, n]); self.inp(tb, [n])
            self.result("C", acc, [rows], f"sum({prod.format(a='x, k', b='k')}, k: {n})")
        elif form == "abt":
            i, j = rng.choice([1, 2, 3, 4, 8]), rng.choice([1, 3, 4, 16])
            self.inp(ta, [i, n]); self.inp(tb, [j, n])
            self.result("C", acc, [i, j], f"sum({prod.format(a='y, k', b='x, k')}, k: {n})")
        elif form == "matmul":
            n = rng.choice([1, 3, 16, 64, 100, 192])
            m, cols = rng.choice([1, 2, 4, 8]), rng.choice(VEC_EXTENTS)
            self.inp(ta, [m, n]); self.inp(tb, [n, cols])
            self.result("C", acc, [m, cols], f"sum({prod.format(a='y, k', b='k, x')}, k: {n})")
        else:
            taps = rng.choice([2, 3, 4, 5, 8, 16, 31])
            rows, cols = rng.choice(ROWS), rng.choice(VEC_EXTENTS)
            self.inp(ta, [rows, cols + taps - 1]); self.inp(tb, [taps])
            self.result("C", acc, [rows, cols], f"sum({prod.format(a='y, x + k', b='k')}, k: {taps})")

    # O[i, j] = I[j, i]: of an input or of an earlier stage, alone or in an expression.
    def transpose(self):
        rng = self.rng
        t = rng.choice(HVX_INTS + INTS + FLOATS)
        sizes = [1, 2, 3, 7, 13, 31, 32, 64, 100, 127, 128, 129, 130, 256, 257]
        m, n = rng.choice(sizes), rng.choice(sizes)
        if rng.random() < 0.3:
            m, n = rng.choice([64, 128, 256]), rng.choice([64, 128, 256])
        while m * n > 40000:
            m, n = rng.choice(sizes), rng.choice(sizes)
        self.tag("transpose", f"transpose-{t}", "transpose-" + ("vec" if m % 128 == 0 and n % 128 == 0 else "novec"))
        self.inp(t, [n, m])
        r = rng.random()
        if r < 0.5:
            self.result("C", t, [m, n], "A[x, y]")
        elif r < 0.7:
            self.inp(t, [m, n])
            self.result("C", t, [m, n], f"(A[x, y] {rng.choice(['+', '^', '-'])} B[y, x])" if t in INTS
                        else "(A[x, y] + B[y, x])")
        elif r < 0.85:
            to = rng.choice(INTS + FLOATS)
            self.result("C", to, [m, n], self.conv(to, "A[x, y]", t))
            self.tag("transpose-cast")
        else:  # a transposing intermediate stage, then a reader of it
            self.stage("T", t, [m, n], "A[x, y]")
            self.result("C", t, [m, n], f"(T[y, x] + {lit(rng, t)})")
            self.tag("transpose-stage")

    # Stride-2/3/4 reads: decimation, downscaling with several taps, in 1-D and 2-D.
    def strided(self):
        rng = self.rng
        s = rng.choice([2, 3, 4])
        t = rng.choice(HVX_INTS + INTS + FLOATS)
        self.tag("strided", f"stride-{s}")
        rank = rng.choice([1, 2])
        n = rng.choice(VEC_EXTENTS)
        rows = rng.choice(ROWS)
        extra = rng.choice([0, 0, 1, 2, 5])
        taps = sorted(rng.sample(range(s), rng.randint(1, s)))
        wide = rng.choice(WIDER[t]) if t in INTS and WIDER[t] and rng.random() < 0.6 else t
        if rank == 1:
            self.inp(t, [s * n + extra])
            loads = [f"A[{s} * x + {c}]" if c else f"A[{s} * x]" for c in taps]
            shape = [n]
        else:
            two_d = rng.random() < 0.4
            self.inp(t, [s * rows if two_d else rows, s * n + extra])
            ys = [f"{s} * y + {rng.randrange(s)}" if two_d else "y" for _ in taps]
            loads = [f"A[{yy}, {s} * x + {c}]" for yy, c in zip(ys, taps)]
            shape = [rows, n]
        e = " + ".join(self.conv(wide, l, t) for l in loads)
        if len(loads) > 1 and wide != t:
            e = self.conv(t, f"(({e}) / {lit(rng, wide)})" if rng.random() < 0.3 else f"(({e}) >> 1)", wide) \
                if t in INTS else e
            self.result("C", t, shape, e)
        else:
            self.result("C", wide, shape, e if len(loads) == 1 else f"({e})")

    # Stride-2/3/4 writes: interleaving planes (a channel axis, or x % s), deinterleaving them,
    # and nearest-neighbour upscaling.
    def interleave(self):
        rng = self.rng
        s = rng.choice([2, 3, 4])
        t = rng.choice(HVX_INTS + INTS + FLOATS)
        rows, n = rng.choice(ROWS), rng.choice(VEC_EXTENTS)
        form = rng.choice(["planes", "planes-x", "deplanes", "upscale"])
        self.tag("interleave", f"interleave-{form}", f"interleave-{s}")
        if form == "planes":  # O[y, x, c] = plane c's pixel
            for _ in range(s):
                self.inp(t, [rows, n])
            e = "ABDF"[s - 1] + "[y, x]"
            for c in reversed(range(s - 1)):
                e = f"select(c == {c}, {'ABDF'[c]}[y, x], {e})"
            self.result("C", t, [rows, n, s], e, ["y", "x", "c"])
        elif form == "planes-x":  # O[x] = plane (x % s)'s element x / s
            for _ in range(s):
                self.inp(t, [n])
            e = "ABDF"[s - 1] + f"[x / {s}]"
            for c in reversed(range(s - 1)):
                e = f"select(x % {s} == {c}, {'ABDF'[c]}[x / {s}], {e})"
            self.result("C", t, [s * n], e)
        elif form == "deplanes":  # one result per plane
            three = rng.random() < 0.5
            self.inp(t, [rows, n, s] if three else [rows, s * n])
            for c in range(min(s, 2)):
                self.result("CE"[c], t, [rows, n], f"A[y, x, {c}]" if three else f"A[y, {s} * x + {c}]")
        else:  # O[y, x] = I[y / s, x / s]
            sy = rng.choice([1, s])
            self.inp(t, [rows, n])
            self.result("C", t, [rows * sy, n * s], f"A[y / {sy}, x / {s}]" if sy > 1 else f"A[y, x / {s}]")

    # Every integer width: widening and narrowing arithmetic, rounding averages, high halves of
    # products, saturating narrowing, on vector-sized rows and others.
    def widths(self):
        rng = self.rng
        t = rng.choice(INTS + HVX_INTS[:4])
        rows, n = rng.choice(ROWS), rng.choice(VEC_EXTENTS)
        shape = [rows, n] if rng.random() < 0.7 else [n]
        idx = "y, x" if len(shape) == 2 else "x"
        self.inp(t, shape); self.inp(t, shape)
        narrower = [w for w in WIDER[t] if bits(w) < 64]  # HVX lanes, more often
        wide = rng.choice(narrower if narrower and rng.random() < 0.7 else WIDER[t]) if WIDER[t] else None
        bits_t = bits(t)
        form = rng.choice(["widen", "narrow", "avg", "mulhi", "sat", "shift"] if wide else ["narrow", "shift"])
        self.tag("widths", f"width-{t}", f"width-{form}")
        a, b = f"A[{idx}]", f"B[{idx}]"
        if form == "widen":
            op = rng.choice(["+", "-", "*"])
            self.result("C", wide, shape, f"({wide}({a}) {op} {wide}({b}))")
        elif form == "narrow":
            to = rng.choice([u for u in INTS if bits(u) < bits_t] or INTS)
            self.result("C", to, shape, f"{to}(({a} {rng.choice(['+', '*', '>>', '^'])} {b}))")
        elif form == "avg":
            self.result("C", t, shape, f"{t}(({wide}({a}) + {wide}({b}) + 1) >> 1)")
        elif form == "mulhi":
            self.result("C", t, shape, f"{t}(({wide}({a}) * {wide}({b})) >> {bits_t - (1 if t[0] == 'i' else 0)})")
        elif form == "sat":
            lo = -(1 << (bits_t - 1)) if t[0] == "i" else 0
            hi = (1 << (bits_t - 1)) - 1 if t[0] == "i" else (1 << bits_t) - 1
            lo_s = f"({lo}{wide})" if lo < 0 else f"{lo}{wide}"
            self.result("C", t, shape, f"{t}(clamp({wide}({a}) {rng.choice(['+', '-', '*'])} {wide}({b}), {lo_s}, {hi}{wide}))")
        else:
            self.result("C", t, shape, f"(({a} {rng.choice(['<<', '>>'])} {rng.choice([1, 3, bits_t - 1])}{t}) {rng.choice(['+', '|'])} {b})")


def run_one(dspc, text, target, seed, timeout):
    """'ok', 'rejected', 'mismatch' or 'crash', and the evidence."""
    with tempfile.TemporaryDirectory(prefix="difftest-") as d:
        path = os.path.join(d, "case.dsp")
        with open(path, "w") as f:
            f.write(text)
        cmd = [dspc, "run", path, f"--target={target}", "--random-inputs", f"--seed={seed}", "--check",
               "--json", "--json-max-values=0", f"--timeout={timeout}"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            return "crash", "timeout"
        except OSError as e:
            return "crash", f"could not run {dspc}: {e}"
        err = p.stderr.strip()
        if p.returncode < 0 or p.returncode > 2 or "internal error" in err:
            return "crash", f"exit {p.returncode}: {err[-2000:]}"
        try:
            report = json.loads(p.stdout)
        except ValueError:
            if p.returncode == 1 and re.search(r":\d+:\d+: error: ", err):
                return "rejected", err.splitlines()[0]
            return "crash", f"exit {p.returncode}, no JSON: {err[-2000:]}"
        if report.get("status") == "ok":
            return "ok", ""
        if report.get("status") == "mismatch":
            return "mismatch", err[-2000:]
        first = (err.splitlines() or [""])[0]
        if re.search(r":\d+:\d+: error: ", first):
            return "rejected", first
        return "crash", f"status {report.get('status')}: {err[-2000:]}"


def check_case(args, k):
    case = Case(args.seed, k)
    text = case.text()
    results = {}
    for target in args.targets:
        kind, why = run_one(args.dspc, text, target, k, args.timeout)
        results[target] = (kind, why)
        if kind == "rejected":
            break
    return k, text, results


def shrink(args, case, target, kind):
    """Greedy: drop schedule lines, then stages no result needs, then replace expressions by
    one of their loads, while the case still fails the same way on `target`."""
    def fails(schedule, stages):
        text = case.text(schedule, stages)
        return run_one(args.dspc, text, target, case.k, args.timeout)[0] == kind
    schedule, stages = list(case.schedule), list(case.stages)
    changed = True
    while changed:
        changed = False
        for i in range(len(schedule)):
            trial = schedule[:i] + schedule[i + 1:]
            if fails(trial, stages):
                schedule, changed = trial, True
                break
        for i, st in enumerate(stages):
            if st.is_result and sum(s.is_result for s in stages) == 1:
                continue
            if any(o.reads(st.name) for o in stages if o is not st):
                continue
            trial_st = stages[:i] + stages[i + 1:]
            trial_sched = [l for l in schedule if not l.startswith(st.name + ".") and f"({st.name}," not in l]
            if fails(trial_sched, trial_st):
                stages, schedule, changed = trial_st, trial_sched, True
                break
        for i, st in enumerate(stages):
            loads = re.findall(r"\b[A-Z]\[[^\[\]]*\]", st.expr)
            for leaf in loads[:4]:
                simple = leaf if leaf.startswith(tuple("ABD")) or True else leaf
                trial_expr = f"{st.dtype}({simple})"
                if trial_expr == st.expr or len(trial_expr) >= len(st.expr):
                    continue
                trial = stages[:i] + [Stage(st.name, st.dtype, st.shape, trial_expr, st.is_result, st.vars)] + stages[i + 1:]
                if fails(schedule, trial):
                    stages, changed = trial, True
                    break
            if changed:
                break
    return case.text(schedule, stages)


# What `--kinds` requires of a sample (a few hundred cases): each kind, and these features.
KIND_FEATURES = (["reduce-len-1", "reduce-len-mult128", "reduce-len-nondiv128", "reduce-len-over1024",
                  "reduce-sum", "reduce-min", "reduce-max", "reduce-columns", "reduce-two-axes",
                  "reduce-of-stage", "reduce-two-offsets", "reduce-absdiff",
                  "dot-i8xi8", "dot-u8xi8", "dot-u8xu8", "dot-rows", "dot-gemv", "dot-abt", "dot-matmul",
                  "dot-fir", "transpose-vec", "transpose-novec", "transpose-stage",
                  "stride-2", "stride-3", "stride-4", "interleave-planes", "interleave-planes-x",
                  "interleave-deplanes", "interleave-upscale"]
                 + [f"width-{t}" for t in INTS])


def check_kinds(args, ks):
    kinds, tags = {}, {}
    for k in ks:
        case = Case(args.seed, k)
        kinds[case.kind] = kinds.get(case.kind, 0) + 1
        for t in case.tags:
            tags[t] = tags.get(t, 0) + 1
        text = case.text()
        for m in re.finditer(r"\b([A-Z])\[", text):  # every read names a declared tensor
            if m.group(1) not in [t.name for t in case.inputs] + [s.name for s in case.stages]:
                print(f"case {k}: reads undeclared {m.group(1)}:\n{text}")
                return 1
    for kind in ["random"] + KINDS:
        print(f"kind {kind}: {kinds.get(kind, 0)}")
    for t in sorted(tags):
        print(f"  {t}: {tags[t]}")
    missing = [k for k in KINDS if k not in kinds] + [t for t in KIND_FEATURES if t not in tags]
    # The first two cases of each kind must compile and agree with the interpreter on the host
    # (a kind dspc rejects would test nothing).
    bad = 0
    for kind in KINDS:
        for k in [k for k in ks if Case(args.seed, k).kind == kind][:2]:
            result, why = run_one(args.dspc, Case(args.seed, k).text(), "host", k, args.timeout)
            if result != "ok":
                print(f"case {k} ({kind}): {result} on host: {why[:500]}")
                bad += 1
    share = 1 - kinds.get("random", 0) / len(ks)
    print(f"difftest --kinds: {len(ks)} cases, {share:.0%} of the new kinds, missing: {', '.join(missing) or 'none'}")
    return 1 if bad or missing or not (KIND_SHARE - 0.1 <= share <= KIND_SHARE + 0.1) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0, help="first case number")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--only", type=int, help="run case K only")
    ap.add_argument("--print", action="store_true", help="print the cases instead of running them")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--out-dir", default="difftest-failures")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--only-kinds", metavar="K,K", help="run only the cases of these kinds (random, "
                    + ", ".join(KINDS) + "); the others are skipped, uncounted")
    ap.add_argument("--kinds", action="store_true",
                    help="generate the cases without running them, count their kinds and features, and "
                         "fail unless every kind and feature of KIND_FEATURES appears and the kinds' share is "
                         "near KIND_SHARE")
    ap.add_argument("--progress", type=int, default=0, metavar="N", help="print the counts every N cases")
    args = ap.parse_args()
    args.targets = args.targets.split(",")
    ks = [args.only] if args.only is not None else list(range(args.start, args.start + args.count))
    if args.only_kinds:
        wanted = args.only_kinds.split(",")
        ks = [k for k in ks if Case(args.seed, k).kind in wanted]
    if args.print:
        for k in ks:
            case = Case(args.seed, k)
            print(f"# case {k} (seed {args.seed}, kind {case.kind})\n{case.text()}")
        return 0
    if args.kinds:
        return check_kinds(args, ks)
    counts = {"ok": 0, "rejected": 0, "mismatch": 0, "crash": 0}
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for done, (k, text, results) in enumerate(pool.map(lambda k: check_case(args, k), ks), 1):
            kinds = [r[0] for r in results.values()]
            worst = next((w for w in ["crash", "mismatch", "rejected"] if w in kinds), "ok")
            counts[worst] += 1
            if worst == "rejected" and args.only is not None:
                print(next(r[1] for r in results.values() if r[0] == "rejected"))
            if worst in ("crash", "mismatch"):
                failures.append((k, results))
                target = next(t for t, r in results.items() if r[0] == worst)
                print(f"case {k}: {worst} on {target}: {results[target][1][:500]}", flush=True)
            if args.progress and done % args.progress == 0:
                print(f"difftest: {done}/{len(ks)} cases, {counts['ok']} ok, {counts['rejected']} rejected, "
                      f"{len(failures)} failed so far", flush=True)
    os.makedirs(args.out_dir, exist_ok=True) if failures else None
    for k, results in failures:
        case = Case(args.seed, k)
        target, (kind, why) = next((t, r) for t, r in results.items() if r[0] in ("crash", "mismatch"))
        small = case.text() if args.no_shrink else shrink(args, case, target, kind)
        path = os.path.join(args.out_dir, f"case{k}-seed{args.seed}.dsp")
        with open(path, "w") as f:
            f.write(f"# difftest case {k} of seed {args.seed}: {kind} on {target}\n")
            f.write(f"# E2E-RUN: seed{k} --seed={k}\n" + small)
        print(f"saved {path} (dspc run {path} --target={target} --random-inputs --seed={k} --check)")
    print(f"difftest: {len(ks)} cases, {counts['ok']} ok, {counts['rejected']} rejected, "
          f"{counts['mismatch']} mismatches, {counts['crash']} crashes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
