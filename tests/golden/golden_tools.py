"""How a golden test's RUN lines are read, and the commands they may name bare (and where from).

Shared by lit.cfg.py (lit's substitutions), tools/update-golden.py and tools/golden_locations.py,
so all of them read and expand a RUN line the same way.
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


RUN = re.compile(r"\s*(?://|#)\s*RUN:\s?(.*)$")


def parse_run_lines(lines):
    """The commands of the RUN lines among `lines`, continuation lines (ending in '\\') joined."""
    out, pending = [], ""
    for raw in lines:
        m = RUN.match(raw.rstrip("\n"))
        if not m:
            continue
        text = m.group(1).rstrip()
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        out.append(pending + text)
        pending = ""
    if pending:
        out.append(pending)
    return out
