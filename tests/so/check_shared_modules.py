#!/usr/bin/env python3
"""Builds shared modules with `dspc --emit=so` and checks what a loader relies on.

  check_shared_modules.py --dspc DSPC --readelf LLVM-READELF --nm LLVM-NM --target T --work-dir DIR

For each module (VTCM stages, integer division, float arithmetic, the workspace):
  - it is an ELF shared object (type DYN);
  - its dynamic relocations are only RELATIVE, GLOB_DAT and JUMP_SLOT (on Hexagon:
    R_HEX_RELATIVE, R_HEX_GLOB_DAT, R_HEX_JMP_SLOT, all the device loader accepts);
  - its undefined symbols are runtime-support's exports that generated code calls (README,
    "Shared modules"), and the ones the kernel needs are among them;
  - compiler helpers (__hexagon_divsi3, ...) are resolved inside the module, hidden;
  - it exports each kernel f, its checked entry __dspc_call_f, __dspc_funcs and
    __dspc_num_funcs with default visibility;
  - its description OUT.so.json lists the functions, their entries (exported), parameters
    and VTCM bytes (README, "The module description").
"""
import argparse
import json
import os
import re
import subprocess
import sys

IMPORTS = {"HexagonBackendAllocateVTCM", "HexagonBackendFreeVTCM", "DspcWorkspaceAlloc",
           "DspcWorkspaceFree", "dspc_report_bad_arg"}
RELOCS = {
    "hexagon": {"R_HEX_RELATIVE", "R_HEX_GLOB_DAT", "R_HEX_JMP_SLOT"},
    "host": {"R_X86_64_RELATIVE", "R_X86_64_GLOB_DAT", "R_X86_64_JUMP_SLOT"},
}

# (source relative to the repository, extra flags, functions, imports it must have, helpers it
# must hold inside on Hexagon, VTCM bytes per function)
MODULES = [
    ("examples/alloc_vtcm.dsp", [], ["alloc_vtcm"],
     {"HexagonBackendAllocateVTCM", "HexagonBackendFreeVTCM", "dspc_report_bad_arg"}, [], [4096]),
    ("tests/so/divide.dsp", [], ["divide"], {"dspc_report_bad_arg"},
     ["__hexagon_divsi3", "__hexagon_moddi3"], [0]),
    ("tests/so/floats.dsp", [], ["floats"], {"dspc_report_bad_arg"}, ["__hexagon_divdf3"], [0]),
    ("tests/so/workspace.dsp", ["--no-auto-schedule"], ["workspace"],
     {"DspcWorkspaceAlloc", "DspcWorkspaceFree", "dspc_report_bad_arg"}, [], [0]),
    ("tests/so/two_funcs.dsp", [], ["first", "second"], {"dspc_report_bad_arg"}, [], [0, 0]),
    ("tests/so/vtcm2d.dsp", [], ["vtcm2d"],
     {"HexagonBackendAllocateVTCM", "HexagonBackendFreeVTCM", "dspc_report_bad_arg"}, [],
     [4 * 64 * 4 + 2048 - 4 * 64 * 4 + 4 * 64 * 2]),  # plan-vtcm: U at 0, T at the next 2048 boundary
    ("tests/so/vtcm2d.dsp", ["--no-vtcm-plan"], ["vtcm2d"],
     {"HexagonBackendAllocateVTCM", "HexagonBackendFreeVTCM", "dspc_report_bad_arg"}, [], [4 * 64 * 2 + 4 * 64 * 4]),
]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


def check_module(args, src, flags, funcs, imports, helpers, vtcm, errors):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    name = os.path.splitext(os.path.basename(src))[0]
    out = os.path.join(args.work_dir, f"{name}-{args.target}.so")
    run([args.dspc, os.path.join(root, src), f"--target={args.target}", "--emit=so", "-o", out] + flags)
    where = f"{src}{' ' if flags else ''}{' '.join(flags)} ({args.target})"
    header = run([args.readelf, "-h", out])
    if not re.search(r"Type:\s+DYN", header):
        errors.append(f"{where}: not a shared object")
    kind = "host" if args.target == "host" else "hexagon"
    relocs = set(re.findall(r"\b(R_(?:HEX|X86_64)_[A-Z0-9_]+)\b", run([args.readelf, "-r", out])))
    bad = relocs - RELOCS[kind]
    if bad:
        errors.append(f"{where}: dynamic relocations outside {sorted(RELOCS[kind])}: {sorted(bad)}")
    undefined, exported = set(), {}
    for line in run([args.readelf, "--dyn-syms", "-W", out]).splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].rstrip(":").isdigit() or f[4] == "LOCAL":
            continue
        if f[6] == "UND":
            undefined.add(f[7])
        else:
            exported[f[7]] = (f[3], f[5])
    if undefined - IMPORTS:
        errors.append(f"{where}: imports symbols runtime-support does not export: {sorted(undefined - IMPORTS)}")
    if imports - undefined:
        errors.append(f"{where}: does not import {sorted(imports - undefined)}")
    for sym in [s for fn in funcs for s in (fn, "__dspc_call_" + fn)] + ["__dspc_funcs", "__dspc_num_funcs"]:
        if sym not in exported:
            errors.append(f"{where}: does not export {sym}")
        elif exported[sym][1] != "DEFAULT":
            errors.append(f"{where}: {sym} has visibility {exported[sym][1]}")
    if kind == "hexagon":
        local = {l.split()[-1] for l in run([args.nm, out]).splitlines() if l.split()[-2:-1] == ["t"]}
        for h in helpers:
            if h not in local:
                errors.append(f"{where}: compiler helper {h} is not a local symbol of the module")
            if h in exported:
                errors.append(f"{where}: exports compiler helper {h}")
    check_json(out, where, funcs, vtcm, exported, errors)
    print(f"{where}: {len(relocs)} relocation kinds {sorted(relocs)}, imports {sorted(undefined)}")


def check_json(out, where, funcs, vtcm, exported, errors):
    try:
        with open(out + ".json") as f:
            desc = json.load(f)
    except (OSError, ValueError) as e:
        errors.append(f"{where}: no readable description {out}.json: {e}")
        return
    if desc.get("format") != "dspc-module" or desc.get("version") != 1:
        errors.append(f"{where}: description has format {desc.get('format')} version {desc.get('version')}")
    if desc.get("module") != os.path.basename(out):
        errors.append(f"{where}: description names module {desc.get('module')}")
    got = [(f["name"], f["entry"], f["vtcm_bytes"]) for f in desc.get("functions", [])]
    want = [(fn, "__dspc_call_" + fn, v) for fn, v in zip(funcs, vtcm)]
    if got != want:
        errors.append(f"{where}: description lists {got}, expected {want}")
    for f in desc.get("functions", []):
        if f["entry"] not in exported:
            errors.append(f"{where}: description's entry {f['entry']} is not exported")
        for p in f["params"]:
            if set(p) != {"name", "dtype", "shape", "is_output"}:
                errors.append(f"{where}: parameter fields {sorted(p)}")
        outs = [p["is_output"] for p in f["params"]]
        if outs != sorted(outs) or True not in outs:
            errors.append(f"{where}: {f['name']}: parameters are not inputs then results: {outs}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dspc", required=True)
    p.add_argument("--readelf", required=True)
    p.add_argument("--nm", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--work-dir", required=True)
    args = p.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    errors = []
    for src, flags, funcs, imports, helpers, vtcm in MODULES:
        check_module(args, src, flags, funcs, imports, helpers, vtcm, errors)
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
