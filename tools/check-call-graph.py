#!/usr/bin/env python3
"""Checks that the calls between the members of a static archive have no cycle.

    check-call-graph.py --nm LLVM_NM ARCHIVE...
    check-call-graph.py --self-test --nm LLVM_NM

Each member (one source file of runtime-support/device/ or common/) is a node. A member that
references a symbol another member defines (nm's U, or w for a weak reference) has an edge to
it. A cycle means two files each need the other, so neither can be read, tested or replaced
alone: the device runtime keeps its files layered (runtime-support/README.md, "Files").
Exit 0 when every archive's graph is acyclic, 1 with the cycle named otherwise, 2 on bad use.
"""
import argparse
import subprocess
import sys


def member_graph(nm, archive):
    """{member: set(member it calls)} from `nm -A` on the archive."""
    out = subprocess.run([nm, "-A", archive], check=True, capture_output=True, text=True).stdout
    defines, uses = {}, {}
    for line in out.splitlines():
        # "archive:member: address T name" or "archive:member:          U name"
        head, _, rest = line.partition(": ")
        member = head.rsplit(":", 1)[-1]
        fields = rest.split()
        if len(fields) < 2:
            continue
        kind, name = fields[-2], fields[-1]
        uses.setdefault(member, set())
        if kind in ("U", "w", "v"):
            uses[member].add(name)
        elif kind.isupper():
            defines[name] = member
    return {m: {defines[s] for s in syms if s in defines and defines[s] != m}
            for m, syms in uses.items()}


def find_cycle(graph):
    """A list of members forming a cycle (first repeated at the end), or None."""
    state = {}  # 1: on the current path, 2: done

    def visit(node, path):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def self_test():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == ["b", "c", "b"]
    assert find_cycle({}) is None
    print("check-call-graph self-test: ok")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nm", required=True, help="llvm-nm")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("archives", nargs="*")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.archives:
        ap.error("no archive given")
    status = 0
    for archive in args.archives:
        graph = member_graph(args.nm, archive)
        cycle = find_cycle(graph)
        if cycle:
            print(f"{archive}: the calls between its files have a cycle: {' -> '.join(cycle)}",
                  file=sys.stderr)
            status = 1
        else:
            print(f"{archive}: {len(graph)} files, no call cycle")
    return status


if __name__ == "__main__":
    sys.exit(main())
