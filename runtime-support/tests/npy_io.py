"""Minimal .npy reading and writing without numpy (which is not installed): the header is
written by hand, the data packed with struct. Used by run_runner_tests.py."""
import struct

# numpy descr -> struct format character
FORMATS = {"i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I", "i8": "q", "u8": "Q",
           "f4": "f", "f8": "d", "b1": "?"}


def header(descr, shape, version=1, pad_to=64):
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    pre = 10 if version == 1 else 12
    total = pre + len(d) + 1
    total = (total + pad_to - 1) // pad_to * pad_to
    d = d + " " * (total - pre - len(d) - 1) + "\n"
    n = len(d)
    size = struct.pack("<H", n) if version == 1 else struct.pack("<I", n)
    return b"\x93NUMPY" + bytes([version, 0]) + size + d.encode("latin1")


def write(path, descr, shape, values, version=1):
    fmt = FORMATS[descr[1:]]
    with open(path, "wb") as f:
        f.write(header(descr, shape, version))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read(path):
    """Returns (descr, shape, values) of a file the runner wrote (version 1.0)."""
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY", "bad magic"
    assert raw[6:8] == b"\x01\x00", "not version 1.0"
    n = struct.unpack("<H", raw[8:10])[0]
    assert (10 + n) % 64 == 0, "header not padded to 64 bytes"
    meta = eval(raw[10:10 + n].decode("latin1"))  # a dict literal written by the runner
    descr, shape = meta["descr"], meta["shape"]
    assert meta["fortran_order"] is False
    count = 1
    for d in shape:
        count *= d
    fmt = FORMATS[descr[1:]]
    data = raw[10 + n:]
    assert len(data) == count * struct.calcsize(fmt), "data size does not match the shape"
    return descr, tuple(shape), list(struct.unpack("<%d%s" % (count, fmt), data))
