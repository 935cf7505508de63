# lit configuration of dspc's golden tests (tests/golden/**), run by LLVM 19's own lit.
#
# CMake writes build/tests/golden/lit.site.cfg.py (from lit.site.cfg.py.in) with the paths of
# dspc, LLVM's tools, Python and qemu-hexagon, and that file loads this one. Run the suite, or
# one test, through the build tree's path:
#
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv build/tests/golden
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v build/tests/golden/driver/stdin.dsp
#
# (ctest runs each folder that way, as the test golden/<folder>.)
#
# RUN lines run with bash (`set -o pipefail`, the lines joined with &&), so shell syntax works:
# pipes, `for` loops, `$(...)`, `test $? -eq 1`. Substitutions:
#   %dspc     the dspc under test            %qemu   qemu-hexagon
#   %s, %S    this test file, its folder     %t      a scratch path unique to the test (%t.o, ...)
#   FileCheck, not, count, split-file, llvm-nm, llvm-objdump, clang   LLVM 19's tools
#   python3   the Python that CMake found
# plus lit's own (%T, %p, %%, ...). REQUIRES:, UNSUPPORTED: and XFAIL: work as in LLVM; the
# features are `hexagon` (qemu-hexagon exists) and `host-x86_64`.
import os
import sys

import lit.formats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_tools  # noqa: E402  (the tool list, shared with tools/update-golden.py)

config.name = "dspc-golden"
config.suffixes = [".dsp", ".tir"]
config.excludes = ["Inputs"]
# External shell: bash runs the RUN lines, as developers write them.
config.test_format = lit.formats.ShTest(execute_external=True)
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

if not hasattr(config, "dspc_exe"):
    lit_config.fatal("run the golden tests through build/tests/golden (lit.site.cfg.py), "
                     "not through the source tree")
config.test_exec_root = config.dspc_obj_root

config.substitutions.append(("%dspc", config.dspc_exe))
config.substitutions.append(("%qemu", config.qemu_hexagon))
for name, path in golden_tools.tool_paths(config.llvm_tools_dir, config.python_executable):
    config.substitutions.append((golden_tools.tool_regex(name), path))

# dspc run makes temporary directories: keep them where the caller asked.
for var in ("TMPDIR", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

if os.path.exists(config.qemu_hexagon):
    config.available_features.add("hexagon")
import platform  # noqa: E402
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("host-x86_64")
