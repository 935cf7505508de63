"""Shared by the ONNX script tests (tests/onnx/*_test.py): their command line and one model run
through `dspc run` on .npy files.

Every script takes `--dspc`, `--target` (host or hexagon-v68) and `--work-dir`; `run_model`
saves the inputs next to the model, runs it, and reads the outputs back.
"""
import argparse
import os
import subprocess

import numpy as np


def script_args(doc):
    """The scripts' common options; the work directory exists on return."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dspc", required=True)
    ap.add_argument("--target", default="host")
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    return args


def run_model(dspc, model, target, work, inputs, outputs, prefix="", timeout=900):
    """`dspc run MODEL --target TARGET` with each of `inputs` (name -> array) from
    WORK/PREFIXname.npy (float16 as its bits, which is how dspc reads f16) and each name in
    `outputs` written to WORK/PREFIXout_name.npy. Returns (name -> array, None) when the run
    succeeds, else (None, the end of its stderr)."""
    cmd = [dspc, "run", model, "--target", target]
    for name, value in inputs.items():
        path = os.path.join(work, "%s%s.npy" % (prefix, name))
        np.save(path, value.view(np.uint16) if value.dtype == np.float16 else value)
        cmd += ["--input", "%s=%s" % (name, path)]
    files = {name: os.path.join(work, "%sout_%s.npy" % (prefix, name)) for name in outputs}
    for name, path in files.items():
        cmd += ["--output", "%s=%s" % (name, path)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "dspc run did not finish in %d s: %s" % (timeout, " ".join(cmd))
    if r.returncode != 0:
        return None, "dspc run failed (exit %d):\n%s" % (r.returncode, r.stderr.strip()[-2000:])
    return {name: np.load(path) for name, path in files.items()}, None
