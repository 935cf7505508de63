#!/usr/bin/env python3
"""Batched QLinearMatMul and MatMulInteger in the ONNX importer (numpy's matmul: 1-D operands and
3-D and 4-D ones with broadcast batch dimensions), against numpy on a target, exactly.

  qmatmul_test.py --dspc build/dspc --target host --work-dir DIR

QLinearMatMul's reference is ONNX's: the i32 product of (a - a_zero_point) and (b - b_zero_point),
times the f32 multiplier a_scale * b_scale / y_scale (per column with per-column b parameters),
rounded half to even, plus y_zero_point, saturated. Models are built with onnx.helper.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

import onnx_script

T = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8}


def run(dspc, target, work, name, model, inputs, out_names):
    path = os.path.join(work, name + ".onnx")
    onnx.save(model, path)
    outs, err = onnx_script.run_model(dspc, path, target, work, inputs, out_names, prefix=name + "_")
    if err:
        raise RuntimeError(err)
    return [outs[o] for o in out_names]


def main():
    args = onnx_script.script_args(__doc__)
    rng = np.random.default_rng(5)
    cases = [  # name, a shape, b shape, a dtype, b dtype, y dtype, per-column b parameters
        ("q3d_bcast_b", [3, 4, 5], [5, 6], np.uint8, np.uint8, np.uint8, False),
        ("q4d_bcast", [2, 1, 3, 7], [1, 3, 7, 4], np.int8, np.uint8, np.int8, True),
        ("q3d_vec_b", [2, 3, 8], [8], np.uint8, np.int8, np.uint8, False),
        ("q_vec_a_3d", [6], [2, 6, 5], np.int8, np.int8, np.uint8, True),
        ("i3d", [2, 3, 4], [2, 4, 5], np.uint8, np.int8, None, True),
        ("i4d_bcast", [1, 2, 3, 9], [3, 1, 9, 2], np.int8, np.uint8, None, False),
        # 2-D, the zero points expanded out of the byte product (onnx_quant.dsp): K not a multiple of
        # 4, N not a multiple of a vector, enough rows for the packed vrmpy product, or one row.
        ("q2d_rows", [5, 67], [67, 150], np.uint8, np.int8, np.uint8, True),
        ("q2d_row_u8", [1, 130], [130, 200], np.uint8, np.uint8, np.int8, False),
        ("i2d_rows", [4, 130], [130, 33], np.int8, np.int8, None, False),
        ("i2d_row", [1, 61], [61, 129], np.int8, np.uint8, None, True),
    ]
    # Cases whose B is an initializer (a model's weights): B's column sums are computed at compile time.
    const_b = {"q2d_rows", "i2d_rows", "q3d_bcast_b"}
    failed = 0
    for name, sa_shape, sb_shape, ta, tb, ty, per_col in cases:
        a = rng.integers(np.iinfo(ta).min, np.iinfo(ta).max + 1, sa_shape).astype(ta)
        b = rng.integers(np.iinfo(tb).min, np.iinfo(tb).max + 1, sb_shape).astype(tb)
        n = sb_shape[-1] if len(sb_shape) > 1 else 1
        za = np.array(rng.integers(np.iinfo(ta).min, np.iinfo(ta).max + 1), ta)
        zb = rng.integers(np.iinfo(tb).min, np.iinfo(tb).max + 1, [n] if per_col else []).astype(tb)
        acc = np.matmul(a.astype(np.int64) - int(za), b.astype(np.int64) - zb.astype(np.int64)).astype(np.int64)
        if ty is None:
            inits = [helper.make_tensor("za", T[ta], [], [int(za)]),
                     helper.make_tensor("zb", T[tb], list(zb.shape), zb.reshape(-1).tolist())]
            node = helper.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])
            want = acc.astype(np.int32)
            yt = TensorProto.INT32
        else:
            sa = np.float32(rng.uniform(0.002, 0.02))
            sb = rng.uniform(0.002, 0.02, [n] if per_col else []).astype(np.float32)
            sy = np.float32(rng.uniform(0.05, 0.5))
            zy = np.array(rng.integers(np.iinfo(ty).min // 2, np.iinfo(ty).max // 2), ty)
            inits = [helper.make_tensor("sa", TensorProto.FLOAT, [], [float(sa)]),
                     helper.make_tensor("za", T[ta], [], [int(za)]),
                     helper.make_tensor("sb", TensorProto.FLOAT, list(sb.shape), sb.reshape(-1).tolist()),
                     helper.make_tensor("zb", T[tb], list(zb.shape), zb.reshape(-1).tolist()),
                     helper.make_tensor("sy", TensorProto.FLOAT, [], [float(sy)]),
                     helper.make_tensor("zy", T[ty], [], [int(zy)])]
            node = helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"])
            mult = (sa * sb).astype(np.float32) / sy
            v = (acc.astype(np.float32) * mult).astype(np.float32)
            want = np.clip(np.rint(v) + int(zy), np.iinfo(ty).min, np.iinfo(ty).max).astype(ty)
            yt = T[ty]
        ins = [helper.make_tensor_value_info("a", T[ta], sa_shape)]
        feeds = {"a": a}
        if name in const_b:
            inits.append(helper.make_tensor("b", T[tb], sb_shape, b.reshape(-1).tolist()))
        else:
            ins.append(helper.make_tensor_value_info("b", T[tb], sb_shape))
            feeds["b"] = b
        g = helper.make_graph([node], name, ins, [helper.make_tensor_value_info("y", yt, list(want.shape))], inits)
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        onnx.checker.check_model(model)
        try:
            (got,) = run(args.dspc, args.target, args.work_dir, name, model, feeds, ["y"])
        except RuntimeError as e:
            print("FAIL %s: %s" % (name, e))
            failed += 1
            continue
        if got.shape != want.shape or not np.array_equal(got, want):
            print("FAIL %s: shape %s (want %s), %s elements differ" % (
                name, got.shape, want.shape, int(np.sum(got != want)) if got.shape == want.shape else "?"))
            failed += 1
        else:
            print("ok   %s %s" % (name, list(want.shape)))
    print("%s: %d of %d cases fail" % (args.target, failed, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
