#!/usr/bin/env python3
"""QDQ folding (docs/onnx.md, "Quantized models"): a DequantizeLinear -> Conv -> Relu ->
QuantizeLinear chain compiles to one QLinearConv whose result is within one quantum of the float
computation ONNX defines (numpy here), and the folded MobileNet QDQ form gives the QLinear form's
logits bit for bit.

  qdq_test.py --dspc build/dspc --work-dir DIR
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def conv_nchw(x, w, b, pad):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, m, h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1), np.float32)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,mc->nmhw", xp[:, :, i:i + out.shape[2], j:j + out.shape[3]], w[:, :, i, j])
    return out + b.reshape(1, -1, 1, 1)


def single_layer(work, dspc):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, (1, 4, 9, 9), dtype=np.uint8)
    w = rng.integers(-127, 128, (6, 4, 3, 3), dtype=np.int8)
    xs, ws, ys = np.float32(0.02), np.array([0.003, 0.002, 0.004, 0.001, 0.0025, 0.0035], np.float32), np.float32(0.05)
    bf = (rng.standard_normal(6) * 0.3).astype(np.float32)
    inits = [numpy_helper.from_array(v, n) for n, v in [
        ("xs", np.array(xs)), ("xz", np.array(0, np.uint8)), ("w", w), ("ws", ws), ("wz", np.zeros(6, np.int8)),
        ("b", bf), ("ys", np.array(ys)), ("yz", np.array(0, np.uint8))]]
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"]),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], axis=0),
             helper.make_node("Conv", ["xf", "wf", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["y"])]
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 4, 9, 9])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 6, 9, 9])], inits)
    path = os.path.join(work, "qdq_conv.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    dsp = subprocess.run([dspc, path, "--emit=dsp"], capture_output=True, text=True, check=True).stdout
    if "qlinear_conv2d_u8_i8_u8" not in dsp or "conv2d_f32" in dsp:
        print("FAIL: the chain was not folded into one QLinearConv:\n" + dsp)
        return False
    np.save(os.path.join(work, "x.npy"), x)
    out = os.path.join(work, "y.npy")
    subprocess.run([dspc, "run", path, "--target=host", "--input", "x=" + os.path.join(work, "x.npy"),
                    "--output", "y=" + out], check=True, capture_output=True)
    got = np.load(out).astype(np.int32)
    ref = conv_nchw((x.astype(np.float32) * xs), w.astype(np.float32) * ws.reshape(-1, 1, 1, 1), bf, 1)
    want = np.clip(np.rint(np.maximum(ref, 0) / ys), 0, 255).astype(np.int32)
    worst = int(np.max(np.abs(got - want)))
    print("QDQ conv folded: %d of %d outputs differ from the float reference, by at most %d quantum"
          % (int(np.sum(got != want)), got.size, worst))
    return worst <= 1


def mobilenet_forms(work, dspc):
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "examples", "models", "make_mobilenet.py"),
                    "--out", work], check=True, stdout=subprocess.DEVNULL)
    np.save(os.path.join(work, "image.npy"), np.random.default_rng(5).integers(0, 256, (1, 3, 128, 128), dtype=np.uint8))
    logits = []
    for form in ("qlinear", "qdq"):
        out = os.path.join(work, "logits_%s.npy" % form)
        subprocess.run([dspc, "run", os.path.join(work, "mobilenet_%s.onnx" % form), "--target=host",
                        "--input", "image=" + os.path.join(work, "image.npy"), "--output", "logits=" + out],
                       check=True, capture_output=True)
        logits.append(np.load(out))
    same = np.array_equal(logits[0], logits[1])
    print("MobileNet: the folded QDQ form's logits %s the QLinear form's" % ("equal" if same else "DIFFER from"))
    return same


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    ok = single_layer(args.work_dir, args.dspc)
    ok = mobilenet_forms(args.work_dir, args.dspc) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
