#!/usr/bin/env python3
"""Tensors without elements (an extent 0; docs/onnx.md): a graph input with an empty dimension,
a Reshape with allowzero, empty Slices (a start past the end, a negative step) and a Transpose
of an empty tensor, next to a computation with elements. Every output must match numpy (its
shape, and the values of the one with elements) on the target, from .npy inputs and outputs,
and `dspc run --random-inputs --check` must agree with the reference interpreter.

  empty_tensors_test.py --dspc build/dspc --target host --work-dir DIR
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

from onnx_script import run_model, script_args


def model(path):
    f32 = TensorProto.FLOAT
    e = helper.make_tensor_value_info("e", f32, [0, 3, 4])
    x = helper.make_tensor_value_info("x", f32, [4, 5])
    outs = [
        helper.make_tensor_value_info("r", f32, [3, 4, 0]),
        helper.make_tensor_value_info("t", f32, [4, 0, 3]),
        helper.make_tensor_value_info("s", f32, [4, 0]),
        helper.make_tensor_value_info("n", f32, [0, 5]),
        helper.make_tensor_value_info("y", f32, [4, 2]),
    ]
    i64 = TensorProto.INT64
    inits = [
        helper.make_tensor("shape", i64, [3], [3, 4, 0]),
        helper.make_tensor("s_starts", i64, [1], [7]),
        helper.make_tensor("s_ends", i64, [1], [1000]),
        helper.make_tensor("s_axes", i64, [1], [1]),
        helper.make_tensor("n_starts", i64, [1], [0]),
        helper.make_tensor("n_ends", i64, [1], [0]),
        helper.make_tensor("n_axes", i64, [1], [0]),
        helper.make_tensor("n_steps", i64, [1], [-1]),
        helper.make_tensor("y_starts", i64, [1], [1]),
        helper.make_tensor("y_ends", i64, [1], [5]),
        helper.make_tensor("y_axes", i64, [1], [1]),
        helper.make_tensor("y_steps", i64, [1], [2]),
    ]
    nodes = [
        # [0, 3, 4] -> [3, 4, 0]: with allowzero, the 0 is an extent, not "copy the input's"
        helper.make_node("Reshape", ["e", "shape"], ["r"], allowzero=1),
        helper.make_node("Transpose", ["e"], ["t"], perm=[2, 0, 1]),
        # a start past the end (clamped to 5): [4, 0]
        helper.make_node("Slice", ["x", "s_starts", "s_ends", "s_axes"], ["s"]),
        # a negative step from 0 to 0: [0, 5]
        helper.make_node("Slice", ["x", "n_starts", "n_ends", "n_axes", "n_steps"], ["n"]),
        # and one with elements: columns 1 and 3, then Relu
        helper.make_node("Slice", ["x", "y_starts", "y_ends", "y_axes", "y_steps"], ["y0"]),
        helper.make_node("Relu", ["y0"], ["y"]),
    ]
    m = helper.make_model(helper.make_graph(nodes, "empty_tensors", [e, x], outs, inits),
                          opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, path)


def main():
    args = script_args(__doc__)
    path = os.path.join(args.work_dir, "empty_tensors.onnx")
    model(path)
    rng = np.random.default_rng(5)
    e = np.zeros((0, 3, 4), np.float32)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    want = {
        "r": e.reshape(3, 4, 0),
        "t": e.transpose(2, 0, 1),
        "s": x[:, 7:1000],
        "n": x[0:0:-1, :],
        "y": np.maximum(x[:, 1:5:2], 0),
    }
    failures = []
    outs, err = run_model(args.dspc, path, args.target, args.work_dir, {"e": e, "x": x}, list(want))
    if err:
        failures.append("with .npy files: " + err)
    else:
        for name, w in want.items():
            got = outs[name]
            if got.shape != w.shape or got.dtype != w.dtype or not np.array_equal(got, w):
                failures.append("%s is %s %s, numpy gives %s %s" % (name, got.dtype, got.shape, w.dtype, w.shape))
    r = subprocess.run([args.dspc, "run", path, "--target", args.target, "--random-inputs", "--check"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        failures.append("dspc run --random-inputs --check:\n" + r.stderr[-2000:])
    for f in failures:
        print("FAIL: " + f)
    print("empty tensors on %s: %s" % (args.target, "ok" if not failures else "FAILED"))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
