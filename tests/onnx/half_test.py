#!/usr/bin/env python3
"""float16 and bfloat16 in the ONNX importer (docs/onnx.md, "16-bit floats"): Cast to and from
them, and elementwise ops on them, against numpy on a target, bit for bit.

  half_test.py --dspc build/dspc --target host --work-dir DIR

The importer holds float16 and bfloat16 as their bits (u16) and converts them with exact float and
integer code (onnx_move.dsp's cast_f32_f16, ...). The inputs hold the hard cases: ties between
two float16 values (normal and subnormal) and the values next to them, the overflow threshold
65520, zeros of both signs, infinities, NaN, f32 subnormals (bfloat16 keeps them), f32's largest
values, and random values over every magnitude. float16 results must equal numpy's astype (round to
nearest even); bfloat16 results the f32's truncated bits (ONNX 1.12's reference); any NaN matches a
NaN. Models are built with onnx.helper, as anyone would build them from the spec.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

import onnx_script

F16, BF16, F32, F64, I32 = TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32


def f32_cases(rng):
    h = rng.integers(0, 0x7C00, 400, dtype=np.uint16).view(np.float16).astype(np.float64)
    nxt = np.nextafter(h.astype(np.float16), np.float16(np.inf)).astype(np.float64)
    ties = (h + nxt) / 2  # exactly between two float16 values (12 significant bits: exact in f32)
    ties = ties[np.isfinite(ties)]
    t32 = ties.astype(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65519.996, 65520, 65536, -65520, 1e-8, 6e-8,
                        2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -26, 2.0 ** -14, 2.0 ** -14 - 2.0 ** -30, 1.0, -1.0,
                        np.finfo(np.float32).max, -np.finfo(np.float32).max, np.finfo(np.float32).tiny,
                        1e-40, -3e-42, 2.0 ** -149, 3.0e38, 1.0000001, 0.33333334], dtype=np.float32)
    mags = (rng.standard_normal(300) * 2.0 ** rng.integers(-40, 40, 300)).astype(np.float32)
    return np.concatenate([special, t32, np.nextafter(t32, np.float32(np.inf)), np.nextafter(t32, np.float32(-np.inf)),
                           -t32, mags, rng.random(100).astype(np.float32)]).astype(np.float32)


def bf16_of_f32(x):
    """Truncation, as ONNX 1.12's reference; a NaN stays a NaN (truncating a NaN whose payload
    is in the low bits would give an infinity), 0x7FC0 with its sign."""
    x = np.ascontiguousarray(x, np.float32)
    b = (x.view(np.uint32) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), (b & 0x8000) | 0x7FC0, b).astype(np.uint16)


def f32_of_bf16(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def same_bits(got, want, kind):
    """got and want as u16 bits (kind f16 or bf16) or floats; NaN matches NaN. f16v: float16 by
    value (-0 equals 0)."""
    if kind == "f16v":
        gf, wf = got.view(np.float16).astype(np.float32), want.view(np.float16).astype(np.float32)
        return gf == wf, gf, wf
    if kind in ("f16", "bf16"):
        gf = got.view(np.float16).astype(np.float32) if kind == "f16" else f32_of_bf16(got)
        wf = want.view(np.float16).astype(np.float32) if kind == "f16" else f32_of_bf16(want)
        nan = np.isnan(gf) & np.isnan(wf)
        return (nan | (got == want)), gf, wf
    g, w = np.asarray(got, np.float64), np.asarray(want, np.float64)
    nan = np.isnan(g) & np.isnan(w)
    return nan | ((g == w) & (np.signbit(g) == np.signbit(w))), g, w


def run_model(dspc, target, work, name, graph_inputs, nodes, out_type, inputs, inits=()):
    n = inputs[0].size
    ins = [helper.make_tensor_value_info(nm, t, [n]) for nm, t in graph_inputs]
    outs = [helper.make_tensor_value_info("y", out_type, [n])]
    model = helper.make_model(helper.make_graph(nodes, name, ins, outs, initializer=list(inits)),
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    path = os.path.join(work, name + ".onnx")
    onnx.save(model, path)
    outs, err = onnx_script.run_model(dspc, path, target, work, {nm: v for (nm, _), v in zip(graph_inputs, inputs)},
                                      ["y"], prefix=name + "_")
    if err:
        raise RuntimeError("%s: %s" % (name, err))
    return outs["y"]


def main():
    args = onnx_script.script_args(__doc__)
    rng = np.random.default_rng(7)
    x32 = f32_cases(rng)
    x64 = np.concatenate([x32.astype(np.float64), (x32.astype(np.float64) * (1 + 2.0 ** -40)),
                          rng.standard_normal(200) * 2.0 ** rng.integers(-30, 18, 200)])
    h = np.concatenate([np.arange(0, 65536, 61, dtype=np.uint16), np.array([0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x03FF,
                                                                           0x0001, 0x8001, 0x7BFF, 0x0400], np.uint16)])
    bf = np.concatenate([np.arange(0, 65536, 59, dtype=np.uint16), np.array([0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001,
                                                                            0x007F, 0x0080, 0x7F7F, 0xFF7F], np.uint16)])
    xi = np.concatenate([np.arange(-70000, 70000, 997, dtype=np.int32), np.array([2049, 2051, 65504, 65519, 65520, -65521,
                                                                                 2 ** 31 - 1, -2 ** 31], np.int32)])
    cast = lambda to: [helper.make_node("Cast", ["x"], ["y"], to=to)]
    cases = [
        ("cast_f32_f16", [("x", F32)], cast(F16), F16, [x32], lambda x: x.astype(np.float16).view(np.uint16), "f16"),
        ("cast_f64_f16", [("x", F64)], cast(F16), F16, [x64], lambda x: x.astype(np.float16).view(np.uint16), "f16"),
        ("cast_i32_f16", [("x", I32)], cast(F16), F16, [xi], lambda x: x.astype(np.float16).view(np.uint16), "f16"),
        ("cast_f16_f32", [("x", F16)], cast(F32), F32, [h.view(np.float16)], lambda x: x.astype(np.float32), "f32"),
        ("cast_f16_f64", [("x", F16)], cast(F64), F64, [h.view(np.float16)], lambda x: x.astype(np.float64), "f64"),
        ("cast_f32_bf16", [("x", F32)], cast(BF16), BF16, [x32], bf16_of_f32, "bf16"),
        ("cast_bf16_f32", [("x", BF16)], cast(F32), F32, [bf], f32_of_bf16, "f32"),
        ("cast_f16_bf16", [("x", F16)], cast(BF16), BF16, [h.view(np.float16)],
         lambda x: bf16_of_f32(x.astype(np.float32)), "bf16"),
        ("cast_bf16_f16", [("x", BF16)], cast(F16), F16, [bf], lambda x: f32_of_bf16(x).astype(np.float16).view(np.uint16), "f16"),
    ]
    with np.errstate(all="ignore"):
        a16 = x32.astype(np.float16)
    b16 = rng.permutation(a16)
    for op, fn in (("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply), ("Div", np.divide),
                   ("Max", np.maximum), ("Min", np.minimum)):
        # numpy computes float16 arithmetic in f32 and rounds once, as the importer does. Max and
        # Min get no NaN (ONNX leaves it open, and dspc's max and min are the language's) and
        # compare zeros by value (which zero max(0, -0) gives is open too).
        a, b = (a16, b16) if op not in ("Max", "Min") else (np.nan_to_num(a16), np.nan_to_num(b16))
        cases.append(("%s_f16" % op.lower(), [("a", F16), ("b", F16)], [helper.make_node(op, ["a", "b"], ["y"])], F16,
                      [a, b], lambda a, b, fn=fn: fn(a, b).view(np.uint16), "f16" if op not in ("Max", "Min") else "f16v"))
    abf, bbf = bf16_of_f32(x32), bf16_of_f32(rng.permutation(x32))
    cases.append(("mul_bf16", [("a", BF16), ("b", BF16)], [helper.make_node("Mul", ["a", "b"], ["y"])], BF16, [abf, bbf],
                  lambda a, b: bf16_of_f32(f32_of_bf16(a) * f32_of_bf16(b)), "bf16"))
    # Constants: the importer folds the casts at compile time (the same rounding in C++).
    c32 = rng.permutation(x32)
    init = [helper.make_tensor("c", F32, [c32.size], c32.tolist())]
    fold = lambda to: [helper.make_node("Cast", ["c"], ["ch"], to=to), helper.make_node("Cast", ["ch"], ["cf"], to=F32),
                       helper.make_node("Add", ["x", "cf"], ["y"])]
    cases.append(("fold_f16", [("x", F32)], fold(F16), F32, [x32],
                  lambda x: x + c32.astype(np.float16).astype(np.float32), "f32", init))
    cases.append(("fold_bf16", [("x", F32)], fold(BF16), F32, [x32],
                  lambda x: x + f32_of_bf16(bf16_of_f32(c32)), "f32", init))
    failed = 0
    with np.errstate(all="ignore"):
        for name, gin, nodes, out_type, inputs, ref, kind, *inits in cases:
            try:
                got = run_model(args.dspc, args.target, args.work_dir, name, gin, nodes, out_type, inputs,
                                inits[0] if inits else ())
            except RuntimeError as e:
                print("FAIL", e)
                failed += 1
                continue
            want = ref(*inputs)
            ok, g, w = same_bits(got.reshape(-1), np.asarray(want).reshape(-1), kind)
            if not ok.all():
                bad = np.nonzero(~ok)[0][:5]
                print("FAIL %s: %d of %d differ, e.g. %s" % (name, int((~ok).sum()), ok.size,
                      ", ".join("in %s: got %r want %r" % ([inp.reshape(-1)[i] for inp in inputs], g[i], w[i]) for i in bad)))
                failed += 1
            else:
                print("ok   %s (%d values)" % (name, ok.size))
    print("%s: %d of %d cases fail" % (args.target, failed, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
