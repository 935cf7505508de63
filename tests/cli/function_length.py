#!/usr/bin/env python3
"""No function in the given folders is longer than the limit (README "Layout": the driver is
small functions, each one step).

  function_length.py --max-lines 120 driver/ [more folders or files]

A function is a brace block whose header (the text since the previous ';', '{' or '}' at the
same depth) has a parameter list and is not a namespace, class, struct, enum, union or an
initializer: free functions, member functions (in a class or out of it) and lambdas. Its length
is counted from the header's first line to the closing brace. Comments, strings and character
literals are skipped. Prints every function over the limit and exits 1 if there is one.
"""
import argparse
import os
import re
import sys

NOT_FUNCTION = re.compile(r"\b(namespace|class|struct|enum|union)\b|=\s*$|^\s*(extern\s+\"C\")")


def blank_out(text):
    """The text with preprocessor lines, comments, strings and character literals replaced by
    spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "#" and (i == 0 or text[i - 1] == "\n"):  # a preprocessor line
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, last line) of every function body in the text."""
    code = blank_out(text)
    found, stack = [], []  # stack: (is_function, header start offset)
    header_start = 0
    for i, c in enumerate(code):
        if c == "{":
            header = code[header_start:i]
            is_function = "(" in header and ")" in header and not NOT_FUNCTION.search(header.strip())
            # A brace right after ')' or after ') const', '-> T', 'override'... is a body; one after
            # '=' or ',' or '(' is an initializer.
            stack.append((is_function, header_start if header.strip() else i))
            header_start = i + 1
        elif c == "}":
            if stack:
                is_function, start = stack.pop()
                if is_function and not any(f for f, _ in stack):  # outermost function only
                    first = code.count("\n", 0, start + len(code[start:i]) - len(code[start:i].lstrip())) + 1
                    name = re.findall(r"([~\w:]+)\s*\(", code[start:i].split("{")[0])
                    found.append((name[0] if name else "<lambda>", first, code.count("\n", 0, i) + 1))
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-lines", type=int, required=True)
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    files = []
    for p in a.paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith((".cpp", ".h", ".c")))
        else:
            files.append(p)
    longest, over = (0, ""), []
    for path in files:
        with open(path, errors="replace") as f:
            for name, first, last in functions(f.read()):
                lines = last - first + 1
                longest = max(longest, (lines, f"{path}:{first} {name}"))
                if lines > a.max_lines:
                    over.append(f"{path}:{first}: {name} is {lines} lines, more than {a.max_lines}")
    for o in over:
        print("FAIL:", o, file=sys.stderr)
    print(f"{len(files)} files; the longest function is {longest[1]}, {longest[0]} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
