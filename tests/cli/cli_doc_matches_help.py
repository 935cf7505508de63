#!/usr/bin/env python3
"""docs/cli.md's CLI reference matches `dspc --help`: the same options, in the same forms.

  cli_doc_matches_help.py --dspc build/dspc --doc docs/cli.md

From `dspc --help` (printed from driver/Options.td) it takes every option line ("  --emit=KIND
...", "  -o FILE ...", "  -c ..."); from docs/cli.md, the first column of the tables under
"## CLI reference" (up to the next "## " heading). Every option of one must be in the other,
and an option that takes a value must be written with the same value name in both
(`--emit=KIND`, `-o FILE`, `--input NAME=FILE.npy`). -O<level> is written -O0 .. -O3 in the
document. Exits 1 with the differences listed.
"""
import argparse
import re
import subprocess
import sys

sys.dont_write_bytecode = True
OPTION = re.compile(r"(-{1,2}[A-Za-z][\w-]*)((?:=| )[A-Z][^\s`,]*)?")


def help_options(dspc):
    text = subprocess.run([dspc, "--help"], stdout=subprocess.PIPE, text=True, check=True).stdout
    forms = {}
    for line in text.splitlines():
        m = re.match(r"  (-\S+(?: [A-Z]\S*)?)", line)
        if not m:
            continue
        form = m.group(1)
        if "=" in form.split(" ")[0]:  # --opt=V: what follows is the help text
            form = form.split(" ")[0]
        if form.startswith("-O<"):
            forms["-O"] = "-O"
            continue
        o = OPTION.fullmatch(form)
        if not o:
            raise SystemExit(f"cannot read the help line: {line!r}")
        forms[o.group(1)] = form
    return forms


def doc_options(path):
    text = open(path, encoding="utf-8").read()
    start = text.index("\n## CLI reference")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    forms = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first = line.split("|")[1]
        for cell in re.findall(r"`([^`]+)`", first):
            if re.fullmatch(r"-O[0-3]", cell):
                forms["-O"] = "-O"
                continue
            o = OPTION.fullmatch(cell)
            if o:
                forms[o.group(1)] = cell
    return forms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--doc", required=True)
    a = ap.parse_args()
    h, r = help_options(a.dspc), doc_options(a.doc)
    problems = []
    for name in sorted(set(h) - set(r)):
        problems.append(f"{h[name]}: in dspc --help, not in docs/cli.md")
    for name in sorted(set(r) - set(h)):
        problems.append(f"{r[name]}: in docs/cli.md, not in dspc --help")
    for name in sorted(set(h) & set(r)):
        if h[name] != r[name]:
            problems.append(f"{name}: written '{h[name]}' in dspc --help but '{r[name]}' in docs/cli.md")
    for p in problems:
        print("FAIL " + p)
    print(f"{len(h)} options in dspc --help, {len(r)} in docs/cli.md, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
