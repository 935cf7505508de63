#!/usr/bin/env python3
"""Writes a quantized MobileNet-v1-shaped network as ONNX models, with onnx.helper only.

  make_mobilenet.py [--out DIR] [--width 0.25] [--size 128] [--classes 1000] [--seed 7]

Width 0.25, a 128 x 128 x 3 input (NCHW u8), int8 weights that are random but fixed by the
seed, per-tensor scales chosen so that activations keep a useful range (see conv_params). Two forms of the same
network:

  mobilenet_qlinear.onnx  QLinear form: a QLinearConv for every convolution (the depthwise ones
                          with group = channels; u8 activations saturate at the zero point 0,
                          which is the ReLU)
  mobilenet_qdq.onnx      QDQ form: DequantizeLinear -> Conv -> Relu -> QuantizeLinear around every
                          convolution, as quantization tools write it

Both end with DequantizeLinear, GlobalAveragePool and Flatten, then a quantized classifier as
MobileNet v1's own: QuantizeLinear, a u8 x int8 QLinearMatMul (QDQ form: DequantizeLinear ->
MatMul -> QuantizeLinear) and DequantizeLinear to f32 logits.

Both take the input `image: u8[1, 3, SIZE, SIZE]` and give `logits: f32[1, CLASSES]`.
Runs with the Python that has onnx and numpy (Debian's python3-onnx: /usr/bin/python3).
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# (output channels at width 1, stride) of MobileNet v1's 13 depthwise-separable blocks.
BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1), (512, 1), (512, 1), (512, 1),
          (1024, 2), (1024, 1)]


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.count = 0

    def name(self, base):
        self.count += 1
        return "%s_%d" % (base, self.count)

    def const(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(array, n))
        return n

    def weights(self, shape):
        return self.rng.integers(-127, 128, size=shape, dtype=np.int8)


# Scales. Activations keep the image's scale, 1/255 per quantum, layer after layer; each layer's
# weight scale is set for an output standard deviation of 85 quanta if its input's rms were
# ACT_RMS quanta (int8 weights uniform in [-127, 127] have a standard deviation of 73.3), whatever
# the fan-in. A fixed weight scale lets activations die out to 0 or saturate within a few layers;
# with these, on a uniform random image (make_mobilenet.py's seed), every layer's u8 output has an
# rms between 20 and 100 quanta, about half of it 0 (the ReLU at zero point 0) and under 4% at
# 255, and the logits take over 200 distinct values. The input image, uniform in [0, 255], has an
# rms of 147 quanta.
ACT_RMS, IMAGE_RMS = 50.0, 147.0


def conv_params(b, cin, cout, k, depthwise, x_rms):
    w = b.weights((cout, 1 if depthwise else cin, k, k))
    fan_in = (1 if depthwise else cin) * k * k
    w_scale = np.float32(85.0 / (x_rms * 73.3 * np.sqrt(fan_in)))
    bias = b.rng.integers(-200, 200, size=(cout,), dtype=np.int32)
    return w, w_scale, bias


def qlinear(b, x, cin, cout, k, stride, depthwise, x_scale, x_rms=ACT_RMS):
    w, w_scale, bias = conv_params(b, cin, cout, k, depthwise, x_rms)
    y_scale = x_scale
    out = b.name("q")
    b.nodes.append(helper.make_node(
        "QLinearConv",
        [x, b.const("x_scale", np.array(x_scale, np.float32)), b.const("x_zp", np.array(0, np.uint8)),
         b.const("w", w), b.const("w_scale", np.array(w_scale, np.float32)), b.const("w_zp", np.array(0, np.int8)),
         b.const("y_scale", np.array(y_scale, np.float32)), b.const("y_zp", np.array(0, np.uint8)),
         b.const("bias", bias)],
        [out], name=b.name("dw" if depthwise else "conv"), kernel_shape=[k, k], strides=[stride, stride],
        pads=[k // 2] * 4, group=cin if depthwise else 1))
    return out, y_scale


def qdq(b, x, cin, cout, k, stride, depthwise, x_scale, x_rms=ACT_RMS):
    w, w_scale, bias = conv_params(b, cin, cout, k, depthwise, x_rms)
    y_scale = x_scale
    xf, wf, c, q = b.name("xf"), b.name("wf"), b.name("c"), b.name("q")
    b.nodes.append(helper.make_node("DequantizeLinear", [x, b.const("x_scale", np.array(x_scale, np.float32)),
                                                         b.const("x_zp", np.array(0, np.uint8))], [xf]))
    b.nodes.append(helper.make_node("DequantizeLinear", [b.const("w", w), b.const("w_scale", np.array(w_scale, np.float32)),
                                                         b.const("w_zp", np.array(0, np.int8))], [wf]))
    bf = b.const("bias", (bias.astype(np.float32) * np.float32(x_scale * w_scale)).astype(np.float32))
    b.nodes.append(helper.make_node("Conv", [xf, wf, bf], [c], name=b.name("dw" if depthwise else "conv"),
                                    kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4,
                                    group=cin if depthwise else 1))
    r = b.name("r")
    b.nodes.append(helper.make_node("Relu", [c], [r]))
    b.nodes.append(helper.make_node("QuantizeLinear", [r, b.const("y_scale", np.array(y_scale, np.float32)),
                                                       b.const("y_zp", np.array(0, np.uint8))], [q]))
    return q, y_scale


def network(form, width, size, classes, seed):
    b = Builder(seed)
    layer = qlinear if form == "qlinear" else qdq
    ch = max(8, int(32 * width))
    x, scale = layer(b, "image", 3, ch, 3, 2, False, np.float32(1.0 / 255), IMAGE_RMS)
    for c_full, stride in BLOCKS:
        cout = max(8, int(c_full * width))
        x, scale = layer(b, x, ch, ch, 3, stride, True, scale)
        x, scale = layer(b, x, ch, cout, 1, 1, False, scale)
        ch = cout
    # Classifier, quantized as MobileNet v1's own (a u8 x int8 dense layer): dequantize, global
    # average pool, flatten, requantize the 1 x CH features, a QLinearMatMul (or its QDQ form) with
    # int8 weights to u8 logits around zero point 128, dequantized to f32.
    f, p, fl, pq = b.name("f"), b.name("pool"), b.name("flat"), b.name("pq")
    b.nodes.append(helper.make_node("DequantizeLinear", [x, b.const("scale", np.array(scale, np.float32)),
                                                         b.const("zp", np.array(0, np.uint8))], [f]))
    b.nodes.append(helper.make_node("GlobalAveragePool", [f], [p]))
    b.nodes.append(helper.make_node("Flatten", [p], [fl]))
    p_scale = np.float32(scale)
    b.nodes.append(helper.make_node("QuantizeLinear", [fl, b.const("p_scale", np.array(p_scale, np.float32)),
                                                       b.const("p_zp", np.array(0, np.uint8))], [pq]))
    fc = b.weights((ch, classes))
    fc_scale = np.float32(1.0 / (127 * np.sqrt(ch)))
    # The logits' standard deviation is then about 45 quanta, around the zero point 128.
    y_scale = np.float32(p_scale * 0.5)
    y = b.name("y")
    if form == "qlinear":
        b.nodes.append(helper.make_node(
            "QLinearMatMul",
            [pq, b.const("p_scale", np.array(p_scale, np.float32)), b.const("p_zp", np.array(0, np.uint8)),
             b.const("fc", fc), b.const("fc_scale", np.array(fc_scale, np.float32)),
             b.const("fc_zp", np.array(0, np.int8)), b.const("y_scale", np.array(y_scale, np.float32)),
             b.const("y_zp", np.array(128, np.uint8))], [y], name="fc"))
    else:
        pf, wf, m = b.name("pf"), b.name("wf"), b.name("m")
        b.nodes.append(helper.make_node("DequantizeLinear", [pq, b.const("p_scale", np.array(p_scale, np.float32)),
                                                             b.const("p_zp", np.array(0, np.uint8))], [pf]))
        b.nodes.append(helper.make_node("DequantizeLinear", [b.const("fc", fc), b.const("fc_scale", np.array(fc_scale, np.float32)),
                                                             b.const("fc_zp", np.array(0, np.int8))], [wf]))
        b.nodes.append(helper.make_node("MatMul", [pf, wf], [m], name="fc"))
        b.nodes.append(helper.make_node("QuantizeLinear", [m, b.const("y_scale", np.array(y_scale, np.float32)),
                                                           b.const("y_zp", np.array(128, np.uint8))], [y]))
    b.nodes.append(helper.make_node("DequantizeLinear", [y, b.const("y_scale", np.array(y_scale, np.float32)),
                                                         b.const("y_zp", np.array(128, np.uint8))], ["logits"]))
    graph = helper.make_graph(b.nodes, "mobilenet_" + form,
                              [helper.make_tensor_value_info("image", TensorProto.UINT8, [1, 3, size, size])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes])], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="dspc make_mobilenet.py")
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=".")
    ap.add_argument("--width", type=float, default=0.25)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for form in ("qlinear", "qdq"):
        path = os.path.join(args.out, "mobilenet_%s.onnx" % form)
        onnx.save(network(form, args.width, args.size, args.classes, args.seed), path)
        print(path)


if __name__ == "__main__":
    main()
