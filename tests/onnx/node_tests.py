#!/usr/bin/env python3
"""ONNX's backend node tests (libonnx-testdata) through dspc (docs/onnx.md, "Conformance").

  node_tests.py --dspc build/dspc --target host [--only test_add,test_relu | --sample] [--jobs 2]
                [--table docs/onnx-table.md] [--data /usr/share/libonnx-testdata/data/node]

For each test (a folder with model.onnx and test_data_set_0/{input,output}_*.pb): the inputs
that dspc needs as constants (a Reshape's shape, a Slice's starts, BatchNormalization's
statistics, ...: CONST_INPUTS below) become initializers holding the test's values (dspc compiles
static graphs); `dspc run` runs the model on the target with the other inputs as .npy files, and
each output is compared with the expected one: rtol 1e-3 and atol 1e-7 for floats (NaN equal to
NaN), exact for integers and bool, as ONNX's backend test runner does.

A test is *applicable* when every node's operator is in `dspc --list-onnx-ops` and the element
types of the node's inputs and outputs are in that operator's dtype list there (ONNX's shape
inference gives them), unless its expected outputs are random draws that ONNX does not specify (a
Dropout in training mode with a ratio above 0: numpy's generator made them). float16 values are
given to dspc and read back as their bits (u16), as the importer holds them; bfloat16 values are
their bits in ONNX's own test data. The exit code is 0 when every applicable test of the selection
passes, 1 otherwise. --table writes the per-operator table (passed / applicable) as Markdown.

Runs with the Python that has onnx and numpy (Debian's python3-onnx: /usr/bin/python3).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data/node"

# Inputs an operator takes as compile-time constants in dspc: op -> input positions.
CONST_INPUTS = {
    "Reshape": [1], "Slice": [1, 2, 3, 4], "Gather": [1], "Pad": [1, 2, 3], "Unsqueeze": [1],
    "Squeeze": [1], "ReduceSum": [1], "Clip": [1, 2], "BatchNormalization": [1, 2, 3, 4], "Dropout": [1, 2],
    "QuantizeLinear": [1, 2], "DequantizeLinear": [1, 2], "MatMulInteger": [2, 3], "ConvInteger": [2, 3],
    "QLinearMatMul": [1, 2, 4, 5, 6, 7], "QLinearConv": [1, 2, 4, 5, 6, 7, 8],
}

# The fixed sample of the default ctest run: one or two tests per operator family.
SAMPLE = [
    "test_add_bcast", "test_sub", "test_mul", "test_div", "test_max_example", "test_min_one_input",
    "test_relu", "test_leakyrelu", "test_sigmoid", "test_tanh", "test_clip_default_inbounds",
    "test_conv_with_strides_padding", "test_basic_conv_with_padding", "test_maxpool_2d_pads",
    "test_averagepool_2d_same_upper", "test_globalaveragepool", "test_batchnorm_example",
    "test_gemm_all_attributes", "test_matmul_3d", "test_softmax_axis_1", "test_logsoftmax_axis_0",
    "test_concat_2d_axis_1", "test_reshape_reordered_all_dims", "test_flatten_axis1",
    "test_transpose_all_permutations_3", "test_unsqueeze_axis_1", "test_slice_neg_steps",
    "test_gather_1", "test_constant_pad", "test_reduce_mean_keepdims_example", "test_cast_FLOAT_to_DOUBLE",
    "test_identity", "test_quantizelinear", "test_dequantizelinear_axis", "test_qlinearconv", "test_qlinearmatmul_2D",
    "test_convinteger_with_padding", "test_matmulinteger", "test_maxpool_1d_default", "test_edge_pad",
]

NP_TO_DSPC = {"float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
              "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "bool"}


def supported_ops(dspc):
    """op -> the set of element types (dspc's names) its inputs and outputs may have."""
    out = subprocess.run([dspc, "--list-onnx-ops"], capture_output=True, text=True, check=True).stdout
    ops = {}
    for line in out.splitlines():
        m = re.match(r"^(\w+) \(opsets [^)]*\) \[([^\]]*)\]", line)
        if m:
            ops[m.group(1)] = set(m.group(2).split())
    return ops


ELEM_NAMES = {1: "f32", 2: "u8", 3: "i8", 4: "u16", 5: "i16", 6: "i32", 7: "i64", 8: "string", 9: "bool",
              10: "f16", 11: "f64", 12: "u32", 13: "u64", 14: "complex64", 15: "complex128", 16: "bf16"}


def applicability(model, values, supported):
    """(applicable, why not): every node's operator and element types supported, and the expected
    outputs not random."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # a model shape inference rejects: judge by the declared types alone
        inferred = model
    g = inferred.graph
    types = {}
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.type.HasField("tensor_type"):
            types[v.name] = ELEM_NAMES.get(v.type.tensor_type.elem_type, "?")
    for t in g.initializer:
        types[t.name] = ELEM_NAMES.get(t.data_type, "?")
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    for node in g.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            consts[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    consts.update(values)
    for node in g.node:
        if node.op_type not in supported:
            return False, "operator %s" % node.op_type
        for name in list(node.input) + list(node.output):
            if name and name in types and types[name] not in supported[node.op_type]:
                return False, "%s on %s" % (node.op_type, types[name])
        if node.op_type == "Dropout" and len(node.input) > 2 and node.input[2] in consts and bool(consts[node.input[2]]):
            ratio = float(consts[node.input[1]]) if len(node.input) > 1 and node.input[1] in consts else 0.5
            if ratio != 0:
                return False, "random (Dropout in training mode)"
    return True, ""


def load_tensors(folder, kind):
    files = sorted((f for f in os.listdir(folder) if f.startswith(kind + "_") and f.endswith(".pb")),
                   key=lambda f: int(f[len(kind) + 1:-3]))
    tensors = []
    for f in files:
        t = onnx.TensorProto()
        with open(os.path.join(folder, f), "rb") as fh:
            t.ParseFromString(fh.read())
        tensors.append(numpy_helper.to_array(t))
    return tensors


def signature(dsp_text):
    """The graph's inputs and results as [(name, dtype, shape)], and ONNX name -> dspc name."""
    m = re.search(r"^graph \w+\((.*?)\) -> \((.*?)\) \{", dsp_text, re.M)
    def params(text):
        return [(n, t, [int(x) for x in s.split(",")]) for n, t, s in re.findall(r"(\w+): (\w+)\[([0-9, ]+)\]", text)]
    renamed = dict(re.findall(r"^# ONNX (?:input|output) '(.*)' is (\w+)\.$", dsp_text, re.M))
    return params(m.group(1)), params(m.group(2)), renamed


def first_error(proc):
    for line in proc.stderr.splitlines():
        if "error" in line:
            return line.split(": error: ", 1)[-1]
    return "exit %d" % proc.returncode


def run_test(dspc, target, folder, supported, timeout):
    name = os.path.basename(folder)
    model = onnx.load(os.path.join(folder, "model.onnx"))
    ops = sorted({n.op_type for n in model.graph.node})
    data_dir = os.path.join(folder, "test_data_set_0")
    inputs = load_tensors(data_dir, "input")
    expected = load_tensors(data_dir, "output")
    graph_inputs = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    values = dict(zip(graph_inputs, inputs))
    applicable, why_not = applicability(model, values, supported)
    result = {"name": name, "ops": ops, "applicable": applicable, "status": "skip", "why": "", "not_applicable": why_not}
    frozen = set()
    for node in model.graph.node:
        for pos in CONST_INPUTS.get(node.op_type, []):
            if pos < len(node.input) and node.input[pos] in values and node.input[pos] not in frozen:
                frozen.add(node.input[pos])
                model.graph.initializer.append(numpy_helper.from_array(values[node.input[pos]], node.input[pos]))
    if frozen:
        keep = [i for i in model.graph.input if i.name not in frozen]
        del model.graph.input[:]
        model.graph.input.extend(keep)
    with tempfile.TemporaryDirectory(prefix="dspc-onnx-") as tmp:
        path = os.path.join(tmp, name + ".onnx")
        onnx.save(model, path)
        emitted = subprocess.run([dspc, path, "--emit=dsp", "--target", target], capture_output=True, text=True,
                                 timeout=timeout)
        if emitted.returncode != 0:
            result["status"] = "error"
            result["why"] = first_error(emitted)
            return result
        ins, outs, renamed = signature(emitted.stdout)
        cmd = [dspc, "run", path, "--target", target, "--timeout", str(timeout)]
        declared = {n: shape for n, _, shape in ins}
        for onnx_name in graph_inputs:
            dname = renamed.get(onnx_name, onnx_name)
            if onnx_name in frozen or dname not in declared:
                continue  # a constant now, or not read by the compiled graph
            f = os.path.join(tmp, "in_%s.npy" % dname)
            value = np.ascontiguousarray(values[onnx_name])
            if value.dtype == np.float16:  # dspc holds float16 as its bits
                value = value.view(np.uint16)
            np.save(f, value.reshape(declared[dname]))
            cmd += ["--input", "%s=%s" % (dname, f)]
        for dname, _, _ in outs:
            cmd += ["--output", "%s=%s" % (dname, os.path.join(tmp, "out_%s.npy" % dname))]
        ran = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
        if ran.returncode != 0:
            result["status"] = "error"
            result["why"] = first_error(ran)
            return result
        for (dname, _, shape), want in zip(outs, expected):
            got = np.load(os.path.join(tmp, "out_%s.npy" % dname))
            want = np.asarray(want)
            if got.size != want.size:
                result["status"] = "fail"
                result["why"] = "%s: %d elements, expected %d" % (dname, got.size, want.size)
                return result
            got = got.reshape(want.shape)
            if want.dtype == np.float16 and got.dtype == np.uint16:
                got = got.view(np.float16)
            if want.dtype.kind == "f":
                ok = np.allclose(got, want, rtol=1e-3, atol=1e-7, equal_nan=True)
            else:
                ok = np.array_equal(got, want.astype(got.dtype))
            if not ok:
                bad = int(np.sum(~np.isclose(got, want, rtol=1e-3, atol=1e-7, equal_nan=True))) if want.dtype.kind == "f" \
                    else int(np.sum(got != want))
                result["status"] = "fail"
                result["why"] = "%s: %d of %d elements differ" % (dname, bad, want.size)
                return result
    result["status"] = "pass"
    return result


def write_table(results, path, target):
    per_op = {}
    for r in results:
        for op in r["ops"]:
            p = per_op.setdefault(op, [0, 0, 0])
            p[2] += 1
            if r["applicable"]:
                p[1] += 1
                p[0] += r["status"] == "pass"
    lines = ["| operator | passed | applicable | node tests |", "|---|---|---|---|"]
    for op in sorted(per_op):
        p = per_op[op]
        if p[1]:
            lines.append("| %s | %d | %d | %d |" % (op, p[0], p[1], p[2]))
    passed = sum(r["status"] == "pass" for r in results)
    applicable = sum(r["applicable"] for r in results)
    lines.append("")
    lines.append("%s: %d passed / %d applicable / %d node tests." % (target, passed, applicable, len(results)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--target", default="host")
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--only", default="")
    ap.add_argument("--sample", action="store_true")
    ap.add_argument("--shard", default="", help="K/N: the K-th of N equal parts (1-based)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--table", default="")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.shard and not os.environ.get("DSPC_ONNX_FULL"):
        print("skipped: the full node-test run needs DSPC_ONNX_FULL=1 (ctest -L onnx-full)")
        return 77
    names = sorted(d for d in os.listdir(args.data) if os.path.isfile(os.path.join(args.data, d, "model.onnx")))
    if args.sample:
        names = [n for n in SAMPLE if n in names]
    if args.only:
        names = [n for n in args.only.split(",") if n]
    if args.shard:
        k, n = (int(x) for x in args.shard.split("/"))
        names = names[k - 1::n]
    supported = supported_ops(args.dspc)
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {}
        for name in names:
            folder = os.path.join(args.data, name)
            futures[pool.submit(run_test, args.dspc, args.target, folder, supported, args.timeout)] = name
        for fut in concurrent.futures.as_completed(futures):
            try:
                r = fut.result()
            except Exception as e:  # a test the harness cannot read (a model onnx rejects)
                r = {"name": futures[fut], "ops": [], "applicable": False, "status": "error", "why": str(e),
                     "not_applicable": "the harness cannot read its data (%s)" % str(e).split("\n")[0][:100]}
            results.append(r)
    results.sort(key=lambda r: r["name"])
    failed = 0
    for r in results:
        if r["applicable"] and r["status"] != "pass":
            failed += 1
            print("FAIL %s (%s): %s" % (r["name"], ", ".join(r["ops"]), r["why"]))
        elif args.verbose:
            print("%s %s%s" % (r["status"].upper(), r["name"], "" if r["applicable"] else " (not applicable: %s)" % r.get("not_applicable", "")))
    passed = sum(r["status"] == "pass" for r in results)
    applicable = sum(r["applicable"] for r in results)
    print("%s: %d passed / %d applicable / %d node tests" % (args.target, passed, applicable, len(results)))
    if args.table:
        write_table(results, args.table, args.target)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
