#!/usr/bin/env python3
"""Fuzzes the dspc compiler: no input may crash it, hang it, or get an unlocated error.

  python3 tools/fuzz-dspc.py --dspc build/dspc --count 10000 --seed 1 [--jobs 2]

Seeds are the programs in the repository (examples/*.dsp, tests/golden/**/*.dsp|*.tir,
tests/e2e/**/*.dsp) with their RUN/CHECK comment lines removed. Each input is a seed with
one or two "gentle" mutations that often keep it valid (a dtype, operator, number or
extent replaced consistently), or one to four random mutations (byte flips, deletions, token-level deletions / duplications /
swaps / insertions of the language's vocabulary, splicing with another seed, truncation,
line shuffles, huge numbers and extents, deep nesting, long operator chains, random bytes),
or occasionally pure random bytes. Input k depends only on (--seed, k), so a run is
reproducible and `--only K` replays one input.

Each input runs as `dspc FILE --emit=tir -o -` (a fraction with --emit=llvm, a fraction with
--print-after-all --verify-each, and with --obj-fraction some with --emit=obj for a random
target, which exercises LLVM's backends) with a per-run timeout (--timeout, default 5 s;
--obj-timeout for --emit=obj, default 60 s). A run FAILS if:
  - it is killed by a signal (crash), or exits with a code other than 0 and 1;
  - it takes longer than the timeout (hang);
  - it exits 1 with nothing on stderr, or its first stderr line is neither
    `FILE:LINE:COL: error: ...` nor `dspc: error: ...` (bad diagnostic);
  - it reports an internal error (a compiler bug surfaced as a message).
Failing inputs are saved to --out-dir (input, command, stderr). The last line is a summary:
  fuzz: N inputs, N ok, N rejected with a located error, N rejected with a dspc: error,
        N crashes, N hangs, N bad diagnostics
The exit code is 1 if any run failed.
"""
import argparse
import concurrent.futures
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

VOCAB = (
    "func schedule set_scope sum min max abs clamp select prim_func for in range vectorized "
    "unrolled parallel let if else allocate decl_buffer scope call_extern throw_last_error "
    "isnullptr evaluate handle true false i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 bool "
    "A B C T i j k x y r s A_buf B_buf local.vtcm global.vtcm global "
    "( ) [ ] { } , : ; . = -> + - * / % << >> < <= > >= == != && || ! ~ & | ^ # // /* */ "
    "0 1 -1 2 7 127 128 255 256 2048 65535 2147483647 2147483648 4294967295 4294967296 "
    "9223372036854775807 9223372036854775808 18446744073709551615 18446744073709551616 "
    "0.0 1.5 -0.0 1e30 1e400 nan inf 5i8 300i8 200u8 1.5f32 2048u32 0x10 1_000 "
    '"local.vtcm" "global" "nonsense" "HexagonBackendAllocateVTCM" \\ \\n \\t'
).split()
HUGE = ["99999999999999999999999999999999", "2147483648", "-2147483649", "4294967296",
        "9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e400", "-1e400",
        "1.7976931348623157e309", "0", "-1", "-2147483648", "00000000000000000000000001",
        "340282366920938463463374607431768211456", "0.000000000000000000000000000001",
        "123456789012345678901234567890.5", "1e-400", "3.4e39"]
TOKEN_RE = re.compile(r'\s+|"[^"\n]*"?|[A-Za-z_][A-Za-z0-9_.]*|\d[\w.]*|->|<<|>>|<=|>=|==|!=|&&|\|\||//|.', re.S)
LOCATED = re.compile(r"^.+:\d+:\d+: error: \S")
DSPC_ERROR = re.compile(r"^dspc: error: \S")
# Internal errors are anchored at the start of a line: a located diagnostic echoes the source
# line, and seeds (golden tests) talk about internal errors in their comments.
INTERNAL = re.compile(r"^dspc: internal error.*|^\S+: error: internal error.*|Assertion `.*' failed.*|LLVM ERROR:.*|"
                      r"PLEASE submit a bug report.*|terminate called.*|Stack dump:.*", re.M)
DIRECTIVE = re.compile(r"^\s*(//|#)\s*[A-Z][A-Z0-9_-]*:")


def load_seeds(source_dir):
    pats = ["examples/*.dsp", "tests/golden/**/*.dsp", "tests/golden/**/*.tir", "tests/e2e/**/*.dsp"]
    paths = sorted({p for pat in pats for p in glob.glob(os.path.join(source_dir, pat), recursive=True)})
    seeds = []
    for p in paths:
        with open(p, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        kept = "\n".join(line for line in text.split("\n") if not DIRECTIVE.match(line)).strip() + "\n"
        if kept.strip():
            seeds.append(kept.encode())
    return seeds


def tokens(data):
    return TOKEN_RE.findall(data.decode("utf-8", "replace"))


def join(toks):
    return "".join(toks).encode("utf-8", "replace")


# ------------------------------------------------------------------------- mutations

def m_byte_flip(rng, data, seeds):
    if not data:
        return bytes([rng.randrange(256)])
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        k = rng.randrange(len(b))
        b[k] = b[k] ^ (1 << rng.randrange(8)) if rng.random() < 0.5 else rng.randrange(256)
    return bytes(b)


def m_delete_bytes(rng, data, seeds):
    if len(data) < 2:
        return data
    a = rng.randrange(len(data))
    return data[:a] + data[a + rng.randint(1, min(64, len(data) - a)):]


def m_truncate(rng, data, seeds):
    return data[:rng.randrange(len(data) + 1)]


def m_token_delete(rng, data, seeds):
    t = tokens(data)
    if not t:
        return data
    a = rng.randrange(len(t))
    del t[a:a + rng.randint(1, 4)]
    return join(t)


def m_token_duplicate(rng, data, seeds):
    t = tokens(data)
    if not t:
        return data
    a = rng.randrange(len(t))
    b = min(len(t), a + rng.randint(1, 12))
    return join(t[:b] + t[a:b] * rng.randint(1, 3) + t[b:])


def m_token_swap(rng, data, seeds):
    t = tokens(data)
    if len(t) < 2:
        return data
    for _ in range(rng.randint(1, 3)):
        a, b = rng.randrange(len(t)), rng.randrange(len(t))
        t[a], t[b] = t[b], t[a]
    return join(t)


def m_token_insert(rng, data, seeds):
    t = tokens(data)
    for _ in range(rng.randint(1, 4)):
        t.insert(rng.randrange(len(t) + 1), rng.choice(VOCAB) + rng.choice(["", " "]))
    return join(t)


def m_token_replace(rng, data, seeds):
    t = tokens(data)
    if not t:
        return data
    for _ in range(rng.randint(1, 3)):
        t[rng.randrange(len(t))] = rng.choice(VOCAB)
    return join(t)


def m_huge_number(rng, data, seeds):
    t = tokens(data)
    nums = [k for k, x in enumerate(t) if x[:1].isdigit()]
    if not nums:
        return m_token_insert(rng, data, seeds)
    for _ in range(rng.randint(1, 3)):
        t[rng.choice(nums)] = rng.choice(HUGE)
    return join(t)


def m_splice(rng, data, seeds):
    other = rng.choice(seeds)
    if rng.random() < 0.5:
        a, b = tokens(data), tokens(other)
        return join(a[:rng.randrange(len(a) + 1)] + b[rng.randrange(len(b) + 1):])
    a, b = data.split(b"\n"), other.split(b"\n")
    return b"\n".join(a[:rng.randrange(len(a) + 1)] + b[rng.randrange(len(b) + 1):])


def m_lines(rng, data, seeds):
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    op = rng.randrange(3)
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    if op == 0:
        lines[a], lines[b] = lines[b], lines[a]
    elif op == 1:
        del lines[a]
    else:
        lines.insert(a, lines[b])
    return b"\n".join(lines)


def m_deep_nesting(rng, data, seeds):
    t = tokens(data)
    spots = [k for k, x in enumerate(t) if re.match(r"[A-Za-z_]\w*$|\d", x)] or [0]
    k = rng.choice(spots)
    target = t[k] if t else "A"
    n = rng.choice([50, 500, 5000, 50000, 200000])
    kind = rng.randrange(7)
    if kind == 0:
        new = "(" * n + target + ")" * n
    elif kind == 1:
        new = rng.choice(["-", "!", "~", "- "]) * n + target
    elif kind == 2:
        f = rng.choice(["abs", "i32", "u8", "f32", "bool"])
        new = (f + "(") * n + target + ")" * n
    elif kind == 3:
        op = rng.choice(["+", "*", "<<", "&&", "-", "/", "%", "=="])
        new = (" " + op + " ").join([target] * n)
    elif kind == 4:
        m = min(n, 2000)
        new = "sum(" * m + target + "".join(f", k{q}: 2)" for q in range(m))
    elif kind == 5:
        m = min(n, 5000)
        new = "select(" * m + target + ", 1, 2)" * m
    else:
        new = target + "[" * n + "i" + "]" * n
    if not t:
        return new.encode()
    t[k] = new
    return join(t)


def m_many_stages(rng, data, seeds):
    n = rng.choice([100, 1000, 10000])
    body = "".join(f"  T{q}[i: 4] = {'A[i]' if q == 0 else f'T{q - 1}[i]'} + 1\n" for q in range(n))
    if rng.random() < 0.3:
        body = "".join(f"  T{q}[i: 4] = A[i]\n" for q in range(n))
        body += "  schedule {\n" + "".join(f'    T{q}.set_scope("local.vtcm")\n' for q in range(n)) + "  }\n"
        return (f"func many(A: i8[4]) -> (C: i8[4]) {{\n{body}  C[i] = A[i]\n}}\n").encode()
    return (f"func many(A: i8[4]) -> (C: i8[4]) {{\n{body}  C[i] = T{n - 1}[i]\n}}\n").encode()


def m_many_funcs(rng, data, seeds):
    return data * rng.choice([2, 50, 500])


def m_huge_extent(rng, data, seeds):
    t = tokens(data)
    spots = [k for k in range(len(t) - 1) if t[k] == "[" or (t[k] == ":" and k + 2 < len(t))]
    if not spots:
        return m_huge_number(rng, data, seeds)
    k = rng.choice(spots)
    for j in range(k + 1, min(len(t), k + 4)):
        if t[j][:1].isdigit():
            t[j] = rng.choice(["0", "4294967296", "2147483647", "2147483648", "1000000000000",
                               "99999999999999999999", "65536", "1048576"])
            break
    return join(t)


def m_random_insert(rng, data, seeds):
    k = rng.randrange(len(data) + 1)
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    if rng.random() < 0.5:
        junk = rng.choice([b"\x00", b"\xff\xfe", "\u00e9".encode(), "\u2028".encode(), b"\r", b"\t",
                           b"\x1b[31m", "\U0001F600".encode(), b"\\", b'"', b"/*", b"#"])
    return data[:k] + junk + data[k:]


DTYPES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "bool", "f16"]
OP_CLASSES = [["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||"],
              ["<", "<=", ">", ">=", "==", "!="], ["min", "max", "sum", "abs", "clamp", "select"]]


def m_gentle(rng, data, seeds):
    """Small changes that often keep a program valid, so later passes and codegen get inputs too."""
    t = tokens(data)
    if not t:
        return data
    kind = rng.randrange(4)
    if kind == 0:  # every occurrence of one dtype becomes another
        present = [d for d in DTYPES if d in t]
        if present:
            old, new = rng.choice(present), rng.choice(DTYPES)
            t = [new if x == old else x for x in t]
    elif kind == 1:  # an operator or call becomes another of its class
        spots = [(k, c) for k, x in enumerate(t) for c in OP_CLASSES if x in c]
        if spots:
            k, c = rng.choice(spots)
            t[k] = rng.choice(c)
    elif kind == 2:  # a number becomes another small number
        spots = [k for k, x in enumerate(t) if x.isdigit()]
        if spots:
            t[rng.choice(spots)] = str(rng.choice([0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256]))
    else:  # every occurrence of one extent or constant becomes another
        nums = sorted({x for x in t if x.isdigit()})
        if nums:
            old, new = rng.choice(nums), str(rng.choice([1, 2, 3, 5, 64, 128, 129, 1000, 4096]))
            t = [new if x == old else x for x in t]
    return join(t)


MUTATIONS = [m_byte_flip, m_delete_bytes, m_truncate, m_token_delete, m_token_duplicate,
             m_token_swap, m_token_insert, m_token_replace, m_huge_number, m_splice, m_lines,
             m_deep_nesting, m_huge_extent, m_random_insert]
RARE = [m_many_stages, m_many_funcs]


def make_input(seed, k, seeds):
    rng = random.Random(f"dspc-fuzz:{seed}:{k}")
    roll = rng.random()
    if roll < 0.03:
        n = rng.randint(0, 400)
        if rng.random() < 0.5:
            return bytes(rng.randrange(256) for _ in range(n))
        return join([rng.choice(VOCAB) + rng.choice([" ", "", "\n"]) for _ in range(n // 3)])
    data = rng.choice(seeds)
    if roll < 0.05:
        return rng.choice(RARE)(rng, data, seeds)
    if roll < 0.40:
        for _ in range(rng.randint(1, 2)):
            data = m_gentle(rng, data, seeds)
        return data
    for _ in range(rng.randint(1, 4)):
        data = rng.choice(MUTATIONS)(rng, data, seeds)
    return data


def mode_args(seed, k, llvm_fraction, obj_fraction):
    rng = random.Random(f"dspc-fuzz-mode:{seed}:{k}")
    r = rng.random()
    if rng.random() < obj_fraction:
        target = rng.choice(["hexagon-v68", "hexagon-v68", "hexagon-v65", "hexagon-v73", "host"])
        return ["--emit=obj", "-o", "/dev/null", f"--target={target}"]
    if r < llvm_fraction:
        return ["--emit=llvm", "-o", "-"]
    if r < llvm_fraction + 0.05:
        return ["--emit=tir", "-o", "-", "--print-after-all", "--verify-each"]
    return ["--emit=tir", "-o", "-"]


# ------------------------------------------------------------------------- running

TRACE = "// ----- TIR after "


def without_traces(text):
    """stderr without the --print-after-all traces that precede the diagnostics: the last traced
    module ends with a closing brace in column 0."""
    if not text.startswith(TRACE):
        return text
    tail = text[text.rfind(TRACE):].split("\n")
    ends = [i for i, line in enumerate(tail) if line == "}"]
    return "\n".join(tail[ends[-1] + 1:]) if ends else ""


def classify(returncode, stderr, timed_out):
    """Returns (category, failure reason or None)."""
    if timed_out:
        return "hang", "timed out"
    if returncode < 0:
        return "crash", f"killed by signal {signal.Signals(-returncode).name}"
    if returncode not in (0, 1):
        return "crash", f"exit code {returncode}"
    text = stderr.decode("utf-8", "replace")
    if INTERNAL.search(text):
        return "crash", "internal error reported: " + INTERNAL.search(text).group(0)[:200]
    if returncode == 0:
        return "ok", None
    text = without_traces(text)
    if not text.strip():
        return "bad-diagnostic", "exit 1 with nothing on stderr"
    first = text.split("\n", 1)[0]
    if LOCATED.match(first):
        return "located", None
    if DSPC_ERROR.match(first):
        return "dspc-error", None
    return "bad-diagnostic", f"first stderr line is not a located or dspc: error: {first[:200]!r}"


def run_one(dspc, path, args, timeout):
    cmd = [dspc, path] + args
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             start_new_session=True)
    except OSError as e:
        return cmd, 127, str(e).encode(), False
    try:
        _, err = p.communicate(timeout=timeout)
        return cmd, p.returncode, err, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        return cmd, p.returncode, err, True


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--llvm-fraction", type=float, default=0.08, help="share of runs with --emit=llvm")
    ap.add_argument("--obj-fraction", type=float, default=0.0,
                    help="share of runs with --emit=obj (the LLVM backend; slow, so 0 by default)")
    ap.add_argument("--obj-timeout", type=float, default=60.0, help="timeout of --emit=obj runs")
    ap.add_argument("--source-dir", default=os.path.dirname(here))
    ap.add_argument("--out-dir", default="fuzz-failures")
    ap.add_argument("--only", type=int, help="run only input number K (to replay a failure)")
    ap.add_argument("--save-inputs", action="store_true", help="keep every generated input in --out-dir")
    a = ap.parse_args()

    seeds = load_seeds(a.source_dir)
    if not seeds:
        print(f"fuzz: no seed programs under {a.source_dir}", file=sys.stderr)
        return 2
    indices = [a.only] if a.only is not None else list(range(a.count))
    work = tempfile.mkdtemp(prefix="dspc-fuzz-")
    counts = {"ok": 0, "located": 0, "dspc-error": 0, "crash": 0, "hang": 0, "bad-diagnostic": 0}
    failures = []
    start = time.time()

    def job(k):
        data = make_input(a.seed, k, seeds)
        path = os.path.join(work, f"input-{k}.dsp")
        with open(path, "wb") as f:
            f.write(data)
        t0 = time.time()
        args = mode_args(a.seed, k, a.llvm_fraction, a.obj_fraction)
        timeout = a.obj_timeout if "--emit=obj" in args else a.timeout
        cmd, rc, err, timed_out = run_one(a.dspc, path, args, timeout)
        cat, why = classify(rc, err, timed_out)
        if a.save_inputs or why:
            os.makedirs(a.out_dir, exist_ok=True)
            shutil.copy(path, os.path.join(a.out_dir, f"{cat}-{k}.dsp"))
        os.remove(path)
        return k, cmd, rc, err, cat, why, time.time() - t0

    print(f"fuzz: {len(seeds)} seed programs, {len(indices)} inputs, seed {a.seed}, {a.jobs} jobs", flush=True)
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for k, cmd, rc, err, cat, why, secs in pool.map(job, indices):
            counts[cat] += 1
            done += 1
            if why:
                saved = os.path.join(os.path.abspath(a.out_dir), f"{cat}-{k}.dsp")
                with open(saved[:-4] + ".txt", "w") as f:
                    f.write(f"input {k} (seed {a.seed}): {why}\ncommand: {' '.join(cmd[:1] + [saved] + cmd[2:])}\n"
                            f"exit: {rc}, {secs:.1f} s\n--- stderr ---\n{err.decode('utf-8', 'replace')[:20000]}\n")
                failures.append((k, cat, why, saved))
                print(f"FAIL input {k}: {cat}: {why}\n  saved: {saved}\n  replay: {' '.join(cmd[:1] + [saved] + cmd[2:])}",
                      flush=True)
            if done % 1000 == 0:
                print(f"fuzz: {done}/{len(indices)} ({time.time() - start:.0f} s)", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f"fuzz: {len(indices)} inputs, {counts['ok']} ok, {counts['located']} rejected with a located error, "
          f"{counts['dspc-error']} rejected with a dspc: error, {counts['crash']} crashes, {counts['hang']} hangs, "
          f"{counts['bad-diagnostic']} bad diagnostics ({time.time() - start:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
