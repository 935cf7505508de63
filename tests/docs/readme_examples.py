#!/usr/bin/env python3
"""Every `.dsp` program the README shows (a fenced block that starts with `func`) compiles, and
runs bit-exact against the reference interpreter on the host and on hexagon-v68.

  readme_examples.py --dspc build/dspc --readme README.md --work DIR
"""
import argparse
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--readme", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    text = open(a.readme, encoding="utf-8").read()
    blocks, block = [], None
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            if block is None:
                block = []
            else:
                blocks.append("\n".join(block) + "\n")
                block = None
        elif block is not None:
            block.append(line)
    blocks = [b for b in blocks if b.startswith("func ")]
    if not blocks:
        print("FAIL no .dsp program found in the README")
        return 1
    os.makedirs(a.work, exist_ok=True)
    failed = 0
    for n, b in enumerate(blocks):
        path = os.path.join(a.work, f"example{n}.dsp")
        with open(path, "w") as f:
            f.write(b)
        for target in ("host", "hexagon-v68"):
            r = subprocess.run([a.dspc, "run", path, f"--target={target}", "--random-inputs", "--check"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
            ok = r.returncode == 0
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} README example {n} ({b.splitlines()[0][:60]}) on {target}"
                  + ("" if ok else "\n" + r.stderr))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
