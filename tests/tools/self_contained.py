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
        # A CMake build tree (any name: `cmake -B b` too) holds generated files with this
        # machine's paths; it is not the repository's.
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")
                   and not os.path.exists(os.path.join(folder, d, "CMakeCache.txt"))]
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(SUFFIXES) or (os.access(path, os.X_OK) and os.path.getsize(path) < 1 << 20):
                yield path


def self_test():
    """A script naming a machine's path is caught; the same line in a CMake build tree of any
    name (a folder with a CMakeCache.txt) is not the repository's and is left alone."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        line = "x = '/" + "work/tool'\n"
        for folder in ("tools", "b", os.path.join("b", "tests")):
            os.makedirs(os.path.join(root, folder), exist_ok=True)
            with open(os.path.join(root, folder, "x.py"), "w") as f:
                f.write(line)
        open(os.path.join(root, "b", "CMakeCache.txt"), "w").close()
        found = [os.path.relpath(p, root) for p in scripts(root)]
        if sorted(found) != [os.path.join("tools", "x.py")]:
            print("FAIL: self-test: checked", sorted(found), "instead of tools/x.py only")
            return 1
    print("self-test: a build tree named b is skipped, tools/x.py is checked")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source-dir")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.source_dir:
        ap.error("--source-dir is required")
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
