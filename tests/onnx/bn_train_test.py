#!/usr/bin/env python3
"""BatchNormalization in training mode (opset 15) in the ONNX importer against ONNX's reference
formulas in numpy, on a target: inputs of rank 2 to 5, the momentum and epsilon attributes, and
variances over the whole f32 range (1 / sqrt comes from the exponent and Newton's iteration in
onnx_nn.dsp's batchnorm_train_f32, the language having no sqrt). rtol 1e-5.

  bn_train_test.py --dspc build/dspc --target host --work-dir DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

from onnx_script import run_model, script_args


def main():
    args = script_args(__doc__)
    rng = np.random.default_rng(3)
    cases = [  # name, shape, per-channel magnitudes, attributes
        ("rank2", [6, 3], [1.0, 1e-3, 1e3], dict()),
        ("rank3_momentum", [2, 4, 5], [1e-8, 1e8, 0.5, 2.0], dict(momentum=0.75)),
        ("rank4_eps", [2, 3, 3, 4], [1e-15, 1e15, 3.0], dict(epsilon=1e-3, momentum=0.5)),
        ("rank5", [1, 2, 3, 2, 4], [7.0, 1e-30], dict(epsilon=0.0)),
    ]
    failed = 0
    for name, shape, mags, attrs in cases:
        c = shape[1]
        cshape = [1, c] + [1] * (len(shape) - 2)
        x = ((rng.standard_normal(shape) + rng.standard_normal(cshape)) * np.array(mags).reshape(cshape)).astype(np.float32)
        s, b = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
        mean, var = rng.standard_normal(c).astype(np.float32), rng.random(c).astype(np.float32)
        eps, mom = attrs.get("epsilon", 1e-5), attrs.get("momentum", 0.9)
        axes = tuple(k for k in range(len(shape)) if k != 1)
        bm, bv = x.astype(np.float64).mean(axis=axes), x.astype(np.float64).var(axis=axes)
        want_y = ((x - bm.reshape(cshape)) / np.sqrt(bv.reshape(cshape) + eps) * s.reshape(cshape) + b.reshape(cshape))
        want = [want_y, mean * mom + bm * (1 - mom), var * mom + bv * (1 - mom)]
        inits = [helper.make_tensor(n, TensorProto.FLOAT, [c], v.tolist()) for n, v in
                 (("s", s), ("b", b), ("m", mean), ("v", var))]
        node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], training_mode=1, **attrs)
        g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape),
                               helper.make_tensor_value_info("rm", TensorProto.FLOAT, [c]),
                               helper.make_tensor_value_info("rv", TensorProto.FLOAT, [c])], inits)
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
        onnx.checker.check_model(model)
        path = os.path.join(args.work_dir, name + ".onnx")
        onnx.save(model, path)
        outs, err = run_model(args.dspc, path, args.target, args.work_dir, {"x": x}, ["y", "rm", "rv"], prefix=name + "_")
        if err:
            print("FAIL %s: %s" % (name, err))
            failed += 1
            continue
        bad = []
        for o, w in zip(("y", "rm", "rv"), want):
            got = outs[o].reshape(np.shape(w))
            if not np.allclose(got, w, rtol=1e-5, atol=0):
                bad.append("%s: %d of %d differ (max rel %.3g)" % (o, int(np.sum(~np.isclose(got, w, rtol=1e-5, atol=0))),
                                                                   np.size(w), float(np.max(np.abs(got - w) / np.abs(w)))))
        print(("FAIL %s: %s" % (name, "; ".join(bad))) if bad else "ok   %s" % name)
        failed += bool(bad)
    print("%s: %d of %d cases fail" % (args.target, failed, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
