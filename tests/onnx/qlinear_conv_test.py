#!/usr/bin/env python3
"""QLinearConv on the op library's funcs (docs/onnx.md, "Quantized models"): convolutions that fit
nn.dsp's conv2d_requant or qnn.dsp's variants (fixed point where it is exact, else the exact
integer emulation of the f32 rounding, else f32) compile to them, and give ONNX's result bit for bit
(numpy's QLinearConv: the exact i32 accumulator, times the f32 multiplier in f32, rounded half to
even, plus the zero point, saturated).

  qlinear_conv_test.py --dspc build/dspc --work-dir DIR --target host|hexagon-v68
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnx_script import run_model, script_args

# (name, input channels, output channels, kernel, stride, pad, depthwise, x zero point,
#  x scale, w scale, y scale, y zero point, the func the convolution must compile to)
CASES = [
    # a multiplier of 1: nn.dsp's fixed-point requantize is exact
    ("conv_fixed", 8, 16, 3, 1, 1, False, 0, 0.5, 1 / 64, 1 / 128, 3, "conv2d_requant<"),
    # an arbitrary multiplier: ONNX's f32 rounding in integers, qnn.dsp's conv2d_requant_exact (32
    # output channels or more) or conv2d_requant_exact_narrow (fewer)
    ("conv_exact", 8, 16, 3, 2, 1, False, 0, 0.02, 0.0031, 0.37, 0, "conv2d_requant_exact_narrow<"),
    ("conv_exact_zy", 16, 16, 3, 1, 1, False, 0, 0.03, 0.0029, 0.11, 77, "conv2d_requant_exact_narrow<"),
    ("conv_exact_c3", 3, 8, 3, 2, 1, False, 0, 0.02, 0.0041, 0.23, 9, "conv2d_requant_exact_narrow<"),
    ("conv_exact_wide", 16, 32, 3, 2, 1, False, 0, 0.02, 0.0031, 0.37, 0, "conv2d_requant_exact<"),
    ("conv_exact_zy_wide", 8, 48, 1, 1, 0, False, 0, 0.03, 0.0029, 0.11, 77, "conv2d_requant_exact<"),
    # a multiplier of 1/4 or more (outside conv2d_requant_exact's range): in f32
    ("conv_f32", 8, 16, 3, 2, 1, False, 0, 0.5, 0.7, 1.1, 0, "conv2d_requant_f32<"),
    # a multiplier of exactly 2^-8 (every other output level is a tie, rounded to even)
    ("conv_exact_ties", 8, 16, 3, 1, 1, False, 0, 0.5, 0.0625, 64.0, 128, "conv2d_requant_exact_narrow<"),
    ("conv_exact_ties_wide", 8, 32, 3, 1, 1, False, 0, 0.5, 0.0625, 64.0, 128, "conv2d_requant_exact<"),
    # a pointwise convolution's accumulators stay small enough for the fixed-point requantize
    ("pointwise_zx", 16, 8, 1, 1, 0, False, 17, 0.05, 0.003, 0.21, 5, "conv2d_requant<"),
    ("depthwise_fixed", 16, 16, 3, 1, 1, True, 0, 0.5, 1 / 64, 1 / 128, 0, "depthwise_conv2d_requant<"),
    ("depthwise_exact", 16, 16, 3, 2, 1, True, 0, 0.02, 0.0043, 0.09, 2, "depthwise_conv2d_requant_exact<"),
    # the exact requantization with an odd zero point, 40 channels (not a whole vector), and with
    # a multiplier of exactly 2^-11 (ties at every other level, rounded to even)
    ("depthwise_exact_zy", 40, 40, 3, 1, 1, True, 0, 0.03, 0.0029, 0.11, 77, "depthwise_conv2d_requant_exact<"),
    ("depthwise_exact_ties", 24, 24, 3, 1, 1, True, 0, 0.5, 0.0625, 64.0, 131, "depthwise_conv2d_requant_exact<"),
    ("depthwise_f32", 16, 16, 3, 2, 1, True, 0, 0.6, 0.8, 1.5, 2, "depthwise_conv2d_requant_f32<"),
]


def reference(x, w, bias, zx, mult, zy, stride, pad, group):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xi = np.pad(x.astype(np.int64) - zx, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    acc = np.zeros((n, m, oh, ow), np.int64)
    per = m // group
    for o in range(m):
        g = o // per
        for i in range(kh):
            for j in range(kw):
                win = xi[:, g * cg:(g + 1) * cg, i:i + stride * oh:stride, j:j + stride * ow:stride]
                acc[:, o] += np.einsum("nchw,c->nhw", win, w[o, :, i, j].astype(np.int64))
    acc += bias.reshape(1, -1, 1, 1)
    v = acc.astype(np.float32) * np.float32(mult)
    return np.clip(np.rint(v).astype(np.int64) + zy, 0, 255).astype(np.uint8)


def run_case(case, work, dspc, target, rng):
    name, cin, cout, k, stride, pad, depthwise, zx, xs, ws, ys, zy, func = case
    group = cin if depthwise else 1
    x = rng.integers(0, 256, (1, cin, 10, 10), dtype=np.uint8)
    w = rng.integers(-127, 128, (cout, cin // group, k, k), dtype=np.int8)
    bias = rng.integers(-3000, 3000, (cout,), dtype=np.int32)
    inits = [numpy_helper.from_array(v, n) for n, v in [
        ("xs", np.array(xs, np.float32)), ("xz", np.array(zx, np.uint8)), ("w", w), ("ws", np.array(ws, np.float32)),
        ("wz", np.array(0, np.int8)), ("ys", np.array(ys, np.float32)), ("yz", np.array(zy, np.uint8)), ("b", bias)]]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], name=name,
                            kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4, group=group)
    oh = (10 + 2 * pad - k) // stride + 1
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, cin, 10, 10])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, cout, oh, oh])], inits)
    path = os.path.join(work, name + ".onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    dsp = subprocess.run([dspc, path, "--emit=dsp"], capture_output=True, text=True, check=True).stdout
    if "= " + func not in dsp or "qlinear_conv2d" in dsp:
        print("FAIL %s: not compiled to %s:\n%s" % (name, func, dsp))
        return False
    outs, err = run_model(dspc, path, target, work, {"x": x}, ["y"], prefix=name + ".")
    if err:
        print("FAIL %s: %s" % (name, err))
        return False
    # ONNX's multiplier: the f32 product of the f32 scales, over the f32 result scale.
    mult = np.float32(np.float32(xs) * np.float32(ws)) / np.float32(ys)
    want = reference(x, w, bias, zx, mult, zy, stride, pad, group)
    got = outs["y"]
    diff = int(np.sum(got != want))
    print("%s (%s): %d of %d outputs differ from ONNX's QLinearConv" % (name, func.rstrip("<"), diff, want.size))
    return diff == 0


def main():
    args = script_args(__doc__)
    rng = np.random.default_rng(11)
    ok = all([run_case(c, args.work_dir, args.dspc, args.target, rng) for c in CASES])
    print("qlinear conv on the op library: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
