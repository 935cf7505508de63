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
    casts, select with comparisons and logic, min/max/abs/clamp, sum/min/max reductions,
    and clamped neighbourhood reads of inputs and earlier stages;
  - a random schedule: none (the automatic one) or per stage some of split, tile, reorder,
    vectorize, unroll, parallel, compute_at (and store_at at its loop), compute_inline, set_scope("local.vtcm"),
    cache_read, cache_write, storage_align and prefetch, combined as the README allows.
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
    def __init__(self, name, dtype, shape, expr, is_result):
        self.name, self.dtype, self.shape, self.expr, self.is_result = name, dtype, shape, expr, is_result

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
        self.rng = random.Random(f"{seed}:{k}")
        self.k = k
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
                trial = stages[:i] + [Stage(st.name, st.dtype, st.shape, trial_expr, st.is_result)] + stages[i + 1:]
                if fails(schedule, trial):
                    stages, changed = trial, True
                    break
            if changed:
                break
    return case.text(schedule, stages)


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
    ap.add_argument("--progress", type=int, default=0, metavar="N", help="print the counts every N cases")
    args = ap.parse_args()
    args.targets = args.targets.split(",")
    ks = [args.only] if args.only is not None else list(range(args.start, args.start + args.count))
    if args.print:
        for k in ks:
            print(f"# case {k} (seed {args.seed})\n{Case(args.seed, k).text()}")
        return 0
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
