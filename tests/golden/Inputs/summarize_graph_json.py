#!/usr/bin/env python3
"""Prints a dspc --emit=graph-json file (or '-') one node a line, after checking that its
layout is consistent: node_row_ptr counts every node's outputs, inputs name earlier entries,
and attrs has one dltype and shape per entry and one placement per node."""
import json
import sys

d = json.load(sys.stdin if sys.argv[1] == "-" else open(sys.argv[1]))
assert d["format"] == "dspc-graph" and d["version"] == 1, "wrong format/version"
for g in d["graphs"]:
    nodes, rows, attrs = g["nodes"], g["node_row_ptr"], g["attrs"]
    entries = rows[-1]
    assert len(rows) == len(nodes) + 1, "node_row_ptr length"
    assert attrs["dltype"][0] == "list_str" and len(attrs["dltype"][1]) == entries
    assert attrs["shape"][0] == "list_shape" and len(attrs["shape"][1]) == entries
    assert len(attrs["placement"][1]) == len(nodes)
    heads = " ".join(f"{h[0]}:{h[1]}" for h in g["heads"])
    print(f"graph {g['name']}: {len(nodes)} nodes, arg_nodes {g['arg_nodes']}, heads {heads}, {entries} entries")
    for i, n in enumerate(nodes):
        for (src, idx, _) in n["inputs"]:
            assert src < i and idx < rows[src + 1] - rows[src], f"node {i} reads a later or missing entry"
        outs = range(rows[i], rows[i + 1])
        types = ", ".join(f"{attrs['dltype'][1][e]} {attrs['shape'][1][e]}" for e in outs)
        where = attrs["placement"][1][i]
        if n["op"] == "null":
            print(f"node {i}: null {n['name']} -> {types} ({where})")
        else:
            assert n["attrs"]["placement"] == where
            args = ", ".join(f"{s}:{k}" for s, k, _ in n["inputs"])
            print(f"node {i}: {n['attrs']['func_name']}({args}) -> {types} ({where})")
    print(f"device_groups {g['device_groups']}, grouped {g['grouped']}")
    for s in g["steps"]:
        extra = f" {s['func']} {s['inputs']} -> {s['outputs']}" if s["placement"] == "device" else ""
        print(f"step {s['placement']} {s['nodes']}{extra}")
