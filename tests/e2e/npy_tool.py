#!/usr/bin/env python3
"""Writes or prints a .npy file without numpy, for golden tests' RUN lines.

  npy_tool.py write OUT DTYPE SHAPE VALUE...   e.g. write a.npy i8 2x3 1 2 3 4 5 6
  npy_tool.py print FILE                       prints "DTYPE (SHAPE) VALUE..." on one line
DTYPE is a dspc dtype (i8 ... u64, f32, f64, bool); SHAPE is extents joined by 'x'.
"""
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_exact import CODE, DESCR, read_npy, write_npy  # noqa: E402


def main(argv):
    if len(argv) >= 4 and argv[0] == "write":
        out, dtype, shape = argv[1], argv[2], [int(x) for x in argv[3].split("x")]
        conv = float if dtype[0] == "f" else (lambda s: s in ("1", "true", "True")) if dtype == "bool" else int
        write_npy(out, dtype, shape, [conv(v) for v in argv[4:]])
        return 0
    if len(argv) == 2 and argv[0] == "print":
        descr, shape, raw = read_npy(argv[1])
        dtype = {v: k for k, v in DESCR.items()}.get(descr, descr)
        n = len(raw) // struct.calcsize("<" + CODE[dtype])
        values = struct.unpack("<%d%s" % (n, CODE[dtype]), raw)
        print(dtype, "(" + ", ".join(map(str, shape)) + ")", *[repr(v) if dtype[0] == "f" else str(int(v)) for v in values])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
