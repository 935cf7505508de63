"""The commands a golden test's RUN lines may name bare, and where they come from.

Shared by lit.cfg.py (lit's substitutions) and tools/update-golden.py, so both expand a RUN line
the same way.
"""
import os
import re

LLVM_TOOLS = ("FileCheck", "not", "count", "split-file", "llvm-nm", "llvm-objdump", "clang")


def tool_paths(llvm_bin, python):
    """(name, full path) of every tool a RUN line may name bare."""
    return [(t, os.path.join(llvm_bin, t)) for t in LLVM_TOOLS] + [("python3", python)]


def tool_regex(name):
    """A regex that matches the tool's name as a command word, not inside a path or a word."""
    return r"(?<![\w./%-])" + re.escape(name) + r"(?![\w.-])"
