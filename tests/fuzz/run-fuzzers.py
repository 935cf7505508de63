#!/usr/bin/env python3
"""Runs dspc's libFuzzer targets (tests/fuzz/) for a fixed time each, with seed corpora from the tree.

  python3 tests/fuzz/run-fuzzers.py --fuzz-build build-fuzz [--seconds 20] [--only dsp,npy]
                                    [--seed-build build] [--timeout S] [--runs N] [--max-seeds N]
                                    [--jobs N]

--runs N stops each target after N executions; given without --seconds, there is no time limit
(a run of 10 million executions: --runs 10000000).

--jobs N runs N targets at a time (each is one process; `bash setup.sh test-fuzz` runs two),
and the seed build's dspc on N files at a time for the TIR seeds.

--fuzz-build is a build tree configured with -DDSPC_FUZZ=ON: `bash setup.sh test-fuzz` uses the
sanitizer tree, build-sanitize (edge coverage only); a tree of its own with DSPC_FUZZ alone has
the full instrumentation for long runs (docs/testing.md "Fuzzing"). --seed-build is a normal
build tree (default build/): its dspc prints the TIR seeds, and its test outputs give .npy
files and shared modules; without it those seeds are left out. For each target NAME, the run is

  nice -n 10 FUZZ_BUILD/tests/fuzz/fuzz_NAME -max_total_time=SECONDS -timeout=T \\
      -rss_limit_mb=2048 -print_final_stats=1 [-max_len=8192 -dict=tests/fuzz/dsp.dict] \\
      -artifact_prefix=FUZZ_BUILD/fuzz/artifacts/NAME/ \\
      FUZZ_BUILD/fuzz/corpus/NAME FUZZ_BUILD/fuzz/seeds/NAME tests/fuzz/regressions/NAME

The corpus folder keeps what a run found for the next run. Seeds:
  dsp       examples/, tests/, bench/ .dsp files
  tir       every .tir file, and each .dsp seed's TIR after every pass (dspc --print-after-all)
  pipeline  the dsp seeds and the final TIR of each
  npy       .npy files the tests wrote (under the seed build) and one of each dtype, rank 0-3
  protocol  request sequences (hello, alloc, load, lookup, call, free, close, shutdown, ...)
  elf       the shared modules the tests and examples built (under the seed build)
  elf32     elf's seeds and regressions (the loader built -m32, run under qemu-i386)
  reply     well-formed replies to each operation, and a few malformed ones
A crash, leak, timeout or UB report stops that target; its input is saved under artifacts/.
The last lines are a table: target, seconds, executions, executions per second, corpus size,
result. The exit code is 1 if any target found something, 2 if a run was interrupted (SIGINT:
libFuzzer then prints its stats and exits 72; the table says "interrupted, no finding"), else 0.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import time

TARGETS = ["dsp", "tir", "pipeline", "npy", "protocol", "elf", "elf32", "reply", "onnx"]
# Targets built for another architecture, run under an emulator (tests/fuzz/CMakeLists.txt),
# with another target's seeds and regressions.
LAUNCHERS = {"elf32": ["qemu-i386"]}
SEEDS_OF = {"elf32": "elf"}
# Under qemu-i386, libFuzzer's 32-bit readdir fails on ext4's 64-bit directory offsets
# (EOVERFLOW): such a target's seeds are named one by one (-seed_inputs).
# Per-input time limits (seconds): the pipeline runs LLVM's -O2 pipeline on each input.
TIMEOUTS = {"pipeline": 60}
DEFAULT_TIMEOUT = 20
# Longest inputs libFuzzer makes of the text targets (seeds longer than this are cut): the
# parsers' cost grows with the text, and their bugs show on short inputs.
MAX_LEN = {"dsp": 8192, "tir": 8192, "pipeline": 8192}
# libFuzzer dictionaries (tests/fuzz/): the language's vocabulary.
DICTIONARIES = {"dsp": "dsp.dict", "tir": "dsp.dict", "pipeline": "dsp.dict"}
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def dsp_files():
    files = []
    for pattern in ("examples/**/*.dsp", "tests/**/*.dsp", "bench/**/*.dsp", "runtime-support/**/*.dsp"):
        files += glob.glob(os.path.join(SOURCE, pattern), recursive=True)
    return sorted(set(files))


def tir_of(dspc, path, all_passes):
    args = [dspc, path, "--emit=tir", "-o", "-"]
    if all_passes:
        args.insert(2, "--print-after-all")
    try:
        r = subprocess.run(args, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return []
    if r.returncode != 0:
        return []
    if not all_passes:
        return [r.stdout.decode("utf-8", "replace")]
    text = r.stderr.decode("utf-8", "replace")  # the traces go to stderr
    return [part for part in re.split(r"^// ----- TIR after [\w-]+ -----\n", text, flags=re.M) if part.strip()]


def npy(descr, shape, data, version=1):
    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(" ") + ")" if len(shape) != 1 else f"({shape[0]},)"
    if not shape:
        shape_text = "()"
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}"
    pre = 10 if version == 1 else 12
    pad = (64 - (pre + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + data


def request(op, payload=b"", seq=0):
    return struct.pack("<IHHII", 0x51435044, 1, op, 16 + len(payload), seq) + payload


def record(req):
    return b"\x00" + struct.pack("<H", len(req)) + req


def arena_write(offset, data):
    return b"\x01" + struct.pack("<IH", offset, len(data)) + data


def protocol_seeds():
    heap = 131072
    arg = lambda off, bits=8, shape=(4, 8), type_code=1: struct.pack(
        "<QBBHI", off, type_code, bits, 0, len(shape)) + b"".join(struct.pack("<q", e) for e in shape) + b"\0" * 8 * (8 - len(shape))
    call = lambda fn, args: struct.pack("<II", fn, len(args)) + b"".join(args)
    lookup = lambda module, name: struct.pack("<II", module, len(name)) + name
    module = 1 * 16  # the first LOAD's handle: generation 1, slot 0
    seeds = {
        "hello": record(request(1, struct.pack("<I", 1))),
        "hello-bad-version": record(request(1, struct.pack("<I", 7))),
        "alloc-free": record(request(3, struct.pack("<QII", 4096, 128, 0))) + record(request(4, struct.pack("<Q", heap)))
        + record(request(3, struct.pack("<QII", 2048, 2048, 1))) + record(request(4, struct.pack("<Q", 65536))),
        "load-lookup-call": arena_write(heap, b"FAKE")
        + record(request(3, struct.pack("<QII", 4096, 128, 0)))
        + record(request(5, struct.pack("<QQ", heap, 4)))
        + record(request(7, lookup(module, b"add")))
        + record(request(8, call(module * 4096, [arg(heap + 256), arg(heap + 512), arg(heap + 768)])))
        + record(request(8, call(module * 4096 + 1, [arg(heap + 256), arg(heap + 512), arg(heap + 768)])))
        + record(request(8, call(module * 4096 + 3, [arg(heap + 256), arg(heap + 512), arg(heap + 768)])))
        + record(request(7, lookup(module, b"broken")))
        + record(request(8, call(module * 4096 + 2, [arg(heap + 256)])))
        + record(request(9)) + record(request(6, struct.pack("<I", module))) + record(request(2)),
        "bad-load": arena_write(heap, b"\x7fELF") + record(request(5, struct.pack("<QQ", heap, 64))) + record(request(9)),
        "sync-copy": record(request(11, struct.pack("<QQ", heap, 64))) + record(request(11, struct.pack("<QQ", 0, 64))),
        "test-bad-reply": record(request(100, struct.pack("<I", 1))) + record(request(100, struct.pack("<I", 2))),
        "shutdown": record(request(10)) + record(request(1, struct.pack("<I", 1))),
        "raw-bad-magic": b"\x80" + struct.pack("<H", 16) + b"\0" * 16,
        "unknown-op": record(request(55)),
    }
    return {name: data for name, data in seeds.items()}


def reply(op_index, number, status, payload=b"", error=b"", raw=0):
    """fuzz_reply's input: flags (operation index), the request's number, the reply slot."""
    head = struct.pack("<IHHIIiIII", 0x52435044, 1, 0, 36 + len(payload) + len(error), 7, status,
                       len(payload), len(error), 0)
    return bytes([op_index | raw]) + struct.pack("<I", number) + head + payload + error


def reply_seeds():
    param = lambda name, bits, out, shape: name.ljust(32, b"\0") + struct.pack("<BBBBI", 1, bits, out, len(shape), 0) \
        + b"".join(struct.pack("<q", e) for e in shape) + b"\0" * 8 * (8 - len(shape))
    return {
        "hello": reply(0, 0, 0, struct.pack("<IQQ", 1, 262144, 1 << 20)),
        "alloc": reply(1, 4096, 0, struct.pack("<Q", 131072)),
        "alloc-outside": reply(1, 4096, 0, struct.pack("<Q", (64 << 20) - 100)),
        "alloc-no-memory": reply(1, 4096, 2, b"", b"out of VTCM"),
        "load": reply(2, 0, 0, struct.pack("<I", 16)),
        "lookup": reply(3, 0, 0, struct.pack("<II", 65536, 2) + param(b"A", 8, 0, (4, 8)) + param(b"C", 8, 1, (4, 8))),
        "lookup-short": reply(3, 0, 0, struct.pack("<II", 65536, 3) + param(b"A", 8, 0, (4,))),
        "call": reply(4, 0, 0, struct.pack("<i", 0)),
        "call-batch": reply(5, 3, 0, struct.pack("<Ii", 3, 0)),
        "call-batch-failed": reply(5, 3, 0, struct.pack("<Ii", 1, -5), b"k2: bad argument"),
        "last-error": reply(6, 0, 0, b"", b"VTCM allocation of 8192 bytes failed"),
        "raw-bad-magic": reply(7, 0, 0, raw=0x80)[:5] + b"\0" * 36,
    }


def thin(folder, keep):
    """Keeps `keep` files of the folder, evenly spaced in name order (a short run's seeds)."""
    names = sorted(os.listdir(folder))
    if keep <= 0 or len(names) <= keep:
        return len(names)
    kept = set(names[i * len(names) // keep] for i in range(keep))
    for name in names:
        if name not in kept:
            os.remove(os.path.join(folder, name))
    return keep


def make_seeds(seed_dir, seed_build, targets, max_seeds=0, jobs=1):
    dspc = os.path.join(seed_build, "dspc") if seed_build else None
    have_dspc = dspc and os.access(dspc, os.X_OK)
    if seed_build and not have_dspc:
        print(f"run-fuzzers: no {dspc}: no TIR seeds", flush=True)
    dsps = dsp_files()
    for t in targets:
        shutil.rmtree(os.path.join(seed_dir, t), ignore_errors=True)
    counts = {}

    def add(t, name, data):
        if t in targets:
            write(os.path.join(seed_dir, t, name), data)
            counts[t] = counts.get(t, 0) + 1

    for i, path in enumerate(dsps):
        data = open(path, "rb").read()
        add("dsp", f"{i:04d}-{os.path.basename(path)}", data)
        add("pipeline", f"{i:04d}-{os.path.basename(path)}", data)
    for i, path in enumerate(sorted(glob.glob(os.path.join(SOURCE, "tests/**/*.tir"), recursive=True))):
        data = open(path, "rb").read()
        add("tir", f"file-{i:04d}-{os.path.basename(path)}", data)
        add("pipeline", f"file-{i:04d}-{os.path.basename(path)}", data)
    if have_dspc and ("tir" in targets or "pipeline" in targets):
        # dspc twice per file (every pass's TIR, the final TIR), `jobs` files at a time.
        def tirs(path):
            return (tir_of(dspc, path, True) if "tir" in targets else [],
                    tir_of(dspc, path, False) if "pipeline" in targets else [])
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            for i, (path, (every_pass, final)) in enumerate(zip(dsps, pool.map(tirs, dsps))):
                base = os.path.splitext(os.path.basename(path))[0]
                for k, text in enumerate(every_pass):
                    add("tir", f"{i:04d}-{base}-{k}.tir", text.encode())
                for text in final:
                    add("pipeline", f"{i:04d}-{base}.tir", text.encode())
    if "npy" in targets:
        for descr, size in (("|u1", 1), ("|i1", 1), ("<i2", 2), ("<u2", 2), ("<i4", 4), ("<u4", 4), ("<i8", 8),
                            ("<u8", 8), ("<f2", 2), ("<f4", 4), ("<f8", 8), ("|b1", 1)):
            for shape in ((), (3,), (2, 3), (2, 1, 3), (0, 4)):
                n = 1
                for d in shape:
                    n *= d
                name = descr.replace("<", "le").replace("|", "")
                add("npy", f"gen-{name}-{len(shape)}d-{n}.npy", npy(descr, shape, bytes((7 * k) % 256 for k in range(n * size))))
        add("npy", "gen-v2.npy", npy("<i4", (2,), b"\1\0\0\0\2\0\0\0", version=2))
        add("npy", "gen-v3.npy", npy("<f4", (1,), b"\0\0\x80\x3f", version=3))
        if seed_build:
            for path in sorted(glob.glob(os.path.join(seed_build, "**/*.npy"), recursive=True))[:400]:
                if os.path.getsize(path) <= 1 << 20:
                    add("npy", "build-" + os.path.relpath(path, seed_build).replace("/", "_"), open(path, "rb").read())
    if "onnx" in targets:  # ONNX's node-test models (libonnx-testdata), the small ones
        for path in sorted(glob.glob("/usr/share/libonnx-testdata/data/node/*/model.onnx")):
            if os.path.getsize(path) <= 1 << 16:
                add("onnx", os.path.basename(os.path.dirname(path)) + ".onnx", open(path, "rb").read())
    for name, data in protocol_seeds().items():
        add("protocol", name, data)
    for name, data in reply_seeds().items():
        add("reply", name, data)
    if "elf" in targets and seed_build:
        for path in sorted(glob.glob(os.path.join(seed_build, "**/*.so"), recursive=True)):
            if "CMakeFiles" in path or os.path.getsize(path) > 1 << 20:
                continue
            with open(path, "rb") as f:
                head = f.read(20)
            if head[:4] == b"\x7fELF" and head[18:20] == b"\xa4\x00":  # EM_HEXAGON
                add("elf", os.path.relpath(path, seed_build).replace("/", "_"), open(path, "rb").read())
    if "elf" in targets:
        add("elf", "empty", b"")
        add("elf", "header-only", b"\x7fELF\x01\x01\x01" + b"\0" * 9 + struct.pack("<HHI", 3, 164, 1) + b"\0" * 32)
    for t in counts:
        counts[t] = thin(os.path.join(seed_dir, t), max_seeds)
    return counts


def parse_stats(text):
    stats = {}
    for m in re.finditer(r"^stat::(\w+):\s*(\d+)", text, re.M):
        stats[m.group(1)] = int(m.group(2))
    return stats


def run_target(args, t, fuzz_build, work):
    """Runs one target; returns ((target, seconds, executions, corpus size, result), report)."""
    exe = os.path.join(fuzz_build, "tests", "fuzz", f"fuzz_{t}")
    corpus = os.path.join(work, "corpus", t)
    artifacts = os.path.join(work, "artifacts", t) + "/"
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    timeout = args.timeout or TIMEOUTS.get(t, DEFAULT_TIMEOUT)
    cmd = [] if args.no_nice else ["nice", "-n", "10"]
    cmd += LAUNCHERS.get(t, []) + [exe, f"-max_total_time={args.seconds}", f"-timeout={timeout}", "-rss_limit_mb=2048",
            "-print_final_stats=1", f"-artifact_prefix={artifacts}"]
    if t in MAX_LEN:
        cmd.append(f"-max_len={MAX_LEN[t]}")
    if args.runs >= 0:
        cmd.append(f"-runs={args.runs}")
    dictionary = os.path.join(SOURCE, "tests", "fuzz", DICTIONARIES.get(t, ""))
    if os.path.isfile(dictionary):
        cmd.append(f"-dict={dictionary}")
    inputs = [corpus, os.path.join(work, "seeds", SEEDS_OF.get(t, t))]
    regressions = os.path.join(SOURCE, "tests", "fuzz", "regressions", SEEDS_OF.get(t, t))
    if os.path.isdir(regressions):
        inputs.append(regressions)
    if t in LAUNCHERS:
        files = [os.path.join(d, f) for d in inputs[1:] for f in sorted(os.listdir(d)) if not f.endswith(".expect")]
        inputs = [corpus, "-seed_inputs=" + ",".join(files)]
    cmd += inputs
    print("run-fuzzers: " + " ".join(cmd), flush=True)
    log_path = os.path.join(work, f"{t}.log")
    start = time.time()
    with open(log_path, "w") as log:
        # The whole run's limit: the fuzzing time, the seeds' first pass and one slow input.
        try:
            r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT,
                               timeout=args.seconds + 600 + timeout if args.seconds else None)
            code = r.returncode
        except subprocess.TimeoutExpired:
            code = "hung"
    elapsed = time.time() - start
    text = open(log_path, errors="replace").read()
    stats = parse_stats(text)
    execs = stats.get("number_of_executed_units", 0)
    corpus_size = len(os.listdir(corpus))
    # SIGINT (pkill -INT, Ctrl-C) makes libFuzzer print its stats and exit 72: a run cut
    # short, not a finding, as long as it reported nothing before the interrupt.
    cut_short = (code == 72 and "libFuzzer: run interrupted" in text and "Test unit written" not in text
                 and "ERROR:" not in text)
    result = "ok" if code == 0 else "interrupted, no finding" if cut_short else f"FINDING (exit {code})"
    report = ""
    if code != 0 and not cut_short:
        saved = re.findall(r"(?:Test unit written to|artifact_prefix.*?; Test unit written to) (\S+)", text)
        tail = text.splitlines()[-60:]
        report = (f"run-fuzzers: {t}: {result}; log {log_path}; input {saved[-1] if saved else '?'}\n" +
                  "\n".join("  | " + line for line in tail))
    return (t, elapsed, execs, corpus_size, result), report


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fuzz-build", default=os.path.join(SOURCE, "build-fuzz"))
    ap.add_argument("--seed-build", default=os.path.join(SOURCE, "build"))
    ap.add_argument("--seconds", type=int, default=None,
                    help="time per target (default 20; no limit when --runs is given without it)")
    ap.add_argument("--runs", type=int, default=-1, help="stop a target after this many executions")
    ap.add_argument("--only", default=",".join(TARGETS), help="comma-separated targets")
    ap.add_argument("--max-seeds", type=int, default=0,
                    help="at most this many seeds per target, evenly chosen (default: all)")
    ap.add_argument("--timeout", type=int, default=0, help="per-input limit in seconds (default: 20, pipeline 60)")
    ap.add_argument("--no-nice", action="store_true")
    ap.add_argument("--jobs", type=int, default=1,
                    help="targets run at a time, and dspc's runs for the seeds (default 1)")
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = 0 if args.runs >= 0 else 20  # libFuzzer: -max_total_time=0 is no limit
    if args.seconds < 0 or args.runs < -1:
        ap.error("--seconds and --runs must not be negative")
    targets = [t for t in args.only.split(",") if t]
    for t in targets:
        if t not in TARGETS:
            ap.error(f"unknown target {t!r} (targets: {', '.join(TARGETS)})")
    fuzz_build = os.path.abspath(args.fuzz_build)
    work = os.path.join(fuzz_build, "fuzz")
    seed_build = os.path.abspath(args.seed_build) if args.seed_build and os.path.isdir(args.seed_build) else None
    counts = make_seeds(os.path.join(work, "seeds"), seed_build, targets + [SEEDS_OF[t] for t in targets if t in SEEDS_OF],
                        args.max_seeds, args.jobs)
    print("run-fuzzers: seeds " + ", ".join(f"{t} {counts.get(SEEDS_OF.get(t, t), 0)}" for t in targets), flush=True)

    for t in targets:
        exe = os.path.join(fuzz_build, "tests", "fuzz", f"fuzz_{t}")
        if not os.access(exe, os.X_OK):
            print(f"run-fuzzers: {exe} is missing: build the target dspc_fuzzers in a -DDSPC_FUZZ=ON tree")
            return 2
    # --jobs targets at a time; each row comes back with its report, printed in target order.
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda t: run_target(args, t, fuzz_build, work), targets))
    rows, failed, interrupted = [], False, False
    for row, report in results:
        if report:
            print(report, flush=True)
        result = row[-1]
        if result.startswith("interrupted"):
            interrupted = True
        elif result != "ok":
            failed = True
        rows.append(row)
    print(f"{'target':10} {'seconds':>8} {'execs':>12} {'execs/s':>9} {'corpus':>7}  result")
    for t, elapsed, execs, corpus_size, result in rows:
        print(f"{t:10} {elapsed:8.0f} {execs:12d} {execs / max(elapsed, 1e-9):9.0f} {corpus_size:7d}  {result}")
    return 1 if failed else 2 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
