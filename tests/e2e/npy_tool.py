#!/usr/bin/env python3
"""The .npy reading and writing of every Python test script (numpy is not installed), and a
command line for golden tests' RUN lines:

  npy_tool.py write OUT DTYPE SHAPE VALUE...   e.g. write a.npy i8 2x3 1 2 3 4 5 6
  npy_tool.py print FILE                       prints "DTYPE (SHAPE) VALUE..." on one line
DTYPE is a dspc dtype (i8 ... u64, f16, f32, f64, bool); SHAPE is extents joined by 'x'.

As a module: header() builds a header for any descr (tests use it for malformed files too),
npy_bytes() and write() a whole file; read() checks a file as strictly as numpy writes one
(dspc writes what numpy writes) and values() unpacks its data.
"""
import ast
import collections
import struct
import sys

DESCR = {"i8": "|i1", "u8": "|u1", "i16": "<i2", "u16": "<u2", "i32": "<i4", "u32": "<u4",
         "i64": "<i8", "u64": "<u8", "f16": "<f2", "f32": "<f4", "f64": "<f8", "bool": "|b1"}
CODE = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I", "i64": "q",
        "u64": "Q", "f16": "e", "f32": "f", "f64": "d", "bool": "?"}
DTYPE = {descr: dtype for dtype, descr in DESCR.items()}

# A file read back: descr as written, shape as a tuple, the raw data, (major, minor).
Array = collections.namedtuple("Array", "descr shape data version")


def header(descr, shape, version=1):
    """Magic, version, header length and the header dict, padded with spaces and a newline so
    that the data starts at a multiple of 64 bytes."""
    dims = f"{shape[0]}," if len(shape) == 1 else ", ".join(map(str, shape))
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    prefix = 10 if version == 1 else 12
    text += " " * (-(prefix + len(text) + 1) % 64) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + size + text.encode("latin1")


def npy_bytes(dtype, shape, values, version=1):
    """A whole file of dspc dtype `dtype` holding `values` in C order."""
    return header(DESCR[dtype], shape, version) + struct.pack("<%d%s" % (len(values), CODE[dtype]), *values)


def write(path, dtype, shape, values, version=1):
    with open(path, "wb") as f:
        f.write(npy_bytes(dtype, shape, values, version))


def parse(raw, name="the file"):
    """An Array from a file's bytes; ValueError naming `name` unless it is a well-formed file
    of a dspc dtype whose data is exactly what its shape needs."""
    def bad(what):
        raise ValueError(f"{name}: {what}")
    if raw[:6] != b"\x93NUMPY":
        bad("not a .npy file")
    version = (raw[6], raw[7])
    if version not in ((1, 0), (2, 0), (3, 0)):
        bad(f"unsupported version {version[0]}.{version[1]}")
    prefix = 10 if version == (1, 0) else 12
    n = struct.unpack("<H" if prefix == 10 else "<I", raw[8:prefix])[0]
    if (prefix + n) % 64 or raw[prefix + n - 1:prefix + n] != b"\n":
        bad("header not padded to 64 bytes and ended by a newline")
    meta = ast.literal_eval(raw[prefix:prefix + n].decode("latin1"))
    if sorted(meta) != ["descr", "fortran_order", "shape"] or meta["fortran_order"] is not False:
        bad(f"unexpected header {meta!r}")
    descr, shape = meta["descr"], tuple(meta["shape"])
    if descr not in DTYPE:
        bad(f"descr {descr!r} is not a dspc dtype")
    count = 1
    for d in shape:
        count *= d
    data = raw[prefix + n:]
    if len(data) != count * struct.calcsize(CODE[DTYPE[descr]]):
        bad(f"data has {len(data)} bytes, the shape {shape} needs {count} elements")
    return Array(descr, shape, data, version)


def read(path):
    with open(path, "rb") as f:
        return parse(f.read(), path)


def values(array):
    """The elements of an Array as Python numbers (bool for bool)."""
    code = CODE[DTYPE[array.descr]]
    return list(struct.unpack("<%d%s" % (len(array.data) // struct.calcsize(code), code), array.data))


def main(argv):
    if len(argv) >= 4 and argv[0] == "write":
        out, dtype, shape = argv[1], argv[2], [int(x) for x in argv[3].split("x")]
        conv = float if dtype[0] == "f" else (lambda s: s in ("1", "true", "True")) if dtype == "bool" else int
        write(out, dtype, shape, [conv(v) for v in argv[4:]])
        return 0
    if len(argv) == 2 and argv[0] == "print":
        array = read(argv[1])
        dtype = DTYPE[array.descr]
        print(dtype, "(" + ", ".join(map(str, array.shape)) + ")",
              *[repr(v) if dtype[0] == "f" else str(int(v)) for v in values(array)])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
