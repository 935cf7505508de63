#!/usr/bin/env python3
"""Golden tests locate diagnostics relative to the check line, so that editing a file breaks none.

  python3 tools/golden_locations.py [--no-move] [--dry-run] PATH...   convert files (folders: every
                                                                       .dsp and .tir under them)
  python3 tools/golden_locations.py --check PATH...    list what is left to convert; exit 1 if any
  python3 tools/golden_locations.py --self-test        check this script on scratch files

A check line that names a place in its own test file by number,

  // CHECK: {{.*}}foo.dsp:11:5: error: ... (called at line 9:7)

says it relative to itself instead, as FileCheck's [[@LINE+N]] expressions:

  // CHECK: {{.*}}foo.dsp:[[@LINE-1]]:5: error: ... (called at line [[@LINE-3]]:7)

"Its own file" is what the check file's RUN lines compiled: the file's name (bare or after
`{{.*}}`), `<stdin>` when a RUN line feeds it with `< %s`, and the parts `split-file` cuts from it
(`//--- NAME`); such a RUN line gets `--leading-lines`, so that a part's lines keep the file's
numbers. Other files' locations (Inputs/, files the RUN lines write) are left alone.

Unless --no-move, a check (a `PREFIX:` line and the -NEXT, -SAME and -EMPTY lines right after it)
also moves to just below the line it is about, indented as that line, when the order of the
file's check lines stays the same (FileCheck reads them in file order): the check then reads
[[@LINE-1]] and sits next to its line. Files with an AUTOGEN-CHECKS marker keep their checks in
place, as tools/update-golden.py regenerates them there; it writes relative locations too.

Only lines of the prefixes that the RUN lines' FileCheck runs read, with the test file as check
file, are touched. Run the converted tests afterwards: the conversion keeps every check's meaning,
but a test whose output depends on where its comments sit would notice the move.
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
import golden_tools  # noqa: E402  (RUN lines are read as lit.cfg.py and update-golden.py read them)

SUFFIXES = (".dsp", ".tir")
# FileCheck's directive suffixes; a check that moves is a plain one with its -NEXT/-SAME/-EMPTY.
DIRECTIVE_SUFFIX = r"(-NEXT|-SAME|-EMPTY|-NOT|-DAG|-LABEL|-COUNT-\d+)?"
FOLLOWERS = ("-NEXT", "-SAME", "-EMPTY")
# A location NAME:LINE:COL, NAME after an optional `{{.*}}` and folders.
LOCATION = re.compile(r"(?<![\w.-])(?P<path>(?:\{\{\.\*\}\})?(?:[\w.-]+/)*)"
                      r"(?P<name><stdin>|[\w.+-]+):(?P<line>\d+):(?P<col>\d+)")
# A place in the same file, inside a message: "(at 12:7)", "called at line 10:7".
IN_MESSAGE = re.compile(r"\b(?P<word>at|line) (?P<line>\d+):(?P<col>\d+)\b")
SPLIT_PART = re.compile(r"^(?:.|//)--- (\S+)")
MARKER = re.compile(r"^\s*(?://|#)\s*AUTOGEN-CHECKS:")


def filecheck_prefixes(runs):
    """The prefixes read by FileCheck runs whose check file is the test itself (%s)."""
    prefixes = set()
    for run in runs:
        for m in re.finditer(r"(?<![\w./-])FileCheck\b([^|;&<>]*)", run):
            try:
                words = shlex.split(m.group(1))
            except ValueError:
                continue
            named, check_file, k = [], None, 0
            while k < len(words):
                w = words[k]
                opt = re.match(r"-{1,2}check-prefix(?:es)?(?:=(.*))?$", w)
                if opt:
                    value = opt.group(1)
                    if value is None and k + 1 < len(words):
                        k += 1
                        value = words[k]
                    named += (value or "").split(",")
                elif not w.startswith("-") and check_file is None:
                    check_file = w
                k += 1
            if check_file == "%s":
                prefixes.update(named or ["CHECK"])
    return prefixes


class TestFile:
    """One golden file: its lines, its RUN lines and what names it in a diagnostic."""

    def __init__(self, path, text):
        self.path = path
        self.lines = text.split("\n")
        self.runs = golden_tools.parse_run_lines(self.lines)
        self.prefixes = filecheck_prefixes(self.runs)
        self.autogen = any(MARKER.match(l) for l in self.lines)
        self.stdin = any(re.search(r"<\s*%s\b", r) for r in self.runs)
        split_runs = [r for r in self.runs if re.search(r"\bsplit-file\b.*%s", r)]
        self.parts = {}
        if split_runs:
            for k, line in enumerate(self.lines, 1):
                m = SPLIT_PART.match(line)
                if m:
                    self.parts[m.group(1)] = k
        self.leading_lines = all("--leading-lines" in r for r in split_runs)
        self.directive = None
        if self.prefixes:
            alt = "|".join(re.escape(p) for p in sorted(self.prefixes, key=len, reverse=True))
            self.directive = re.compile(r"(?<![\w-])(?P<prefix>" + alt + ")" + DIRECTIVE_SUFFIX + ":")

    def directive_at(self, line):
        """(prefix, suffix, end of the directive) of a check line, or None."""
        if not self.directive:
            return None
        m = self.directive.search(line)
        return (m.group("prefix"), m.group(2), m.end()) if m else None

    def own_line(self, m):
        """The line of this file a LOCATION match names, or None if it names another file."""
        path, name, line = m.group("path"), m.group("name"), int(m.group("line"))
        if path not in ("", "{{.*}}"):
            return None
        if name in self.parts:
            return line if self.leading_lines else self.parts[name] + line
        if name == os.path.basename(self.path) or (name == "<stdin>" and self.stdin):
            return line
        return None

    def own_locations(self, line):
        """[(start, end, absolute line, 'loc'|'msg')] of the numbered places of this file in a
        check line (after its directive); places inside the message count when the line's
        diagnostic is located in this file."""
        d = self.directive_at(line)
        if not d:
            return []
        out, in_part = [], None
        for m in LOCATION.finditer(line, d[2]):
            target = self.own_line(m)
            if target is not None:
                out.append((m.start("line"), m.end("line"), target, "loc"))
                if in_part is None:
                    in_part = (m.group("name"), int(m.group("line")), target)
        if in_part is not None:
            taken = [(s, e) for s, e, _t, _k in out]
            for m in IN_MESSAGE.finditer(line, d[2]):
                if any(s <= m.start("line") < e for s, e in taken):
                    continue
                _name, number, target = in_part
                out.append((m.start("line"), m.end("line"), target - number + int(m.group("line")), "msg"))
        return sorted(out)


def relative(target, at):
    d = target - at
    return "[[@LINE]]" if d == 0 else f"[[@LINE{'+' if d > 0 else '-'}{abs(d)}]]"


def groups_to_move(tf):
    """{first line: (last line, target line)} of the checks that can sit below their line."""
    n, groups, k = len(tf.lines), {}, 1
    directive_lines = {i for i in range(1, n + 1) if tf.directive_at(tf.lines[i - 1])}
    while k <= n:
        d = tf.directive_at(tf.lines[k - 1])
        if not d or d[1] is not None:
            k += 1
            continue
        end = k
        while end < n:
            nd = tf.directive_at(tf.lines[end])
            if not nd or nd[0] != d[0] or nd[1] not in FOLLOWERS:
                break
            end += 1
        locs = [l for i in range(k, end + 1) for l in tf.own_locations(tf.lines[i - 1]) if l[3] == "loc"]
        if locs:
            target = locs[0][2]
            text = tf.lines[target - 1] if 1 <= target <= n else ""
            # The empty line after the file's last newline is its end: an error there (a
            # missing '}') moves if anything is put below it, so that check stays where it is.
            at_end = target == n and text == ""
            if (1 <= target <= n and not at_end and not k <= target <= end and target not in directive_lines
                    and not golden_tools.RUN.match(text) and not SPLIT_PART.match(text)):
                groups[k] = (end, target)
        k = end + 1
    return groups


def layout(tf, groups):
    """The new order of the original line numbers, the moved checks below their lines."""
    moved = {i for first, (last, _t) in groups.items() for i in range(first, last + 1)}
    below = {}
    for first in sorted(groups):
        below.setdefault(groups[first][1], []).append(first)
    order = []
    for i in range(1, len(tf.lines) + 1):
        if i in moved:
            continue
        order.append(i)
        for first in below.get(i, []):
            order.extend(range(first, groups[first][0] + 1))
    return order


def convert(path, text, move=True):
    """The converted text of one golden file (the same text if there is nothing to convert)."""
    tf = TestFile(path, text)
    n = len(tf.lines)
    if not any(tf.own_locations(l) for l in tf.lines):
        return text
    groups = groups_to_move(tf) if move and not tf.autogen else {}
    order = layout(tf, groups)
    checks = [i for i in range(1, n + 1) if tf.directive_at(tf.lines[i - 1])]
    if [i for i in order if tf.directive_at(tf.lines[i - 1])] != checks:
        groups, order = {}, list(range(1, n + 1))  # a move would reorder the checks: none moves
    new_at = {orig: k for k, orig in enumerate(order, 1)}

    def new_line(target):
        return new_at[target] if target <= n else len(order) + target - n

    moved_indent = {}
    for first, (last, target) in groups.items():
        indent = re.match(r"\s*", tf.lines[target - 1]).group(0)
        for i in range(first, last + 1):
            moved_indent[i] = indent
    out = []
    for orig in order:
        line = tf.lines[orig - 1]
        for start, end, target, _kind in reversed(tf.own_locations(line)):
            line = line[:start] + relative(new_line(target), new_at[orig]) + line[end:]
        if orig in moved_indent:
            line = moved_indent[orig] + line.lstrip()
        out.append(line)
    if tf.parts and not tf.leading_lines:
        out = [re.sub(r"\bsplit-file(?! --leading-lines)(?=\s)", "split-file --leading-lines", l)
               if golden_tools.RUN.match(l) else l for l in out]
    return "\n".join(out)


def golden_files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d != "Inputs")
                for f in sorted(files):
                    if f.endswith(SUFFIXES):
                        yield os.path.join(root, f)
        else:
            yield p


def check(paths):
    """Prints every check line that still numbers a line of its own file; 1 if there is one."""
    left = 0
    for path in golden_files(paths):
        tf = TestFile(path, open(path, encoding="utf-8").read())
        for k, line in enumerate(tf.lines, 1):
            if tf.own_locations(line):
                print(f"{path}:{k}: a location in this file by its line number; "
                      f"run python3 tools/golden_locations.py {path}")
                left += 1
    print(f"golden_locations: {left} check line(s) with absolute locations")
    return 1 if left else 0


SAMPLE = """\
// RUN: bash %S/emit.sh 2>&1 | FileCheck %s
// RUN: bash %S/emit.sh | FileCheck --check-prefix=OTHER %s
// RUN: rm -rf %t && split-file %s %t && cat %t/part.dsp | FileCheck --check-prefix=PART %s
// CHECK: {{.*}}sample.dsp:8:3: error: first (at 8:1)
// CHECK-NEXT: second
// OTHER: sample.dsp:9:5: note: {{.*}}Inputs/x.dsp:4:4: elsewhere
func f() {
  A[i] = B[i]
  C[i] = D[i]
}
//--- part.dsp
x
// PART: part.dsp:1:1
"""
# What emit.sh prints for the sample, as its lines stand after conversion.
EMIT = """\
cat <<'EOF'
sample.dsp:{a}:3: error: first (at {a}:1)
second
sample.dsp:{b}:5: note: ../Inputs/x.dsp:4:4: elsewhere
EOF
"""


def self_test(filecheck):
    """Converts SAMPLE with and without moves, and runs FileCheck on the result: it must accept
    diagnostics at the lines the converted checks are about, and refuse them one line off."""
    failures = []

    def run(directory, text, a, b):
        with open(os.path.join(directory, "emit.sh"), "w") as f:
            f.write(EMIT.format(a=a, b=b))
        golden = os.path.join(directory, "sample.dsp")
        with open(golden, "w") as f:
            f.write(text)
        cmd = f"bash {directory}/emit.sh | {filecheck} --check-prefixes=CHECK,OTHER {golden}"
        return subprocess.run(cmd, shell=True, capture_output=True).returncode

    for move in (True, False):
        out = convert("sample.dsp", SAMPLE, move=move)
        lines = out.split("\n")
        if re.search(r"sample\.dsp:\d|at \d|OTHER: sample\.dsp:\d", out):
            failures.append(f"move={move}: absolute locations left:\n{out}")
        if "{{.*}}Inputs/x.dsp:4:4" not in out:
            failures.append(f"move={move}: another file's location changed:\n{out}")
        if "split-file --leading-lines %s" not in out:
            failures.append(f"move={move}: split-file without --leading-lines:\n{out}")
        if convert("sample.dsp", out, move=move) != out:
            failures.append(f"move={move}: a second conversion changed the file")
        if check_text("sample.dsp", out):
            failures.append(f"move={move}: --check finds absolute locations in:\n{out}")
        a = lines.index("  A[i] = B[i]") + 1
        b = lines.index("  C[i] = D[i]") + 1
        if move:
            want = ["  // CHECK: {{.*}}sample.dsp:[[@LINE-1]]:3: error: first (at [[@LINE-1]]:1)",
                    "  // CHECK-NEXT: second"]
            if lines[a:a + 2] != want:
                failures.append(f"the check did not move below its line:\n{out}")
        if os.path.exists(filecheck):
            with tempfile.TemporaryDirectory() as d:
                if run(d, out, a, b) != 0:
                    failures.append(f"move={move}: FileCheck refuses the right lines:\n{out}")
                if run(d, out, a + 1, b) == 0 or run(d, out, a, b - 1) == 0:
                    failures.append(f"move={move}: FileCheck accepts a wrong line:\n{out}")
    # An error at the end of the file (the empty line after its last newline) keeps its check.
    eof = "// RUN: dspc %s | FileCheck %s\n// CHECK: end.dsp:5:1: error\nfunc f() {\n  x\n"
    if convert("end.dsp", eof) != eof.replace("end.dsp:5:1", "end.dsp:[[@LINE+3]]:1"):
        failures.append(f"a check at the end of the file moved or was misnumbered:\n{convert('end.dsp', eof)}")
    if not check_text("sample.dsp", SAMPLE):
        failures.append("--check finds nothing in the unconverted sample")
    for f in failures:
        print(f"self-test: FAIL, {f}")
    if not failures:
        print("self-test: ok")
    return 1 if failures else 0


def check_text(path, text):
    tf = TestFile(path, text)
    return any(tf.own_locations(l) for l in tf.lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="list absolute locations, change nothing")
    ap.add_argument("--no-move", action="store_true", help="keep every check line where it is")
    ap.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--filecheck", default="/usr/lib/llvm-19/bin/FileCheck")
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a.filecheck)
    if not a.paths:
        ap.error("no files given")
    if a.check:
        return check(a.paths)
    changed = 0
    for path in golden_files(a.paths):
        text = open(path, encoding="utf-8").read()
        new = convert(path, text, move=not a.no_move)
        if new == text:
            continue
        changed += 1
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                   fromfile=path, tofile=path + " (relative)"))
        if not a.dry_run:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    print(f"golden_locations: {changed} file(s) {'would change' if a.dry_run else 'changed'}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
