#!/usr/bin/env python3
"""Nodes whose results nothing reads (docs/onnx.md): ONNX allows them (a branch an exporter left
behind, a second output nobody takes), and the importer drops them instead of failing on a
result never used. The model's outputs must match numpy on the target.

  dead_nodes_test.py --dspc build/dspc --target host --work-dir DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

from onnx_script import run_model, script_args


def model(path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        # a dead chain: read by nothing at the end
        helper.make_node("Sigmoid", ["x"], ["dead1"]),
        helper.make_node("Tanh", ["dead1"], ["dead2"]),
        # a node with two results, the second (Indices) unread
        helper.make_node("MaxPool", ["r"], ["y", "idx"], kernel_shape=[2, 2], strides=[2, 2]),
        # a dead node on an input nothing else reads (the imported graph has no such input)
        helper.make_node("Relu", ["z"], ["dead3"]),
    ]
    m = helper.make_model(helper.make_graph(nodes, "dead_nodes", [x, z], [y]),
                          opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    onnx.save(m, path)


def main():
    args = script_args(__doc__)
    path = os.path.join(args.work_dir, "dead_nodes.onnx")
    model(path)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    outs, err = run_model(args.dspc, path, args.target, args.work_dir, {"x": x}, ["y"])
    if err:
        print("FAIL: " + err)
        return 1
    want = np.maximum(x, 0).reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5))
    got = outs["y"]
    ok = got.shape == want.shape and np.array_equal(got, want)
    print("dead nodes on %s: %s" % (args.target, "ok" if ok else "FAILED: y differs from numpy"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
