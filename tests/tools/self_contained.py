#!/usr/bin/env python3
"""The repository's scripts and build files find their tools inside the repository.

  self_contained.py --source-dir .

bench/run.py, bench/nn_bench.py and tools/onnx_profile.py run a packet counter: it is
tools/count-packets, so a plain clone can run them. This fails on any script, CMake file or
shell file of the tree that names a path of one particular machine (an absolute path under
/work or /home) or a folder beside the repository (joining ROOT and "..").
"""
import argparse
import os
import re
import sys

# Built from pieces, so that this file does not match itself.
PATTERNS = [
    re.compile("/" + "work/"),
    re.compile("/" + "home/[a-z]"),
    re.compile(r"ROOT,\s*['\"]\.\.['\"]"),
]
SUFFIXES = (".py", ".cmake", ".sh", ".txt", ".in", ".cfg")
SKIP_DIRS = {".git", "build", "__pycache__"}


def scripts(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(SUFFIXES) or (os.access(path, os.X_OK) and os.path.getsize(path) < 1 << 20):
                yield path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source-dir", required=True)
    a = ap.parse_args()
    root = os.path.abspath(a.source_dir)
    failures, checked = [], 0
    for path in scripts(root):
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, OSError):
            continue  # not text
        checked += 1
        for n, line in enumerate(lines, 1):
            for p in PATTERNS:
                if p.search(line):
                    failures.append(f"{os.path.relpath(path, root)}:{n}: looks outside the repository: {line.strip()}")
    for f in failures:
        print("FAIL:", f)
    print(f"{checked} files checked, {len(failures)} outside paths")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
