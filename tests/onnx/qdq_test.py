#!/usr/bin/env python3
"""QDQ folding (docs/onnx.md, "Quantized models"): a DequantizeLinear -> Conv -> Relu ->
QuantizeLinear chain compiles to one QLinearConv whose result is within one quantum of the float
computation ONNX defines (numpy here); MatMul chains (with and without Relu, per-tensor and
per-column weight scales) become QLinearMatMul, Gemm chains (transB 0 and 1, with a bias) a
1 x 1 QLinearConv, Add chains (u8 and i8, broadcasting a constant, with a Relu) the
fixed-point qlinear_add, and AveragePool and GlobalAveragePool chains (pads, count_include_pad)
the integer avgpool_q, within one quantum; MaxPool and Relu chains
with the same parameters on both sides become integer MaxPool and Max, exactly; a
DequantizeLinear that a float op also reads stays for it; and the folded MobileNet QDQ form
gives the QLinear form's logits bit for bit.

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


def quantize(v, scale, zero, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.rint(v / np.float32(scale)) + zero, info.min, info.max).astype(np.int32)


def avgpool(x, k, stride, pad, count_include_pad):
    """ONNX's AveragePool of an NCHW float image: square window, equal pads, floor mode."""
    n, c, h, w = x.shape
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    out = np.zeros((n, c, oh, ow), np.float32)
    for oy in range(oh):
        for ox in range(ow):
            y0, x0 = oy * stride - pad, ox * stride - pad
            ys, xs = slice(max(y0, 0), min(y0 + k, h)), slice(max(x0, 0), min(x0 + k, w))
            count = k * k if count_include_pad else (ys.stop - ys.start) * (xs.stop - xs.start)
            out[:, :, oy, ox] = x[:, :, ys, xs].sum(axis=(2, 3)) / np.float32(count)
    return out


def other_ops(work, dspc):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 256, (1, 4, 8, 8), dtype=np.uint8)
    a = rng.integers(0, 256, (3, 16), dtype=np.uint8)
    w = rng.integers(-127, 128, (16, 5), dtype=np.int8)
    xs, xz, as_, az = np.float32(0.04), np.uint8(10), np.float32(0.02), np.uint8(128)
    ws = np.array([0.01, 0.02, 0.005, 0.015, 0.03], np.float32)
    gb = (rng.standard_normal(5) * 0.5).astype(np.float32)
    x2 = rng.integers(0, 256, (1, 4, 8, 8), dtype=np.uint8)
    xi = rng.integers(-128, 128, (1, 4, 8, 8), dtype=np.int8)
    cb = rng.integers(0, 256, (1, 4, 1, 1), dtype=np.uint8)
    x2s, x2z, ys8, yz8 = np.float32(0.07), np.uint8(120), np.float32(0.09), np.uint8(100)
    cbs, cbz, xis, xiz = np.float32(0.013), np.uint8(3), np.float32(0.031), np.int8(-5)
    ys4, ys5, yz5 = np.float32(0.3), np.float32(0.25), np.int8(-3)
    inits = [numpy_helper.from_array(v, n) for n, v in [
        ("xs", np.array(xs)), ("xz", np.array(xz)), ("as", np.array(as_)), ("az", np.array(az)), ("w", w),
        ("ws", ws), ("wz", np.zeros(5, np.int8)), ("ws1", np.array(np.float32(0.01))), ("ys4", np.array(ys4)),
        ("yz4", np.array(0, np.uint8)), ("ys5", np.array(ys5)), ("yz5", np.array(yz5)),
        ("wt", np.ascontiguousarray(w.T)), ("gb", gb), ("x2s", np.array(x2s)), ("x2z", np.array(x2z)),
        ("ys8", np.array(ys8)), ("yz8", np.array(yz8)), ("cb", cb), ("cbs", np.array(cbs)), ("cbz", np.array(cbz)),
        ("xis", np.array(xis)), ("xiz", np.array(xiz))]]
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"]),
             helper.make_node("MaxPool", ["xf"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("QuantizeLinear", ["p", "xs", "xz"], ["y1"]),
             helper.make_node("Relu", ["xf"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "xs", "xz"], ["y2"]),
             helper.make_node("Sigmoid", ["xf"], ["y3"]),
             helper.make_node("DequantizeLinear", ["a", "as", "az"], ["af"]),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], axis=1),
             helper.make_node("MatMul", ["af", "wf"], ["m"]),
             helper.make_node("Relu", ["m"], ["mr"]),
             helper.make_node("QuantizeLinear", ["mr", "ys4", "yz4"], ["y4"]),
             helper.make_node("DequantizeLinear", ["w", "ws1"], ["wf1"]),
             helper.make_node("MatMul", ["af", "wf1"], ["m1"]),
             helper.make_node("QuantizeLinear", ["m1", "ys5", "yz5"], ["y5"]),
             helper.make_node("DequantizeLinear", ["wt", "ws", "wz"], ["wtf"], axis=0),
             helper.make_node("Gemm", ["af", "wtf", "gb"], ["g6"], transB=1),
             helper.make_node("Relu", ["g6"], ["g6r"]),
             helper.make_node("QuantizeLinear", ["g6r", "ys4", "yz4"], ["y6"]),
             helper.make_node("DequantizeLinear", ["w", "ws1"], ["wf2"]),
             helper.make_node("Gemm", ["af", "wf2", "gb"], ["g7"]),
             helper.make_node("QuantizeLinear", ["g7", "ys5", "yz5"], ["y7"]),
             helper.make_node("DequantizeLinear", ["x2", "x2s", "x2z"], ["x2f"]),
             helper.make_node("Add", ["xf", "x2f"], ["s8"]),
             helper.make_node("QuantizeLinear", ["s8", "ys8", "yz8"], ["y8"]),
             helper.make_node("DequantizeLinear", ["cb", "cbs", "cbz"], ["cbf"]),
             helper.make_node("Add", ["cbf", "x2f"], ["s9"]),
             helper.make_node("Relu", ["s9"], ["s9r"]),
             helper.make_node("QuantizeLinear", ["s9r", "ys8", "yz4"], ["y9"]),
             helper.make_node("DequantizeLinear", ["xi", "xis", "xiz"], ["xif"]),
             helper.make_node("Add", ["xif", "cbf"], ["s10"]),
             helper.make_node("QuantizeLinear", ["s10", "ys5", "yz5"], ["y10"]),
             helper.make_node("AveragePool", ["xf"], ["p11"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("QuantizeLinear", ["p11", "xs", "xz"], ["y11"]),
             helper.make_node("AveragePool", ["xif"], ["p12"], kernel_shape=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
             helper.make_node("QuantizeLinear", ["p12", "xis", "xiz"], ["y12"]),
             helper.make_node("GlobalAveragePool", ["x2f"], ["p13"]),
             helper.make_node("QuantizeLinear", ["p13", "x2s", "x2z"], ["y13"])]
    outs = [("y1", TensorProto.UINT8, [1, 4, 4, 4]), ("y2", TensorProto.UINT8, [1, 4, 8, 8]),
            ("y3", TensorProto.FLOAT, [1, 4, 8, 8]), ("y4", TensorProto.UINT8, [3, 5]), ("y5", TensorProto.INT8, [3, 5]),
            ("y6", TensorProto.UINT8, [3, 5]), ("y7", TensorProto.INT8, [3, 5]),
            ("y8", TensorProto.UINT8, [1, 4, 8, 8]), ("y9", TensorProto.UINT8, [1, 4, 8, 8]),
            ("y10", TensorProto.INT8, [1, 4, 8, 8]), ("y11", TensorProto.UINT8, [1, 4, 4, 4]),
            ("y12", TensorProto.INT8, [1, 4, 9, 9]), ("y13", TensorProto.UINT8, [1, 4, 1, 1])]
    g = helper.make_graph(nodes, "qdq_ops", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 4, 8, 8]),
                                             helper.make_tensor_value_info("a", TensorProto.UINT8, [3, 16]),
                                             helper.make_tensor_value_info("x2", TensorProto.UINT8, [1, 4, 8, 8]),
                                             helper.make_tensor_value_info("xi", TensorProto.INT8, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info(n, t, sh) for n, t, sh in outs], inits)
    path = os.path.join(work, "qdq_ops.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    dsp = subprocess.run([dspc, path, "--emit=dsp"], capture_output=True, text=True, check=True).stdout
    ok = True
    for want in ("maxpool_u8", "max_u8_4", "qlinear_matmul_u8_i8_u8", "qlinear_matmul_u8_i8_i8", "sigmoid_f32",
                 "qlinear_conv2d_u8_i8_u8", "qlinear_conv2d_u8_i8_i8", "qlinear_add_u8_u8_u8_4",
                 "qlinear_add_i8_u8_i8_4", "avgpool_q_u8", "avgpool_q_i8"):
        if want not in dsp:
            print("FAIL: no %s in the imported program: a chain was not folded (or the DequantizeLinear the float "
                  "Sigmoid reads was dropped)" % want)
            ok = False
    for gone in ("maxpool_f32", "relu_f32", "matmul_f32", "gemm_f32", "add_f32", "avgpool_f32", "reduce_mean_f32"):
        if gone in dsp:
            print("FAIL: %s is left in the imported program: a chain was not folded" % gone)
            ok = False
    if not ok:
        print(dsp)
        return False
    np.save(os.path.join(work, "x.npy"), x)
    np.save(os.path.join(work, "a.npy"), a)
    np.save(os.path.join(work, "x2.npy"), x2)
    np.save(os.path.join(work, "xi.npy"), xi)
    cmd = [dspc, "run", path, "--target=host"]
    for n in ("x", "a", "x2", "xi"):
        cmd += ["--input", "%s=%s" % (n, os.path.join(work, n + ".npy"))]
    for n, _, _ in outs:
        cmd += ["--output", "%s=%s" % (n, os.path.join(work, n + ".npy"))]
    subprocess.run(cmd, check=True, capture_output=True)
    got = {n: np.load(os.path.join(work, n + ".npy")) for n, _, _ in outs}
    xf = (x.astype(np.float32) - np.float32(xz)) * xs
    pooled = xf.reshape(1, 4, 4, 2, 4, 2).max(axis=(3, 5))
    af = (a.astype(np.float32) - np.float32(az)) * as_
    x2f = (x2.astype(np.float32) - np.float32(x2z)) * x2s
    cbf = (cb.astype(np.float32) - np.float32(cbz)) * cbs
    xif = (xi.astype(np.float32) - np.float32(xiz)) * xis
    exact = {"y1": quantize(pooled, xs, xz, np.uint8), "y2": quantize(np.maximum(xf, 0), xs, xz, np.uint8)}
    near = {"y4": quantize(np.maximum(af @ (w.astype(np.float32) * ws), 0), ys4, 0, np.uint8),
            "y5": quantize(af @ (w.astype(np.float32) * np.float32(0.01)), ys5, yz5, np.int8),
            "y6": quantize(np.maximum(af @ (w.astype(np.float32) * ws) + gb, 0), ys4, 0, np.uint8),
            "y7": quantize(af @ (w.astype(np.float32) * np.float32(0.01)) + gb, ys5, yz5, np.int8),
            "y8": quantize(xf + x2f, ys8, yz8, np.uint8),
            "y9": quantize(np.maximum(cbf + x2f, 0), ys8, 0, np.uint8),
            "y10": quantize(xif + cbf, ys5, yz5, np.int8),
            "y11": quantize(avgpool(xf, 3, 2, 1, False), xs, xz, np.uint8),
            "y12": quantize(avgpool(xif, 2, 1, 1, True), xis, xiz, np.int8),
            "y13": quantize(x2f.mean(axis=(2, 3), keepdims=True), x2s, x2z, np.uint8)}
    for n, want in exact.items():
        if not np.array_equal(got[n].astype(np.int32), want):
            print("FAIL: %s (folded, exact) differs from the float reference" % n)
            ok = False
    for n, want in near.items():
        worst = int(np.max(np.abs(got[n].astype(np.int32) - want)))
        print("QDQ %s folded: %d of %d outputs differ from the float reference, by at most %d quantum"
              % (n, int(np.sum(got[n].astype(np.int32) != want)), want.size, worst))
        ok = ok and worst <= 1
    if not np.allclose(got["y3"], 1 / (1 + np.exp(-xf)), rtol=1e-5, atol=1e-6):
        print("FAIL: y3, the Sigmoid of the shared DequantizeLinear, differs from numpy's")
        ok = False
    # The folded funcs compiled for the DSP give what the reference interpreter gives.
    r = subprocess.run([dspc, "run", path, "--target=hexagon-v68", "--random-inputs", "--check"],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.count("matches the reference interpreter") != len(outs):
        print("FAIL: the folded model on hexagon-v68 does not match the reference interpreter:\n" + r.stderr[-2000:])
        ok = False
    print("QDQ MaxPool and Relu folded: exact; hexagon-v68 matches the interpreter" if ok else "")
    return ok


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
    ok = other_ops(args.work_dir, args.dspc) and ok
    ok = mobilenet_forms(args.work_dir, args.dspc) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
