#!/usr/bin/env python3
"""Checks which of LLVM's backends an executable linked statically against LLVM holds.

    check-linked-backends.py --nm LLVM_NM --lib-dir LLVM_LIB_DIR --exe EXE
                             --linked "Hexagon;X86" --all "AArch64;AMDGPU;...;X86"

A backend is in EXE when a symbol its archives (libLLVM<B>CodeGen.a, <B>Desc.a, <B>Info.a)
define strongly is defined in EXE too. Every backend of --linked must be there, and no other of
--all (LLVM_TARGETS_TO_BUILD): dspc generates code with the backends of targets/Targets.def's
arches only, and codegen/llvm-static/ keeps lld's driver from pulling in the rest (see
"dspc_llvm" in CMakeLists.txt). LLVMInitialize* functions are left out of the comparison, as
the stubs define them. Exit 0 when both hold, 1 otherwise, 2 on bad use.
"""
import argparse
import os
import subprocess
import sys

# Text, data, bss, read-only data; not weak (W, V) or common. In an archive only the global
# ones (upper case) count; an executable turns LLVM's hidden symbols into local ones.
STRONG = set("TDBR")


def defined(nm, path, local_too=False):
    """The names of the symbols PATH defines strongly (an archive: any member)."""
    out = subprocess.run([nm, "--defined-only", "--format=posix", path],
                         check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        # "name type value size"; an archive adds "archive[member]:" header lines
        if len(fields) >= 2 and (fields[1].upper() if local_too else fields[1]) in STRONG:
            names.add(fields[0])
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nm", required=True)
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--exe", required=True)
    ap.add_argument("--linked", required=True, help="backends EXE must hold, ;-separated")
    ap.add_argument("--all", required=True, help="every backend LLVM was built with")
    a = ap.parse_args()
    linked = [b for b in a.linked.split(";") if b]
    every = [b for b in a.all.split(";") if b]
    if not linked or not set(linked) <= set(every):
        print(f"check-linked-backends: --linked {linked} must be a non-empty part of --all {every}")
        return 2
    exe = defined(a.nm, a.exe, local_too=True)
    bad = 0
    for backend in every:
        own = set()
        for part in ("CodeGen", "Desc", "Info"):
            archive = os.path.join(a.lib_dir, f"libLLVM{backend}{part}.a")
            if os.path.exists(archive):
                own |= defined(a.nm, archive)
        own = {s for s in own if not s.startswith("LLVMInitialize")}
        if not own:
            print(f"FAIL: {backend}: no archive of it under {a.lib_dir}")
            bad += 1
            continue
        held = len(own & exe)
        want = backend in linked
        ok = held > 0 if want else held == 0
        print(f"{'ok' if ok else 'FAIL'}: {backend}: {held} of its {len(own)} symbols in "
              f"{os.path.basename(a.exe)} ({'must be linked' if want else 'must not be'})")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
