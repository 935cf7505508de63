#!/usr/bin/env python3
"""Bad ONNX models get a located error and exit code 1, never a crash (docs/onnx.md, "Errors").

  bad_models.py --dspc build/dspc --work-dir DIR

Each case writes a model (built with onnx.helper, or broken bytes) and runs `dspc MODEL
--emit=dsp`; the exit code must be 1 and standard error must hold `MODEL: error: ` and the
case's expected text. A crash, a hang (60 s), an internal error or a silent success fails it.
"""
import argparse
import os
import subprocess
import sys

import onnx
from onnx import TensorProto, helper


def model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def good():
    return model([helper.make_node("Relu", ["x"], ["y"], name="r")], [f32("x", [1, 4])], [f32("y", [1, 4])])


def cases():
    ok = good().SerializeToString()
    yield "empty", b"", [], "the file is empty"
    yield "truncated", ok[: len(ok) // 2], [], "cannot read the file as an ONNX model"
    yield "garbage", bytes(range(256)) * 4, [], "cannot read the file as an ONNX model"
    # The checker: a node reads a value nothing defines.
    m = model([helper.make_node("Relu", ["nowhere"], ["y"], name="r")], [f32("x", [1, 4])], [f32("y", [1, 4])])
    yield "checker", m, [], "the ONNX checker rejects the model"
    # A dynamic dimension without --input-shape, then a wrong --input-shape.
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r")], [f32("x", ["N", 4])], [f32("y", ["N", 4])])
    yield "dynamic", m, [], "graph input 'x' has a dynamic or empty dimension 0 ('N'); give its shape with --input-shape"
    yield "shape-unknown-input", m, ["--input-shape", "nope=1x4"], "--input-shape nope=...: the model has no input 'nope'"
    # A tensor without elements is a graph input, but only data movement takes one (docs/onnx.md).
    yield "empty-input-shape", m, ["--input-shape", "x=0x4"], ("node 0 'r' (Relu, opset 13): input 0 ('x') is f32[0, 4], "
                                                             "a tensor without elements; only Reshape, Flatten, Squeeze, "
                                                             "Unsqueeze, Identity, Transpose, Slice, Shape and Cast take those")
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r")], [f32("x", [0, 4])], [f32("y", [0, 4])])
    yield "empty-input", m, [], "node 0 'r' (Relu, opset 13): input 0 ('x') is f32[0, 4], a tensor without elements"
    m = model([helper.make_node("Slice", ["x", "s", "e"], ["y0"], name="sl"), helper.make_node("Relu", ["y0"], ["y"], name="r")],
              [f32("x", [2, 4])], [f32("y", [2, 0])],
              [helper.make_tensor("s", TensorProto.INT64, [2], [0, 9]), helper.make_tensor("e", TensorProto.INT64, [2], [2, 9])])
    yield "empty-slice-into-relu", m, [], "node 1 'r' (Relu, opset 13): input 0 ('y0') is f32[2, 0], a tensor without elements"
    m = model([helper.make_node("Erf", ["x"], ["y"], name="erf1")], [f32("x", [1, 4])], [f32("y", [1, 4])])
    yield "unsupported-op", m, [], "node 0 'erf1' (Erf, opset 13): operator 'Erf' is not supported; dspc supports Add,"
    m = model([helper.make_node("Pad", ["x", "p"], ["y"], name="pad1", mode="wrap")], [f32("x", [1, 4])],
              [f32("y", [1, 6])], [helper.make_tensor("p", TensorProto.INT64, [4], [0, 1, 0, 1])])
    yield "unsupported-attr", m, [], "node 0 'pad1' (Pad, opset 13): mode 'wrap' is not supported"
    # MaxPool's Indices output is supported for 1-D and 2-D pools, not 3-D ones.
    m = model([helper.make_node("MaxPool", ["x"], ["y", "i"], name="mp", kernel_shape=[2, 2, 2])],
              [f32("x", [1, 1, 4, 4, 4])],
              [f32("y", [1, 1, 3, 3, 3]), helper.make_tensor_value_info("i", TensorProto.INT64, [1, 1, 3, 3, 3])])
    yield "unsupported-output", m, [], "node 0 'mp' (MaxPool, opset 13): MaxPool's Indices output of a 3-D pool is not supported"
    m = model([helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")],
              [f32("x", [2, 2]), helper.make_tensor_value_info("s", TensorProto.INT64, [1])], [f32("y", [4])])
    yield "dynamic-shape-input", m, [], "node 0 'rs' (Reshape, opset 13): input 1 (shape, 's') must be a constant"
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r")],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [4])],
              [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [4])])
    # float16 is held as u16 bits, and Relu does not take it: refused at the node.
    yield "float16", m, [], "node 0 'r' (Relu, opset 13): input 0 ('x') is f16; Relu takes i8 i16 i32 i64"
    m = model([helper.make_node("Cast", ["x"], ["y"], name="c", to=TensorProto.STRING)], [f32("x", [4])],
              [helper.make_tensor_value_info("y", TensorProto.STRING, [4])])
    yield "cast-string", m, [], "node 0 'c' (Cast, opset 13): output 0 ('y') is STRING; Cast takes"
    m = model([helper.make_node("Identity", ["x"], ["y"], name="i")],
              [helper.make_tensor_value_info("x", TensorProto.STRING, [4])],
              [helper.make_tensor_value_info("y", TensorProto.STRING, [4])])
    yield "string-input", m, [], "graph input 'x' has element type STRING, which dspc does not support (dspc's tensors hold numbers"
    m = model([helper.make_node("Dropout", ["x", "r", "t"], ["y"], name="d")], [f32("x", [4])], [f32("y", [4])],
              [helper.make_tensor("r", TensorProto.FLOAT, [], [0.25]), helper.make_tensor("t", TensorProto.BOOL, [], [True])])
    yield "dropout-random", m, [], ("node 0 'd' (Dropout, opset 13): Dropout in training mode with ratio 0.25 draws a "
                                    "random mask, which is not supported")
    m = model([helper.make_node("Conv", ["x", "w"], ["y"], name="c1d")], [f32("x", [1, 1, 8]), f32("w", [1, 1, 3])],
              [f32("y", [1, 1, 6])])
    yield "conv1d", m, [], "node 0 'c1d' (Conv, opset 13): only 2-D convolutions (4-D inputs) are supported"
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r", domain="com.example")], [f32("x", [4])], [f32("y", [4])])
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    yield "domain", m, [], "operator domain 'com.example' is not supported"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    failures = 0
    count = 0
    for name, m, extra, want in cases():
        count += 1
        path = os.path.join(args.work_dir, name + ".onnx")
        with open(path, "wb") as f:
            f.write(m if isinstance(m, bytes) else m.SerializeToString())
        try:
            r = subprocess.run([args.dspc, path, "--emit=dsp"] + extra, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            print("FAIL %s: no answer in 60 s" % name)
            failures += 1
            continue
        prefix = path + ": error: "
        if r.returncode != 1 or prefix not in r.stderr or want not in r.stderr or "internal error" in r.stderr:
            print("FAIL %s: exit %d, stderr:\n%s\n  (wanted '%s%s')" % (name, r.returncode, r.stderr, prefix, want))
            failures += 1
    # With the shape given, the dynamic model compiles.
    path = os.path.join(args.work_dir, "dynamic.onnx")
    r = subprocess.run([args.dspc, path, "--emit=dsp", "--input-shape", "x=3x4"], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0 or "x: f32[3, 4]" not in r.stdout:
        print("FAIL dynamic with --input-shape x=3x4: exit %d\n%s" % (r.returncode, r.stderr))
        failures += 1
    print("%d of %d bad models refused as expected" % (count + 1 - failures, count + 1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
