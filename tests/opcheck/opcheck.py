#!/usr/bin/env python3
"""The HVX op-check suite: does each of Halide's HVX checks become the instruction Halide expects?

Every func in tests/opcheck/*.dsp is one check of Halide 14's simd_op_check_hvx.cpp, written as a
.dsp kernel, with the instruction Halide expects in a comment block just above it:

    # expect: vavg(v*.ub,v*.ub)              Halide's pattern: `*` is any text, spaces are ignored
    # cheaper: vfoo(v*.ub) -- why            zero or more sequences that cost no more, each with its reason
    # halide: u8((u16(u8_1) + u16(u8_2)) / 2)    the check as Halide writes it
    # note: ...                                  anything a reader should know
    func vavg_ub_ub__u8(in_u8: u8[6160]) -> (f: u8[6144]) { ... }

For each file the suite
  1. compiles it once for hexagon-v68 (`dspc FILE --emit=asm`) and looks for the pattern in each
     func's vector loops: the bodies of the loops that hold HVX instructions (the innermost one and
     the loops around it, so that a broadcast hoisted out of the innermost loop into the row loop
     counts), never the straight-line code before and after them. A func whose loops LLVM unrolled
     away is searched whole, as Halide searches every check;
  2. runs every func once on hexagon-v68 and once on the host (a graph that calls all the file's
     funcs, `dspc run --random-inputs --check`), so each result is compared bit for bit with the
     reference interpreter.

A check that does not select its instruction is a miss: the suite measures, and a miss fails
nothing by itself. These fail the suite (exit 1): a func that does not compile, a result that is
not bit-exact (or a run that fails), and a miss of a check listed in expected_passes.txt (the
checks that selected before: a regression). A check that selects and is not listed is reported
as a new pass; `--write-table` adds it to the list (it never removes one: a regression that is
accepted is taken out by hand).

    opcheck.py --dspc build/dspc                       run, print the table, exit 1 on a failure
    opcheck.py --dspc build/dspc --write-table         also write docs/opcheck.md, add new passes
    opcheck.py --table-from RESULTS.json --check-table is docs/opcheck.md up to date?
    opcheck.py --dspc build/dspc --sample 2             every second file only (the default tier's
                                                       sample; the full tier runs them all)
    opcheck.py --self-test --dspc build/dspc           the harness's own tests
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
TABLE = os.path.join(SOURCE_DIR, 'docs', 'opcheck.md')
EXPECTED = os.path.join(HERE, 'expected_passes.txt')
NOT_EXPRESSIBLE = os.path.join(HERE, 'not_expressible.txt')
TARGET = 'hexagon-v68'
RUN_TARGETS = ('hexagon-v68', 'host')
# A device group passes at most 64 tensors across its boundary; a graph stays below that.
MAX_GRAPH_TENSORS = 60
SEED = 1


# ---------------------------------------------------------------------------------------------
# The checks

Check = collections.namedtuple('Check', 'name file expect cheaper halide notes params results')


def parse_signature(text):
    """`func NAME(a: u8[10], b: i16[2, 3]) -> (f: u8[4])` -> (name, [(param, dtype, shape)], [...])."""
    m = re.match(r'func\s+(\w+)\s*\((.*?)\)\s*->\s*\((.*?)\)', text, re.S)
    if not m:
        raise ValueError('not a func signature: ' + text[:80])

    def tensors(s):
        out = []
        for t in re.finditer(r'(\w+)\s*:\s*(\w+)\s*\[([^\]]*)\]', s):
            out.append((t.group(1), t.group(2), tuple(int(d) for d in t.group(3).split(','))))
        return out
    return m.group(1), tensors(m.group(2)), tensors(m.group(3))


def parse_alternative(text, where):
    pattern, sep, reason = text.partition(' -- ')
    if not sep or not pattern.strip() or not reason.strip():
        raise ValueError(f'{where}: a cheaper alternative is "PATTERN -- reason": {text!r}')
    return pattern.strip(), reason.strip()


def parse_checks(path):
    """The checks of one .dsp file, in order."""
    checks = []
    block = []
    rel = os.path.basename(path)
    lines = open(path).read().split('\n')
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith('#'):
            block.append((i + 1, s[1:].strip()))
            continue
        if s.startswith('func '):
            sig = ' '.join(l.strip() for l in lines[i:i + 3])
            name, params, results = parse_signature(sig)
            meta = collections.defaultdict(list)
            for lineno, text in block:
                key, sep, value = text.partition(':')
                if sep and key in ('expect', 'cheaper', 'halide', 'note'):
                    meta[key].append((lineno, value.strip()))
            if len(meta['expect']) != 1:
                raise ValueError(f'{rel}:{i + 1}: func {name} needs exactly one "# expect:" line above it')
            cheaper = [parse_alternative(v, f'{rel}:{n}') for n, v in meta['cheaper']]
            checks.append(Check(name, rel, meta['expect'][0][1], cheaper,
                                ' '.join(v for _, v in meta['halide']),
                                ' '.join(v for _, v in meta['note']), params, results))
        block = [] if not s.startswith('#') else block
    return checks


def parse_not_expressible(path):
    """Halide's checks that .dsp cannot write: blocks of `name:`, `expect:`, `halide:`, `reason:`."""
    out = []
    cur = {}
    for line in open(path).read().split('\n') + ['']:
        s = line.strip()
        if s.startswith('#'):
            continue
        if not s:
            if cur:
                out.append(cur)
                cur = {}
            continue
        key, _, value = s.partition(':')
        cur[key.strip()] = value.strip()
    for c in out:
        missing = {'name', 'expect', 'halide', 'reason'} - set(c)
        if missing:
            raise ValueError(f'{path}: an entry lacks {sorted(missing)}: {c}')
    return out


def suite_files(only=None):
    files = sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith('.dsp'))
    if only:
        files = [f for f in files if os.path.basename(f)[:-4] in only]
    return files


# ---------------------------------------------------------------------------------------------
# Patterns and the asm

def pattern_regex(pattern):
    """Halide's wildcard pattern as a regex over an instruction with its spaces removed."""
    return re.compile('.*'.join(re.escape(part) for part in re.sub(r'\s+', '', pattern).split('*')))


HVX_OPERAND = re.compile(r'\b[vq]\d+(:\d+)?\b|\bvmem')
LABEL = re.compile(r'^(\.?[\w.$]+):')
LOOP_START = re.compile(r'\b(?:sp\d)?loop([01])\(\s*(?:##)?(\.?[\w.$]+)')
END_LOOP = re.compile(r':endloop(01|0|1)')
JUMP = re.compile(r'\bjump(?::n?t)?\s+(\.?[\w.$]+)')


def split_functions(asm, names):
    """{name: [lines of its body]} for the functions named."""
    out = {}
    cur = None
    for line in asm.split('\n'):
        m = LABEL.match(line)
        if m and m.group(1) in names and not line.startswith('\t'):
            cur = m.group(1)
            out[cur] = []
            continue
        if cur is not None:
            if line.startswith('.Lfunc_end') or line.strip().startswith('.size'):
                cur = None
                continue
            out[cur].append(line)
    return out


def instructions(lines):
    """(index, text) of each instruction, and {label: index}; packets' braces are dropped, and an
    `:endloopN` after a packet becomes its own pseudo-instruction at the packet's end."""
    insts, labels = [], {}
    for line in lines:
        s = line.split('//')[0].strip()
        if not s:
            continue
        m = LABEL.match(line)  # a label starts its line; `v1:0.h = ...` is indented
        if m:
            labels[m.group(1)] = len(insts)
            continue
        if s.startswith('.') and not END_LOOP.search(s):
            continue  # a directive
        s = s.strip('{').strip()
        if s.startswith('}'):
            e = END_LOOP.search(s)
            if e:
                insts.append('endloop' + e.group(1))
            continue
        if s:
            insts.append(s)
    return insts, labels


def vector_loops(insts, labels):
    """The loops as (first, last) instruction indices: hardware loops (loopN(label) ... endloopN)
    and back edges (a jump to an earlier label)."""
    loops = []
    last_start = {}
    for i, s in enumerate(insts):
        m = LOOP_START.search(s)
        if m:
            last_start[m.group(1)] = m.group(2)
        if s.startswith('endloop'):
            for level in s[len('endloop'):]:
                label = last_start.get(level)
                if label in labels and labels[label] <= i:
                    loops.append((labels[label], i))
        for m in JUMP.finditer(s):
            if m.group(1) in labels and labels[m.group(1)] <= i:
                loops.append((labels[m.group(1)], i))
    return sorted(set(loops))


def hot_region(lines):
    """The instructions the pattern is looked for in, and how they were chosen."""
    insts, labels = instructions(lines)
    loops = [(a, b) for a, b in vector_loops(insts, labels)
             if any(HVX_OPERAND.search(insts[i]) for i in range(a, b + 1))]
    if not loops:
        return insts, 'function'
    keep = set()
    for a, b in loops:
        keep.update(range(a, b + 1))
    return [insts[i] for i in sorted(keep)], 'loops'


MNEMONIC = re.compile(r'(v[a-z0-9]+(?:\.[a-z]+)?)\(([^()]*)\)((?::[\w<]+)*)')


def hvx_summary(insts):
    """The HVX operations in some instructions, as `vadd(b,b)`, sorted: what the loop does."""
    ops = set()
    for s in insts:
        rhs = s.split('=', 1)[1] if '=' in s.split('(')[0] else s
        for m in MNEMONIC.finditer(rhs.replace(' ', '')):
            name = m.group(1)
            if name == 'vmem':
                continue
            args = []
            for a in m.group(2).split(','):
                t = re.fullmatch(r'([vr])\d+(?::\d+)?(?:\.(\w+))?', a)
                if t:
                    args.append(('r' if t.group(1) == 'r' else '') + (t.group(2) or ('' if t.group(1) == 'r' else 'v')))
                elif re.fullmatch(r'q\d', a):
                    args.append('q')
                elif a.startswith('#'):
                    args.append('#')
                else:
                    args.append('?')
            ops.add(f'{name}({",".join(args)}){m.group(3)}')
    return sorted(ops)


def find_instruction(lines, check):
    """('yes' | 'cheaper' | 'no', the pattern that matched, the region's kind, what it holds)."""
    region, kind = hot_region(lines)
    flat = [re.sub(r'\s+', '', s) for s in region]
    if any(pattern_regex(check.expect).search(s) for s in flat):
        return 'yes', check.expect, kind, hvx_summary(region)
    for pattern, _ in check.cheaper:
        if any(pattern_regex(pattern).search(s) for s in flat):
            return 'cheaper', pattern, kind, hvx_summary(region)
    return 'no', None, kind, hvx_summary(region)


# ---------------------------------------------------------------------------------------------
# Running dspc

def run(cmd, timeout=600):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, '', f'timed out after {timeout} s: {" ".join(cmd)}'
    return r.returncode, r.stdout, r.stderr


def compile_asm(dspc, path, work):
    out = os.path.join(work, os.path.basename(path)[:-4] + '.s')
    rc, _, err = run([dspc, path, '--emit=asm', f'--target={TARGET}', '-o', out])
    if rc != 0:
        return None, err.strip()
    return open(out).read(), None


def graph_chunks(checks):
    """The file's funcs split into graphs whose inputs and results stay below the device group's
    limit; inputs with the same name, dtype and shape are one graph input."""
    chunks, cur, inputs = [], [], set()
    for c in checks:
        new = {(p, d, s) for p, d, s in c.params} - inputs
        if cur and len(inputs) + len(new) + len(cur) + 1 > MAX_GRAPH_TENSORS:
            chunks.append(cur)
            cur, inputs = [], set()
            new = {(p, d, s) for p, d, s in c.params}
        cur.append(c)
        inputs |= new
    if cur:
        chunks.append(cur)
    return chunks


def graph_source(path, checks, graph):
    """A .dsp file that imports the checks' file and calls each of them from one graph."""
    names = {}
    for c in checks:
        for p, d, s in c.params:
            key = (p, d, s)
            if key not in names:
                taken = set(names.values())
                n, k = p, 2
                while n in taken:
                    n, k = f'{p}_{k}', k + 1
                names[key] = n
    ins = ', '.join(f'{n}: {d}[{", ".join(map(str, s))}]' for (p, d, s), n in names.items())
    outs, calls = [], []
    for c in checks:
        res = []
        for r, d, s in c.results:
            res.append(f'{c.name}__{r}')
            outs.append(f'{c.name}__{r}: {d}[{", ".join(map(str, s))}]')
        args = ', '.join(names[(p, d, s)] for p, d, s in c.params)
        calls.append(f'  {", ".join(res)} = {c.name}({args})')
    return (f'import "{os.path.abspath(path)}"\n'
            f'graph {graph}({ins}) -> ({", ".join(outs)}) {{\n' + '\n'.join(calls) + '\n}\n')


def run_json(dspc, path, func, target):
    rc, out, err = run([dspc, 'run', path, f'--func={func}', f'--target={target}', '--random-inputs',
                        f'--seed={SEED}', '--check', '--json', '--json-max-values=0'])
    try:
        return json.loads(out), err
    except ValueError:
        return None, (err or out).strip()


def run_bit_exact(dspc, path, checks, target, work):
    """{check name: 'yes' | 'no: ...' | 'error: ...'} on one target."""
    res = {}
    base = os.path.basename(path)[:-4]
    for k, chunk in enumerate(graph_chunks(checks)):
        graph = f'opcheck_{base}_{k}'
        gpath = os.path.join(work, f'{graph}.{target}.dsp')
        with open(gpath, 'w') as f:
            f.write(graph_source(path, chunk, graph))
        report, err = run_json(dspc, gpath, graph, target)
        if report and report.get('check'):
            mism = {o['name']: o['mismatches'] for o in report['check']['outputs']}
            for c in chunk:
                bad = [f'{r}: {mism[c.name + "__" + r]} of {e} differ' for r, e in
                       ((r, _elements(s)) for r, _, s in c.results) if mism.get(c.name + '__' + r)]
                res[c.name] = 'no: ' + '; '.join(bad) if bad else 'yes'
            continue
        # The graph did not run: run each func alone, so that the failure has a name.
        for c in chunk:
            rep, e = run_json(dspc, path, c.name, target)
            if rep and rep.get('check'):
                bad = [f'{o["name"]}: {o["mismatches"]} of {o["elements"]} differ'
                       for o in rep['check']['outputs'] if o['mismatches']]
                res[c.name] = 'no: ' + '; '.join(bad) if bad else 'yes'
            else:
                msg = (rep or {}).get('error') or e or 'no report'
                res[c.name] = 'error: ' + str(msg).strip().split('\n')[-1]
    return res


def _elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def measure(dspc, files, work, jobs):
    """The results of every check, as JSON-ready dicts in file order."""
    os.makedirs(work, exist_ok=True)
    per_file = {f: parse_checks(f) for f in files}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        asm_f = {f: pool.submit(compile_asm, dspc, f, work) for f in files}
        run_f = {(f, t): pool.submit(run_bit_exact, dspc, f, per_file[f], t, work)
                 for f in files for t in RUN_TARGETS}
        results = []
        for f in files:
            asm, err = asm_f[f].result()
            bodies = split_functions(asm, {c.name for c in per_file[f]}) if asm else {}
            exact = {t: run_f[(f, t)].result() for t in RUN_TARGETS}
            for c in per_file[f]:
                r = dict(name=c.name, file=c.file, expect=c.expect, halide=c.halide, note=c.notes,
                         cheaper=[{'pattern': p, 'reason': why} for p, why in c.cheaper])
                if asm is None:
                    r.update(found='error', compile_error=err.split('\n')[-1] if err else 'failed')
                elif c.name not in bodies:
                    r.update(found='error', compile_error=f'no function {c.name} in the asm')
                else:
                    found, matched, kind, ops = find_instruction(bodies[c.name], c)
                    r.update(found=found, matched=matched, region=kind, ops=ops)
                r['bit_exact'] = {t: exact[t].get(c.name, 'error: not run') for t in RUN_TARGETS}
                results.append(r)
    return results


# ---------------------------------------------------------------------------------------------
# Verdicts and the table

def read_expected(path):
    if not os.path.exists(path):
        return []
    return [l.strip() for l in open(path) if l.strip() and not l.startswith('#')]


def write_expected(path, names, results):
    """The expected passes in the suite's order (a name no check has any more stays, at the end)."""
    order = {r['name']: i for i, r in enumerate(results)}
    names = sorted(set(names), key=lambda n: (order.get(n, len(order)), n))
    with open(path, 'w') as f:
        f.write('# The checks that select their instruction (or a cheaper one): a miss of one of them fails\n'
                '# the suite. opcheck.py --write-table adds new passes; remove a name only by hand.\n')
        f.write(''.join(n + '\n' for n in names))


def verdict(results, expected, complete):
    """(failures, new passes). `complete`: every check was run, so unknown expected names count."""
    failures, new = [], []
    by_name = {r['name']: r for r in results}
    for r in results:
        if r['found'] == 'error':
            failures.append(f'{r["name"]}: does not compile: {r.get("compile_error")}')
        for t, v in r['bit_exact'].items():
            if v != 'yes':
                failures.append(f'{r["name"]}: not bit-exact on {t}: {v}')
        passed = r['found'] in ('yes', 'cheaper')
        if r['name'] in expected and not passed and r['found'] != 'error':
            failures.append(f'{r["name"]}: {r["expect"]} selected before and is a miss now (a regression; '
                            f'if it is accepted, take it out of tests/opcheck/expected_passes.txt)')
        if passed and r['name'] not in expected:
            new.append(r['name'])
    if complete:
        for name in expected:
            if name not in by_name:
                failures.append(f'{name}: listed in tests/opcheck/expected_passes.txt, but no check has that name')
    return failures, new


def idiom(pattern):
    """The instruction a pattern names, for grouping: `v*.h += vmpy(v*.ub,r*.b)` -> `vmpy +=`."""
    m = re.search(r'(v[a-z0-9]+(?:\.[a-z]+)?)\(', pattern.split('=')[-1])
    name = m.group(1) if m else pattern
    return name + (' +=' if '+=' in pattern else '')


def md(text):
    return text.replace('|', '\\|')


def table(results, not_expressible, titles):
    passed = [r for r in results if r['found'] in ('yes', 'cheaper')]
    cheaper = [r for r in passed if r['found'] == 'cheaper']
    applicable = len(results) + len(not_expressible)
    exact = all(all(v == 'yes' for v in r['bit_exact'].values()) for r in results)
    out = ['# HVX op-check results', '',
           'Generated by `python3 tests/opcheck/opcheck.py --dspc build/dspc --write-table`; do not edit.',
           'What the suite is and how it decides: [testing.md](testing.md#the-hvx-op-check-suite).', '',
           f'**{len(passed)} of {applicable} applicable checks select the expected instruction** '
           f'({len(passed) - len(cheaper)} the instruction itself, {len(cheaper)} a documented '
           f'sequence that costs no more); {len(results) - len(passed)} are misses, and {len(not_expressible)} cannot be '
           f'written in .dsp. '
           + ('Every check is bit-exact on hexagon-v68 and host.' if exact else
              '**Some checks are not bit-exact**: see the table.'),
           '', '## By instruction', '',
           '| instruction | checks | selected | misses |', '|---|---|---|---|']
    groups = collections.OrderedDict()
    for r in results:
        groups.setdefault(idiom(r['expect']), []).append(r)
    for c in not_expressible:
        groups.setdefault(idiom(c['expect']), []).append(None)
    for g, rs in sorted(groups.items()):
        ok = sum(1 for r in rs if r and r['found'] in ('yes', 'cheaper'))
        out.append(f'| `{g}` | {len(rs)} | {ok} | {len(rs) - ok} |')
    out += ['', '## Every check', '',
            'found: **yes** (the expected instruction is in the vector loops), **cheaper** (a documented '
            'sequence that costs no more is, with the reason), **no** (a miss). For a miss, the last column lists the HVX '
            'operations the vector loops hold instead (`vadd(h,h)`: operand types; `r`: a scalar).']
    by_file = collections.OrderedDict()
    for r in results:
        by_file.setdefault(r['file'], []).append(r)
    for f, rs in by_file.items():
        ok = sum(1 for r in rs if r['found'] in ('yes', 'cheaper'))
        out += ['', f'### {f}: {titles.get(f, "")} ({ok} of {len(rs)})', '',
                '| check | expected | found | bit-exact | the loops hold instead |', '|---|---|---|---|---|']
        for r in rs:
            found = r['found']
            if found == 'cheaper':
                why = next(c['reason'] for c in r['cheaper'] if c['pattern'] == r['matched'])
                found = f'cheaper: `{md(r["matched"])}` ({md(why)})'
            be = ', '.join(f'{t}: {v}' for t, v in r['bit_exact'].items() if v != 'yes') or 'yes'
            instead = ''
            if r['found'] == 'no':
                instead = ' '.join(f'`{md(o)}`' for o in r['ops']) or 'no HVX: scalar code'
            out.append(f'| `{r["name"]}` | `{md(r["expect"])}` | {found} | {md(be)} | {instead} |')
    if not_expressible:
        out += ['', f'### Not expressible in .dsp ({len(not_expressible)})', '',
                '| check | expected | Halide\'s expression | why |', '|---|---|---|---|']
        for c in not_expressible:
            out.append(f'| `{c["name"]}` | `{md(c["expect"])}` | `{md(c["halide"])}` | {md(c["reason"])} |')
    return '\n'.join(out) + '\n'


def file_titles(files):
    titles = {}
    for f in files:
        first = open(f).readline().strip()
        titles[os.path.basename(f)] = first.lstrip('#').strip().rstrip('.')
    return titles


def print_table(results, not_expressible):
    w = max(len(r['name']) for r in results)
    print(f'{"check":<{w}}  {"expected":<34} found    bit-exact')
    for r in results:
        be = 'yes' if all(v == 'yes' for v in r['bit_exact'].values()) else 'NO'
        print(f'{r["name"]:<{w}}  {r["expect"]:<34} {r["found"]:<8} {be}')
    for c in not_expressible:
        print(f'{c["name"]:<{w}}  {c["expect"]:<34} {"n/a":<8} (not expressible: {c["reason"]})')
    passed = sum(1 for r in results if r['found'] in ('yes', 'cheaper'))
    print(f'\nchecks passed / applicable: {passed} / {len(results) + len(not_expressible)}'
          f' ({len(not_expressible)} not expressible in .dsp)')


# ---------------------------------------------------------------------------------------------
# The harness's own tests

SELF_TEST_ASM = '''\
\t.globl\tk
\t.type\tk,@function
k:
\t{
\t\tv9 = vsplat(r1)
\t\tloop1(.LBB0_1,#16)
\t}
.LBB0_1:
\t{
\t\tv8.b = vadd(v1.b,v2.b)
\t\tloop0(.LBB0_2,#4)
\t}
.LBB0_2:
\t{
\t\tv0.ub = vavg(v1.ub,v2.ub)
\t\tv3 = vmem(r0+#0)
\t} :endloop0
\t{
\t\tr0 = add(r0,#128)
\t} :endloop1
\t{
\t\tv7.h = vsub(v1.h,v2.h)
\t\tjumpr r31
\t}
.Lfunc_end0:
\t.size\tk, .Lfunc_end0-k
j:
\t{
\t\tv1:0.uh = vzxt(v2.ub)
\t}
.LBB1_1:
\t{
\t\tv0.h = vmpy(v1.h,r2.h):<<1:sat
\t\tv5:4.w = vadd(v3:2.w,v1:0.w)
\t\tif (p0) jump:nt .LBB1_1
\t}
'''


def self_test(dspc, work):
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)
    fake = lambda expect_, cheaper=(): Check('k', 'x.dsp', expect_, list(cheaper), '', '', [], [])
    bodies = split_functions(SELF_TEST_ASM, {'k', 'j'})
    # The pattern is looked for in the loops (both levels), not before or after them.
    expect(find_instruction(bodies['k'], fake('vavg(v*.ub,v*.ub)'))[0] == 'yes', 'inner loop')
    expect(find_instruction(bodies['k'], fake('vadd(v*.b,v*.b)'))[0] == 'yes', 'outer loop')
    expect(find_instruction(bodies['k'], fake('vsplat(r*)'))[0] == 'no', 'before the loops')
    expect(find_instruction(bodies['k'], fake('vsub(v*.h,v*.h)'))[0] == 'no', 'after the loops')
    expect(find_instruction(bodies['k'], fake('v*.ub = vavg(v*.ub, v*.ub)'))[0] == 'yes', 'spaces')
    expect(find_instruction(bodies['k'], fake('vavg(v*.ub,v*.ub):rnd'))[0] == 'no', 'suffix')
    expect(find_instruction(bodies['k'], fake('vnavg(v*.ub,v*.ub)', [('vavg(v*.ub,v*.ub) ', 'r')]))[0]
           == 'cheaper', 'cheaper alternative')
    # A jump back is a loop too; the code before it is not.
    expect(find_instruction(bodies['j'], fake('vmpy(v*.h,r*.h):<<1:sat'))[0] == 'yes', 'jump loop')
    expect(find_instruction(bodies['j'], fake('vzxt(v*.ub)'))[0] == 'no', 'before a jump loop')
    expect(find_instruction(bodies['j'], fake('v*:*.w = vadd(v*:*.w,v*:*.w)'))[0] == 'yes', 'a pair result')
    expect(hvx_summary(['v0.h = vmpy(v1.h,r2.h):<<1:sat', 'v3 = vmem(r0+#0)', 'q0 = vcmp.gt(v1.ub,v2.ub)',
                        'v5:4.w = vadd(v3:2.w,v1:0.w)'])
           == ['vadd(w,w)', 'vcmp.gt(ub,ub)', 'vmpy(h,rh):<<1:sat'], 'summary')
    # The verdicts: a regression, a wrong result and a compile error fail; a new pass does not.
    r = lambda name, found, exact='yes': dict(name=name, expect='v', found=found,
                                               bit_exact={'hexagon-v68': exact, 'host': 'yes'})
    fails, new = verdict([r('a', 'no'), r('b', 'yes'), r('c', 'no')], ['a', 'b'], True)
    expect(len(fails) == 1 and fails[0].startswith('a:') and new == [], 'regression')
    fails, new = verdict([r('a', 'yes', 'no: f: 3 of 10 differ')], [], True)
    expect(len(fails) == 1 and 'not bit-exact' in fails[0] and new == ['a'], 'not bit-exact')
    fails, _ = verdict([r('a', 'error')], [], True)
    expect(len(fails) == 1 and 'does not compile' in fails[0], 'compile error')
    fails, _ = verdict([r('a', 'yes')], ['a', 'gone'], True)
    expect(len(fails) == 1 and 'gone' in fails[0], 'stale expected name')
    # A command that hangs is stopped and reported, never waited for.
    rc, _, err = run([sys.executable, '-c', 'import time; time.sleep(30)'], timeout=0.5)
    expect(rc == -1 and 'timed out' in err, 'timeout')
    # End to end with dspc: one check that selects, one that misses, against an expected list.
    if dspc:
        os.makedirs(work, exist_ok=True)
        src = os.path.join(work, 'selftest.dsp')
        with open(src, 'w') as f:
            f.write('# expect: vadd(v*.b,v*.b)\n'
                    'func sel(in_u8: u8[4096]) -> (f: u8[4096]) {\n'
                    '  f[x] = in_u8[x] + in_u8[4095 - x]\n  schedule { f.vectorize(x, 128) }\n}\n\n'
                    '# expect: vnosuchinstruction(v*.b)\n'
                    'func miss(in_u8: u8[4096], in_i8: i8[4096]) -> (f: i8[4096]) {\n'
                    '  f[x] = i8(in_u8[x]) - in_i8[x]\n  schedule { f.vectorize(x, 128) }\n}\n')
        res = measure(dspc, [src], work, 2)
        found = {x['name']: x['found'] for x in res}
        expect(found == {'sel': 'yes', 'miss': 'no'}, f'dspc: found {found}')
        expect(all(v == 'yes' for x in res for v in x['bit_exact'].values()),
               f'dspc: bit-exact {[x["bit_exact"] for x in res]}')
        expect(verdict(res, ['sel'], True)[0] == [], 'dspc: no failure')
        expect(len(verdict(res, ['sel', 'miss'], True)[0]) == 1, 'dspc: the miss is a regression')
    for f in failures:
        print('self-test FAILED:', f)
    print('self-test:', 'FAILED' if failures else 'passed')
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--dspc', help='the dspc to measure')
    ap.add_argument('--work', help='scratch directory for the asm and graphs (default: a new temporary one)')
    ap.add_argument('--jobs', '-j', type=int, default=2)
    ap.add_argument('--only', nargs='+', metavar='FILE', help='only these files (names without .dsp)')
    ap.add_argument('--results', help='write the results as JSON here')
    ap.add_argument('--table-from', metavar='RESULTS', help='read results instead of running dspc')
    ap.add_argument('--write-table', action='store_true',
                    help='write docs/opcheck.md and add new passes to expected_passes.txt')
    ap.add_argument('--check-table', action='store_true',
                    help='fail if docs/opcheck.md or expected_passes.txt is not up to date')
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('--sample', type=int, default=1, metavar='N',
                    help='only every Nth file of the suite (as --only does: no table, no whole-suite verdicts)')
    a = ap.parse_args()
    scratch = None
    if not a.work:
        scratch = tempfile.TemporaryDirectory(prefix='dspc-opcheck-')  # removed when main returns
        a.work = scratch.name

    if a.self_test:
        return self_test(a.dspc, a.work)
    files = suite_files(a.only)
    if not files:
        ap.error('--only ' + ' '.join(a.only) + ': no such file in tests/opcheck (give names without .dsp)')
    if a.sample < 1:
        ap.error('--sample needs a positive N')
    partial = bool(a.only) or a.sample > 1
    files = files[::a.sample]
    if a.table_from:
        results = json.load(open(a.table_from))['results']
    elif a.dspc:
        results = measure(a.dspc, files, a.work, a.jobs)
    else:
        ap.error('give --dspc or --table-from')
    not_expr = parse_not_expressible(NOT_EXPRESSIBLE) if not partial else []
    if a.results:
        with open(a.results, 'w') as f:
            json.dump({'results': results}, f, indent=1)
    print_table(results, not_expr)

    expected = read_expected(EXPECTED)
    failures, new = verdict(results, expected, complete=not partial)
    if new:
        print(f'\n{len(new)} new passes, not in tests/opcheck/expected_passes.txt: {" ".join(new)}'
              '\n(--write-table adds them)')
    text = table(results, not_expr, file_titles(suite_files()))
    if a.write_table:
        if partial:
            ap.error('--write-table needs the whole suite (no --only, no --sample)')
        with open(TABLE, 'w') as f:
            f.write(text)
        write_expected(EXPECTED, expected + new, results)
        print(f'wrote {TABLE}' + (f' and added {len(new)} names to {EXPECTED}' if new else ''))
    elif a.check_table:
        if partial:
            ap.error('--check-table needs the whole suite (no --only, no --sample)')
        if not os.path.exists(TABLE) or open(TABLE).read() != text:
            failures.append('docs/opcheck.md is not up to date: run '
                            'python3 tests/opcheck/opcheck.py --dspc build/dspc --write-table')
        if new:
            failures.append('tests/opcheck/expected_passes.txt lacks the new passes: run --write-table')
    for f in failures:
        print('FAIL:', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
