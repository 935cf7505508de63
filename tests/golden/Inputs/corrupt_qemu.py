#!/usr/bin/env python3
"""A --qemu for tests: runs the real simulator ($DSPC_REAL_QEMU), then flips the low bit of the
last byte of the output named by $DSPC_CORRUPT (its NAME=FILE.npy argument), so that
`dspc run --check` must report a mismatch."""
import os
import subprocess
import sys

rc = subprocess.call([os.environ["DSPC_REAL_QEMU"]] + sys.argv[1:])
name = os.environ.get("DSPC_CORRUPT", "")
if rc == 0 and name:
    for arg in sys.argv[1:]:
        if arg.startswith(name + "="):
            path = arg[len(name) + 1:]
            data = bytearray(open(path, "rb").read())
            data[-1] ^= 1
            open(path, "wb").write(bytes(data))
sys.exit(rc)
