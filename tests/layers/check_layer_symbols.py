#!/usr/bin/env python3
"""Checks that the library's layers call only downward, on their object files.

Usage: check_layer_symbols.py NM LAYERS_FILE

LAYERS_FILE has one line per layer, bottom first: "name=obj1;obj2;...".
A symbol that an object of layer L leaves undefined must not be defined
(strongly: text, data, bss or read-only) by an object of a layer above L;
weak definitions (inline functions and template instances, defined in every
object that uses them) are not a layer's own and are skipped. Prints every
back-edge as "layer -> higher layer: object: symbol" and exits 1 if there is
any; exits 2 when an object is missing (build the library first).
"""
import os
import subprocess
import sys

STRONG = set("TDBR")


def symbols(nm, path):
    """(defined, undefined) mangled names of one object file (nm -P)."""
    out = subprocess.run([nm, "-P", path], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in STRONG:
            defined.add(name)
    return defined, undefined


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
        return out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return list(names)


def main():
    nm, layers_file = sys.argv[1], sys.argv[2]
    layers = []  # (name, [objects]), bottom first
    with open(layers_file) as f:
        for line in f:
            line = line.strip()
            if line:
                name, _, objects = line.partition("=")
                layers.append((name, [o for o in objects.split(";") if o]))
    floor_of = {}  # symbol -> index of the layer that defines it
    undefined_by = []  # (layer index, layer name, object, undefined symbols)
    for index, (name, objects) in enumerate(layers):
        for obj in objects:
            if not os.path.exists(obj):
                print(f"missing object {obj}: build the library first", file=sys.stderr)
                return 2
            defined, undefined = symbols(nm, obj)
            for s in defined:
                floor_of.setdefault(s, index)
            undefined_by.append((index, name, obj, undefined))
    edges = []
    for index, name, obj, undefined in undefined_by:
        for s in sorted(undefined):
            above = floor_of.get(s)
            if above is not None and above > index:
                edges.append((name, layers[above][0], os.path.basename(obj), s))
    for (low, high, obj, _), readable in zip(edges, demangle([e[3] for e in edges])):
        print(f"{low} -> {high}: {obj}: {readable}")
    counted = sum(len(objects) for _, objects in layers)
    if edges:
        print(f"{len(edges)} call(s) point up a layer ({counted} objects in {len(layers)} layers)")
        return 1
    print(f"every call points down ({counted} objects in {len(layers)} layers: {' <- '.join(n for n, _ in layers)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
