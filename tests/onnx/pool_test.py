#!/usr/bin/env python3
"""MaxPool's Indices output and 3-D pooling in the ONNX importer, against a numpy reference, on a
target (docs/onnx.md): the cases ONNX's node tests leave out.

  pool_test.py --dspc build/dspc --target host --work-dir DIR

Models are built with onnx.helper; ONNX's shape inference gives each output's shape, and the
reference computes the pool for it: a window's maximum over its elements inside the input, its
mean over the elements inside the input (count_include_pad = 0) or inside the padded input
(count_include_pad = 1; ceil_mode's extra positions never count), and Indices the position of the
first maximum in row-major window order, flattened in NCHW order, or column-major over H and W with
storage_order = 1 (ONNX's definition). Results must match exactly (the means to 1e-6).
"""
import itertools
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

from onnx_script import run_model, script_args

NP = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64, TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8}


def reference(x, out_shape, kind, k, s, d, pads, cip, storage_order):
    r = len(k)
    y = np.zeros(out_shape, np.float64)
    ix = np.zeros(out_shape, np.int64)
    sp_in = x.shape[2:]
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*(range(e) for e in out_shape[2:])):
            best, best_pos, total, count = None, None, 0.0, 0
            for w in itertools.product(*(range(e) for e in k)):
                pos = [o[a] * s[a] + w[a] * d[a] - pads[a] for a in range(r)]
                inside = all(0 <= pos[a] < sp_in[a] for a in range(r))
                in_padded = all(-pads[a] <= pos[a] < sp_in[a] + pads[a + r] for a in range(r))
                if inside:
                    v = x[(n, c) + tuple(pos)]
                    total += float(v)
                    if best is None or v > best:
                        best, best_pos = v, pos
                count += inside if not cip else in_padded
            if kind == "max":
                y[(n, c) + o] = best
                if r == 2 and storage_order == 1:
                    flat = (n * x.shape[1] + c) * sp_in[0] * sp_in[1] + best_pos[1] * sp_in[0] + best_pos[0]
                else:
                    flat = n * x.shape[1] + c
                    for a in range(r):
                        flat = flat * sp_in[a] + best_pos[a]
                ix[(n, c) + o] = flat
            else:
                y[(n, c) + o] = total / count
    return y, ix


def case(dspc, target, work, name, kind, shape, dtype, attrs, indices, rng):
    x = rng.integers(-100, 100, shape).astype(NP[dtype]) if dtype in (TensorProto.UINT8, TensorProto.INT8) \
        else rng.standard_normal(shape).astype(NP[dtype])
    if name.endswith("ties"):
        x = rng.integers(0, 3, shape).astype(NP[dtype])
    outs = ["y"] + (["i"] if indices else [])
    node = helper.make_node("MaxPool" if kind == "max" else "AveragePool", ["x"], outs, **attrs)
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", dtype, shape)],
                          [helper.make_tensor_value_info(o, dtype if o == "y" else TensorProto.INT64, None) for o in outs])
    model = onnx.shape_inference.infer_shapes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]))
    onnx.checker.check_model(model)
    out_shape = tuple(dim.dim_value for dim in model.graph.output[0].type.tensor_type.shape.dim)
    path = os.path.join(work, name + ".onnx")
    onnx.save(model, path)
    got, err = run_model(dspc, path, target, work, {"x": x}, outs, prefix=name + "_")
    if err:
        return err
    r = len(shape) - 2
    k = attrs["kernel_shape"]
    s = attrs.get("strides", [1] * r)
    d = attrs.get("dilations", [1] * r)
    pads = attrs.get("pads", [0] * (2 * r))
    if attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        pads = []
        for a in range(r):
            total = max(0, (out_shape[2 + a] - 1) * s[a] + (k[a] - 1) * d[a] + 1 - shape[2 + a])
            pads.append(total // 2 if attrs["auto_pad"] == "SAME_UPPER" else total - total // 2)
        pads += [max(0, (out_shape[2 + a] - 1) * s[a] + (k[a] - 1) * d[a] + 1 - shape[2 + a]) - pads[a] for a in range(r)]
    want_y, want_i = reference(x, out_shape, kind, k, s, d, pads, attrs.get("count_include_pad", 0),
                               attrs.get("storage_order", 0))
    got_y = got["y"].reshape(out_shape)
    if kind == "max" and not np.array_equal(got_y.astype(np.float64), want_y):
        return "y differs in %d of %d" % (int(np.sum(got_y != want_y)), want_y.size)
    if kind == "avg" and not np.allclose(got_y, want_y, rtol=1e-6, atol=1e-6):
        return "y differs in %d of %d" % (int(np.sum(~np.isclose(got_y, want_y, rtol=1e-6, atol=1e-6))), want_y.size)
    if indices:
        got_i = got["i"].reshape(out_shape)
        if not np.array_equal(got_i, want_i):
            bad = np.argwhere(got_i != want_i)[:3]
            return "indices differ in %d of %d, e.g. at %s: got %s want %s" % (
                int(np.sum(got_i != want_i)), want_i.size, [tuple(b) for b in bad],
                [int(got_i[tuple(b)]) for b in bad], [int(want_i[tuple(b)]) for b in bad])
    return None


def main():
    args = script_args(__doc__)
    rng = np.random.default_rng(11)
    F, D, U8, I8 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.UINT8, TensorProto.INT8
    cases = [
        # Indices: pads, strides, dilations, ceil_mode, storage_order, batch and channels, 1-D, ties.
        ("idx_pads", "max", [2, 3, 7, 6], F, dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]), True),
        ("idx_strides_so1", "max", [1, 2, 9, 7], F, dict(kernel_shape=[2, 3], strides=[2, 2], storage_order=1), True),
        ("idx_dilations", "max", [1, 2, 8, 8], D, dict(kernel_shape=[2, 2], dilations=[2, 3]), True),
        ("idx_ceil_so1", "max", [2, 1, 7, 5], F, dict(kernel_shape=[3, 2], strides=[2, 2], ceil_mode=1, pads=[0, 1, 1, 0],
                                                       storage_order=1), True),
        ("idx_same_upper_u8", "max", [1, 3, 6, 5], U8, dict(kernel_shape=[3, 3], strides=[2, 1], auto_pad="SAME_UPPER"), True),
        ("idx_1d_i8", "max", [2, 3, 11], I8, dict(kernel_shape=[3], strides=[2], pads=[1, 1]), True),
        ("idx_ties", "max", [1, 2, 6, 6], F, dict(kernel_shape=[3, 3], strides=[1, 1]), True),
        # 3-D pools: pads, strides, dilations, ceil_mode, count_include_pad, auto_pad, integer dtypes.
        ("max3d_pads_strides", "max", [1, 2, 6, 7, 5], F, dict(kernel_shape=[2, 3, 2], strides=[2, 1, 2],
                                                               pads=[1, 0, 1, 0, 1, 1]), False),
        ("max3d_dilations_ceil", "max", [2, 1, 7, 6, 6], D, dict(kernel_shape=[2, 2, 2], dilations=[2, 1, 2], strides=[2, 2, 2],
                                                                 ceil_mode=1), False),
        ("max3d_same_lower_i8", "max", [1, 3, 5, 5, 4], I8, dict(kernel_shape=[3, 2, 3], auto_pad="SAME_LOWER"), False),
        ("max3d_u8", "max", [1, 2, 4, 5, 6], U8, dict(kernel_shape=[2, 2, 2], strides=[1, 2, 2]), False),
        ("avg3d_pads", "avg", [1, 2, 6, 5, 7], F, dict(kernel_shape=[3, 3, 2], pads=[1, 1, 0, 1, 1, 1]), False),
        ("avg3d_pads_cip", "avg", [2, 1, 5, 6, 5], F, dict(kernel_shape=[2, 3, 3], strides=[2, 2, 1], pads=[1, 1, 1, 0, 1, 1],
                                                           count_include_pad=1), False),
        ("avg3d_ceil", "avg", [1, 2, 7, 7, 6], F, dict(kernel_shape=[3, 2, 2], strides=[2, 2, 2], ceil_mode=1), False),
        ("avg3d_same_upper", "avg", [1, 1, 5, 6, 7], F, dict(kernel_shape=[2, 3, 3], strides=[2, 2, 3], auto_pad="SAME_UPPER"),
         False),
    ]
    failed = 0
    for name, kind, shape, dtype, attrs, indices in cases:
        err = case(args.dspc, args.target, args.work_dir, name, kind, shape, dtype, attrs, indices, rng)
        print(("FAIL %s: %s" % (name, err)) if err else "ok   %s" % name)
        failed += err is not None
    print("%s: %d of %d pool cases fail" % (args.target, failed, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
