#!/usr/bin/env python3
"""Install and package tests (README "Installing dspc", "Using dspc from CMake").

  install_test.py prefix  ...  installs the build to WORK/stage with `cmake --install`, moves it
                               to WORK/prefix, checks that nothing installed names the source or
                               build tree, runs the moved dspc (a linked program and a session on
                               qemu-hexagon), then configures, builds and runs a copy of
                               examples/cmake-project against it (find_package(dspc))
  install_test.py makefiles ... (after `prefix`): the same example with CMake's default
                               generator, Unix Makefiles, against the same prefix
  install_test.py rebuild ...  in that example's build (after `prefix`): touching one .dsp
                               re-runs only the commands that depend on it, and touching the
                               runtime-support library that dspc's depfiles name re-links only
                               the modules that link it
  install_test.py deb     ...  `cpack -G DEB`, checks the package's dependencies resolve here
                               (apt-get --simulate), unpacks it with dpkg -x (never installed
                               into this machine), and runs the demo and the example from it
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd=None, expect=0, capture=True, env=None):
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, cwd=cwd, text=True, env=env,
                       stdout=subprocess.PIPE if capture else None, stderr=subprocess.STDOUT if capture else None)
    if capture:
        sys.stdout.write(r.stdout)
    if expect is not None and r.returncode != expect:
        fail(f"{cmd[0]} exited with {r.returncode}, expected {expect}")
    return r.stdout if capture else ""


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print(f"ok: {msg}", flush=True)


def no_tree_paths(prefix, trees, objcopy):
    """No installed file names the source or build tree, debug info aside."""
    for root, _, files in os.walk(prefix):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            if data[:4] == b"\x7fELF" or data[:8] == b"!<arch>\n":
                with tempfile.NamedTemporaryFile() as t:
                    subprocess.run([objcopy, "--strip-debug", path, t.name], check=True)
                    data = open(t.name, "rb").read()
            for tree in trees:
                if tree.encode() in data:
                    fail(f"{path} names {tree}")
    print(f"ok: nothing under {prefix} names {' or '.join(trees)}", flush=True)


def example_paths(work):
    return os.path.join(work, "examples"), os.path.join(work, "example-build")


def build_example(a, prefix, src, build, generator="Ninja"):
    """Configures, builds and runs examples/cmake-project (a copy) against `prefix`."""
    shutil.rmtree(build, ignore_errors=True)
    tool = [f"-DCMAKE_MAKE_PROGRAM={a.ninja}"] if generator == "Ninja" else []
    run([a.cmake, "-S", os.path.join(src, "cmake-project"), "-B", build, "-G", generator, *tool,
         f"-DCMAKE_CXX_COMPILER={a.cxx}", f"-DCMAKE_PREFIX_PATH={prefix}"])
    out = run([a.cmake, "--build", build, "-j", "2"])
    check("dspc alloc_vtcm.dsp -> alloc_vtcm.so (hexagon-v68)" in out, "the build ran dspc_add_kernels' commands")
    out = run([os.path.join(build, "app")])
    for line in ["conv3x3 on the host (an object, called directly): matches the reference: 262144/262144",
                 "alloc_vtcm on hexagon-v68 (a module in a dspc::Session): matches the reference: 2048/2048",
                 "dense on hexagon-v68 (a module in a dspc::Session): matches the reference: 8192/8192",
                 "all checks passed"]:
        check(line in out, f"the example printed '{line}'")


def copy_examples(a, dest):
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(os.path.join(a.source_dir, "examples"), dest,
                    ignore=shutil.ignore_patterns("session"))


def demo(a, dspc, examples):
    kernel = os.path.join(examples, "alloc_vtcm.dsp")
    for extra in ([], ["--session"]):
        out = run([dspc, "run", kernel, "--random-inputs", "--check"] + extra)
        check("check: C matches the reference interpreter (2048 elements)" in out,
              f"{dspc} run {' '.join(extra)} ran alloc_vtcm on qemu-hexagon")


def imports_library(a, dspc, work):
    """The installed dspc finds the op library (share/dspc/schedules) for `import "nn"`."""
    net = os.path.join(work, "user_net.dsp")  # away from the source tree's schedules/
    shutil.copy(os.path.join(a.source_dir, "tests", "e2e", "oplib", "user_net.dsp"), net)
    out = run([dspc, "run", net, "--target=host", "--random-inputs", "--check"])
    check("check: cls matches the reference interpreter" in out, f"{dspc} imports nn from the installed library")


def cmd_prefix(a):
    work = a.work_dir
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    stage, prefix = os.path.join(work, "stage"), os.path.join(work, "prefix")
    run([a.cmake, "--install", a.build_dir, "--prefix", stage])
    os.rename(stage, prefix)  # the prefix moves: nothing may remember where it was installed
    for f in ["bin/dspc", "lib/libdspc_host.so", "include/dspc/host.h", "include/dspc/dspc_runtime.h",
              "lib/dspc/device-server/dspc_server", "lib/dspc/host/libdspc_rt.a",
              "lib/dspc/hexagon-v68/libdspc_rt.a", "lib/dspc/hexagon-v68/libdspc_builtins.a",
              "lib/cmake/dspc/dspcConfig.cmake", "lib/cmake/dspc/dspcConfigVersion.cmake",
              "lib/cmake/dspc/dspcTargets.cmake", "lib/cmake/dspc/dspcKernels.cmake",
              "share/dspc/schedules/nn.dsp", "share/dspc/schedules/elementwise.dsp",
              "share/dspc/schedules/image.dsp"]:
        check(os.path.isfile(os.path.join(prefix, f)), f"installed {f}")
    no_tree_paths(prefix, [a.source_dir, a.build_dir, stage], a.objcopy)
    src, build = example_paths(work)
    copy_examples(a, src)
    dspc = os.path.join(prefix, "bin", "dspc")
    run([dspc, "--version"])
    demo(a, dspc, src)
    imports_library(a, dspc, work)
    bad_calls(a, prefix, work)
    per_source_flags(a, prefix, work)
    build_example(a, prefix, src, build)


def bad_calls(a, prefix, work):
    """Misused dspc_add_kernels calls fail at configure time with a clear message."""
    cases = [
        ("DSP_TARGET hexagon-v99", "unknown DSP_TARGET 'hexagon-v99' (hexagon-v65"),
        ("DSP_TARGET host EMIT exe", "EMIT must be so or obj, not 'exe'"),
        ("DSP_TARGET host BOGUS x", "unexpected arguments: BOGUS x"),
        ("SOURCES_MISSING", "SOURCES is required (one or more .dsp files)"),
    ]
    for i, (call, message) in enumerate(cases):
        d = os.path.join(work, f"bad{i}")
        os.makedirs(d)
        sources = "" if call == "SOURCES_MISSING" else "SOURCES k.dsp"
        call = "" if call == "SOURCES_MISSING" else call
        with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES NONE)\n"
                    f"find_package(dspc REQUIRED)\ndspc_add_kernels(TARGET k {sources} {call})\n")
        out = run([a.cmake, "-S", d, "-B", os.path.join(d, "b"), f"-DCMAKE_PREFIX_PATH={prefix}"], expect=None)
        check("CMake Error" in out and message in out, f"dspc_add_kernels({call or 'no SOURCES'}) fails: {message}")


def per_source_flags(a, prefix, work):
    """dspc_add_kernels' FLAGS go to every source, a source's DSPC_FLAGS property to it alone:
    gen.dsp holds only a generic func, which --func='scale<4>' instantiates; plain.dsp has no
    generic func, so the same --func for it would be an error."""
    d = os.path.join(work, "per-source-flags")
    os.makedirs(d)
    files = {
        "gen.dsp": "func scale<N>(A: u8[N]) -> (B: u8[N]) {\n  B[i] = A[i] * 2\n}\n",
        "plain.dsp": "func plain(A: u8[8]) -> (B: u8[8]) {\n  B[i] = A[i] + 1\n}\n",
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(flags LANGUAGES NONE)\n"
                          "find_package(dspc REQUIRED)\n"
                          "set_source_files_properties(gen.dsp PROPERTIES DSPC_FLAGS \"--func=scale<4>;-O3\")\n"
                          "dspc_add_kernels(TARGET k SOURCES gen.dsp plain.dsp DSP_TARGET host EMIT obj FLAGS -O1)\n",
    }
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    build = os.path.join(d, "b")
    run([a.cmake, "-S", d, "-B", build, "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={a.ninja}", f"-DCMAKE_PREFIX_PATH={prefix}"])
    out = run([a.cmake, "--build", build, "--target", "k", "-v"])
    with open(os.path.join(build, "k", "include", "gen.h")) as f:
        check("scale_4(" in f.read(), "gen.dsp was compiled with its own --func='scale<4>'")
    with open(os.path.join(build, "k", "include", "plain.h")) as f:
        check("plain(" in f.read(), "plain.dsp was compiled without it")
    gen_cmds = [l for l in out.splitlines() if "gen.dsp" in l and "--emit=obj" in l]
    plain_cmds = [l for l in out.splitlines() if "plain.dsp" in l and "--emit=obj" in l]
    check(gen_cmds and "-O1" in gen_cmds[0] and gen_cmds[0].index("-O1") < gen_cmds[0].index("-O3"),
          f"gen.dsp's command has FLAGS, then its DSPC_FLAGS: {gen_cmds}")
    check(plain_cmds and "-O1" in plain_cmds[0] and "--func" not in plain_cmds[0] and "-O3" not in plain_cmds[0],
          f"plain.dsp's command has FLAGS only: {plain_cmds}")


def mtimes(build):
    out = {}
    for root, _, files in os.walk(build):
        if "CMakeFiles" in root.split(os.sep) and not root.endswith("app.dir"):
            continue
        for name in files:
            if name.startswith(".ninja") or name.endswith(".d"):
                continue
            p = os.path.join(root, name)
            out[os.path.relpath(p, build)] = os.stat(p).st_mtime_ns
    return out


def rebuilt_after(a, build, touch):
    before = mtimes(build)
    for path in touch:
        os.utime(path)  # now: newer than every output
    run([a.ninja, "-C", build, "-d", "explain"])
    after = mtimes(build)
    return sorted(p for p in after if after[p] != before.get(p))


def cmd_rebuild(a):
    src, build = example_paths(a.work_dir)
    prefix = os.path.join(a.work_dir, "prefix")
    if not os.path.isfile(os.path.join(build, "app")):
        fail(f"no example build at {build}: run the 'prefix' test first")
    out = run([a.ninja, "-C", build])
    check("no work to do" in out, "an up-to-date build does nothing")
    changed = rebuilt_after(a, build, [os.path.join(src, "dense.dsp")])
    check(changed == ["dsp_kernels/dense.so", "dsp_kernels/dense.so.json", "dsp_kernels/include/dense.h"],
          f"touching dense.dsp rebuilt dense's module and header only: {changed}")
    changed = rebuilt_after(a, build, [os.path.join(src, "conv3x3.dsp")])
    check(changed == ["CMakeFiles/app.dir/main.cpp.o", "app", "host_kernels/conv3x3.o", "host_kernels/include/conv3x3.h"],
          f"touching conv3x3.dsp rebuilt its object and header, and the program that includes and links them: {changed}")
    # Only dspc's depfiles name the runtime-support library a module links (dspc_add_kernels
    # does not): the rebuild below proves CMake hands them to Ninja.
    builtins = os.path.join(prefix, "lib", "dspc", "hexagon-v68", "libdspc_builtins.a")
    with open(os.path.join(build, "dsp_kernels", "dense.so.d")) as f:
        check(builtins in f.read(), "dense.so's depfile names libdspc_builtins.a")
    with open(os.path.join(build, "build.ninja")) as f:
        check("libdspc_builtins.a" not in f.read(), "build.ninja does not")
    changed = rebuilt_after(a, build, [builtins])
    check(changed == ["dsp_kernels/alloc_vtcm.so", "dsp_kernels/alloc_vtcm.so.json",
                      "dsp_kernels/dense.so", "dsp_kernels/dense.so.json"],
          f"touching libdspc_builtins.a re-linked the Hexagon modules only: {changed}")
    out = run([a.ninja, "-C", build])
    check("no work to do" in out, "and then the build is up to date")
    out = run([os.path.join(build, "app")])
    check("all checks passed" in out, "the rebuilt example still passes")


def cmd_makefiles(a):
    src = example_paths(a.work_dir)[0]
    prefix = os.path.join(a.work_dir, "prefix")
    if not os.path.isfile(os.path.join(prefix, "bin", "dspc")):
        fail(f"no installed dspc in {prefix}: run the 'prefix' test first")
    build_example(a, prefix, src, os.path.join(a.work_dir, "example-build-make"), "Unix Makefiles")


def cmd_deb(a):
    work = a.work_dir
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    run([a.cpack, "--config", os.path.join(a.build_dir, "CPackConfig.cmake"), "-G", "DEB", "-B", work], cwd=work)
    debs = [f for f in os.listdir(work) if f.endswith(".deb")]
    check(len(debs) == 1, f"cpack made one .deb: {debs}")
    deb = os.path.join(work, debs[0])
    info = run(["dpkg-deb", "--field", deb, "Package", "Version", "Depends"])
    check("qemu-user" in info and "libclang-common-19-dev" in info,
          "the package depends on qemu-user and libclang-common-19-dev (Clang's resource headers)")
    # libllvm19 exactly when the packaged dspc loads libLLVM (DSPC_LLVM_STATIC=OFF).
    shared_llvm = "libLLVM" in run(["ldd", os.path.join(a.build_dir, "dspc")])
    check(("libllvm19" in info) == shared_llvm,
          f"the package depends on libllvm19 {'as' if shared_llvm else 'only if'} dspc loads libLLVM")
    out = run(["apt-get", "--simulate", "--no-install-recommends", "install", deb], expect=None)
    check("Inst dspc" in out or "Conf dspc" in out, "apt-get would install it here: its dependencies resolve")
    root = os.path.join(work, "root")
    run(["dpkg-deb", "-x", deb, root])  # a .deb's files, without touching this machine's /usr
    contents = run(["dpkg-deb", "-c", deb])
    check("./usr/bin/dspc" in contents and "./usr/lib/cmake/dspc/dspcConfig.cmake" in contents,
          "the package holds /usr/bin/dspc and the CMake package")
    prefix = os.path.join(root, "usr")
    no_tree_paths(prefix, [a.source_dir, a.build_dir], a.objcopy)
    src = os.path.join(work, "examples")
    copy_examples(a, src)
    demo(a, os.path.join(prefix, "bin", "dspc"), src)
    build_example(a, prefix, src, os.path.join(work, "example-build"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["prefix", "rebuild", "makefiles", "deb"])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--cpack", required=True)
    ap.add_argument("--ninja", required=True)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--objcopy", required=True)
    a = ap.parse_args()
    for k in ("source_dir", "build_dir", "work_dir"):
        setattr(a, k, os.path.realpath(getattr(a, k)))
    {"prefix": cmd_prefix, "rebuild": cmd_rebuild, "makefiles": cmd_makefiles, "deb": cmd_deb}[a.mode](a)
    print("PASS", flush=True)


if __name__ == "__main__":
    main()
