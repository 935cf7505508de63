#!/usr/bin/env python3
"""Checks that no #include in dspc's compiler runs upward through its layers.

  check-layers.py [--root DIR]     check the tree at DIR (default: this script's repository)
  check-layers.py --self-test      check tests/layers/fixture, which breaks every rule once,
                                   and compare the report with its expected.txt

The layers and the arrows between them are read from the `dspc_add_layer(NAME DIR FOLDER
DEPENDS ...)` calls in the tree's CMakeLists.txt files, the same calls that build one static
library per layer, so the build and this check cannot disagree about the rules:

  driver -> {codegen, passes} -> {frontend, interp} -> ir -> targets

For every .h/.c/.cpp file inside a layer's folder, each `#include "..."` that names a file of
the tree must name a file of the same layer or of a layer it depends on (directly or not).
Also:
  - project headers are included by their path from the source root ("compiler/ir/IR.h"),
    never relative to the including file, so that the build's include roots apply;
  - a C++ file under compiler/ must sit in a layer's folder;
  - LLVM and Clang headers (<llvm/...>, <clang/...>, <lld/...>) are included only by layers
    that declare LLVM_HEADERS in their dspc_add_layer call (today codegen and driver);
  - runtime-support/ stands apart: a layer may include it only from a folder that is itself a
    layer (runtime-support/common, the format code both sides share), and runtime-support's
    own files include no compiler layer;
  - no project include goes through '..', and <...> naming a folder of the tree counts as a
    project include: a layer's include root is a link, so the compiler would follow '..' out
    of it, and only this check refuses that;
  - the literal 128 (HVX's vector bytes, the buffer alignment) appears in a compiler layer's
    code only in targets/ (Targets.def) and in the HVX idiom table (codegen/HvxIdioms.*):
    everywhere else such facts come from the Target. Comments and strings do not count; a
    128 that is no target fact says so on its line (`// not a target fact: ...`).
Exits 0 when the tree is clean, 1 with one line per violation otherwise, 2 on bad usage.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

LAYER_CALL = re.compile(r"dspc_add_layer\(\s*([A-Za-z0-9_]+)([^)]*)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SYSTEM_LLVM = ("llvm/", "llvm-c/", "clang/", "lld/")
SOURCE_EXT = (".h", ".hpp", ".c", ".cc", ".cpp", ".def", ".inc")
LITERAL_128 = re.compile(r"(?<![A-Za-z0-9_.'])128(?![A-Za-z0-9_.'])")
CODE_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def code_only(text):
    """`text` with its comments, strings and character literals blanked (newlines kept)."""
    return CODE_TOKENS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def strip_cmake_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def read_layers(root):
    """{name: {"dir": folder, "deps": [names], "llvm": bool}} from every CMakeLists.txt."""
    layers = {}
    for dirpath, dirnames, filenames in os.walk(root):
        # tests/ defines no layers (its fixture for this script's self-test is checked apart).
        skip = {"build", "tests"} if os.path.samefile(dirpath, root) else set()
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build-")) and d not in skip]
        if "CMakeLists.txt" not in filenames:
            continue
        with open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8") as f:
            text = strip_cmake_comments(f.read())
        for m in LAYER_CALL.finditer(text):
            name, args = m.group(1), m.group(2).split()
            if name == "name":  # the function's own definition
                continue
            layer = {"dir": None, "deps": [], "llvm": False}
            key = None
            for a in args:
                if a in ("DIR", "DEPENDS", "EXCLUDE"):
                    key = a
                elif a == "LLVM_HEADERS":
                    layer["llvm"] = True
                    key = None
                elif key == "DIR":
                    layer["dir"] = a.strip('"')
                    key = None
                elif key == "DEPENDS":
                    layer["deps"].append(a)
            if layer["dir"] is None:
                continue
            layers[name] = layer
    return layers


def closure(layers):
    """{name: set of layers it may include}: itself and everything below it."""
    allowed = {}

    def visit(name, stack):
        if name in allowed:
            return allowed[name]
        if name in stack:
            raise SystemExit("check-layers: error: the layers depend on each other in a cycle: " +
                             " -> ".join(stack + [name]))
        out = {name}
        for dep in layers[name]["deps"]:
            if dep not in layers:
                raise SystemExit(f"check-layers: error: layer '{name}' depends on unknown layer '{dep}'")
            out |= visit(dep, stack + [name])
        allowed[name] = out
        return out

    for name in layers:
        visit(name, [])
    return allowed


def owner(path, layers):
    """The layer whose folder holds `path` (relative to the root), deepest folder first."""
    best = None
    for name, layer in layers.items():
        d = layer["dir"].rstrip("/") + "/"
        if path.startswith(d) and (best is None or len(d) > len(layers[best]["dir"]) + 1):
            best = name
    return best


def check(root):
    layers = read_layers(root)
    if not layers:
        return [f"{root}: no dspc_add_layer() calls found in any CMakeLists.txt"]
    allowed = closure(layers)
    problems = []
    scanned = [layers[n]["dir"] for n in layers] + ["compiler", "runtime-support"]
    seen = set()
    for top in scanned:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith(SOURCE_EXT):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, fn), root)
                if rel in seen:
                    continue
                seen.add(rel)
                problems += check_file(root, rel, layers, allowed)
    return problems


def resolve(root, rel, name):
    """(path from the root, found beside the includer?) of a project header, or (None, False)."""
    from_root = os.path.normpath(name)
    beside = os.path.normpath(os.path.join(os.path.dirname(rel), name))
    if os.path.isfile(os.path.join(root, from_root)):
        return from_root, False
    if os.path.isfile(os.path.join(root, beside)):
        return beside, True
    return None, False


def check_file(root, rel, layers, allowed):
    layer = owner(rel, layers)
    if layer is None and rel.startswith("compiler/"):
        return [f"{rel}: not in any layer's folder (compiler/ holds only layer folders)"]
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    problems = []
    if layer is not None and not layers[layer]["dir"].startswith(("runtime-support/", "targets")) \
            and not os.path.basename(rel).startswith("HvxIdioms."):
        lines = text.splitlines()
        for n, code in enumerate(code_only(text).splitlines(), 1):
            if LITERAL_128.search(code) and "not a target fact" not in lines[n - 1]:
                problems.append(f"{rel}:{n}: the literal 128 outside targets/ and the HVX idiom table; "
                                "read the target fact from the Target (targets/Targets.def)")
    for m in INCLUDE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        kind, name = m.group(1), m.group(2)
        where = f"{rel}:{line}"
        first = name.split("/", 1)[0]
        names_tree = "/" in name and first not in (".", "..") and os.path.isdir(os.path.join(root, first))
        if kind == "<" and not names_tree:
            if layer is not None and name.startswith(SYSTEM_LLVM) and not layers[layer]["llvm"]:
                problems.append(f"{where}: layer '{layer}' includes LLVM header <{name}>; "
                                "LLVM headers stay in layers declared with LLVM_HEADERS")
            continue
        if ".." in name.split("/"):
            # A symlinked include root resolves '..' in the source tree, so the build cannot
            # refuse it: this check is what does.
            problems.append(f"{where}: includes \"{name}\" through '..'; "
                            "write its path from the source root")
        target, beside = resolve(root, rel, name)
        if target is None:
            if names_tree:
                problems.append(f"{where}: includes \"{name}\", which does not exist")
            continue  # a generated or system header
        if layer is None:
            # runtime-support stands apart: its own files reach no compiler layer.
            to = owner(target, layers)
            if to is not None and not layers[to]["dir"].startswith("runtime-support/"):
                problems.append(f"{where}: runtime-support includes \"{name}\" of layer '{to}'; "
                                "runtime-support stands apart from the compiler")
            continue
        if beside:
            # Found only next to the includer: the build's include roots would not find it
            # the same way, and it hides which layer it reaches.
            problems.append(f"{where}: includes \"{name}\" relative to itself; "
                            f"write its path from the source root (\"{target}\")")
        to = owner(target, layers)
        if to is None:
            problems.append(f"{where}: layer '{layer}' includes \"{name}\", which is in no layer "
                            "(runtime-support is reached only through its layer folders)")
            continue
        if to not in allowed[layer]:
            problems.append(f"{where}: layer '{layer}' includes \"{name}\" of layer '{to}', "
                            f"which is not below it (it may include: {', '.join(sorted(allowed[layer]))})")
    return problems


def self_test(fixture):
    """The check must report exactly the violations the fixture was built with: a check that
    finds nothing there is broken, however clean the real tree looks."""
    with open(os.path.join(fixture, "expected.txt"), encoding="utf-8") as f:
        want = [l for l in f.read().splitlines() if l and not l.startswith("#")]
    got = check(fixture)
    if got == want:
        print(f"check-layers: self-test passed ({len(want)} violations found as expected)")
        return 0
    print("check-layers: self-test FAILED", file=sys.stderr)
    for line in want:
        if line not in got:
            print(f"  missed:     {line}", file=sys.stderr)
    for line in got:
        if line not in want:
            print(f"  unexpected: {line}", file=sys.stderr)
    if sorted(got) == sorted(want):
        print("  (same lines, different order)", file=sys.stderr)
    return 1


def injected_test(root):
    """On a copy of the real tree, one upward include added to the IR must be the one problem."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "tree")
        shutil.copytree(root, tree, ignore=shutil.ignore_patterns(".git", "build", "build-*", "tests", "examples"))
        victim = os.path.join(tree, "compiler", "ir", "IR.h")
        with open(victim, "a", encoding="utf-8") as f:
            f.write('#include "driver/Lower.h"\n')
        got = check(tree)
        if len(got) == 1 and "layer 'ir' includes \"driver/Lower.h\" of layer 'driver'" in got[0]:
            print("check-layers: an upward include injected into compiler/ir/IR.h is caught")
            return 0
        print("check-layers: self-test FAILED on the injected include; the report was:", file=sys.stderr)
        for line in got or ["(nothing)"]:
            print("  " + line, file=sys.stderr)
        return 1


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here), help="the source tree to check")
    ap.add_argument("--self-test", action="store_true", help="check the fixture tree instead")
    a = ap.parse_args()
    if a.self_test:
        repo = os.path.dirname(here)
        return self_test(os.path.join(repo, "tests", "layers", "fixture")) or injected_test(repo)
    if not os.path.isdir(a.root):
        print(f"check-layers: error: no such directory '{a.root}'", file=sys.stderr)
        return 2
    problems = check(a.root)
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    layers = read_layers(a.root)
    print(f"check-layers: {len(layers)} layers, no include runs upward")
    return 0


if __name__ == "__main__":
    sys.exit(main())
