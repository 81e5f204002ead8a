#!/usr/bin/env python3
"""The layout's rules, checked (TAP): no two source files of one library or
plugin use each other, directly or round a longer cycle (read from the
built objects' symbol tables with nm); no folder of core/ holds more than
3,000 lines of its own files; no C function is longer than 100 lines.
Usage: layout.py SOURCE_ROOT BUILD_ROOT"""

import collections
import pathlib
import re
import subprocess
import sys

MAX_FOLDER, MAX_FUNCTION = 3000, 100
src, build = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
n_test = 0


def ok(cond, what, details=()):
    global n_test
    n_test += 1
    print(f"{'ok' if cond else 'not ok'} {n_test} - {what}")
    for d in details:
        print(f"#   {d}")


def cycles():
    """Strongly connected components of more than one object, per target."""
    targets = collections.defaultdict(list)
    for o in build.rglob("*.o"):
        rel = o.relative_to(build)
        if rel.parts[0] in ("tests", "meson-private") or ".p" not in o.parent.name:
            continue
        targets[o.parent].append(o)
    found = []
    for objs in targets.values():
        defs, uses = {}, {}
        for o in objs:
            out = subprocess.run(["nm", str(o)], capture_output=True, text=True, check=True).stdout
            uses[o] = set()
            for line in out.splitlines():
                f = line.split()
                if len(f) == 3 and f[1] in "TDBR":
                    defs[f[2]] = o
                elif len(f) == 2 and f[0] == "U":
                    uses[o].add(f[1])
        edges = {o: {defs[s] for s in u if s in defs and defs[s] != o} for o, u in uses.items()}
        index, low, stack, on, comps = {}, {}, [], set(), []

        def visit(v):
            index[v] = low[v] = len(index)
            stack.append(v)
            on.add(v)
            for w in edges[v]:
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(comp)

        for v in edges:
            if v not in index:
                visit(v)
        for comp in comps:
            names = sorted(o.name.removesuffix(".o") for o in comp)
            found.append(f"{comp[0].parent.name.removesuffix('.p')}: " + " <-> ".join(names))
    return found


def folders():
    big = []
    for d in sorted(p for p in (src / "core").rglob("*") if p.is_dir()):
        n = sum(
            len(f.read_text(errors="replace").splitlines())
            for f in d.iterdir()
            if f.suffix in (".c", ".h") and f.is_file()
        )
        if n > MAX_FOLDER:
            big.append(f"{d.relative_to(src)}: {n} lines")
    return big


def functions():
    """Top-level function bodies: a '{' alone in column 0 to the next '}'
    in column 0 (the project's style)."""
    long = []
    for top in ("core", "algos", "envs", "examples", "python"):
        for f in sorted((src / top).rglob("*.c")):
            lines = f.read_text(errors="replace").splitlines()
            start = None
            for i, line in enumerate(lines):
                if line == "{":
                    start = i
                elif line.startswith("}") and start is not None:
                    if i - start + 1 > MAX_FUNCTION:
                        j = start - 1
                        while j > 0 and "(" not in lines[j]:
                            j -= 1
                        m = re.search(r"(\w+)\s*\(", lines[j])
                        long.append(f"{f.relative_to(src)}:{j + 1}: {m.group(1) if m else '?'}, {i - start + 1} lines")
                    start = None
    return long


c = cycles()
ok(not c, "no source files of a library or plugin use each other (no cycles)", c)
b = folders()
ok(not b, f"no folder of core/ holds over {MAX_FOLDER} lines of its own files", b)
f = functions()
ok(not f, f"no function is over {MAX_FUNCTION} lines", f)
print(f"1..{n_test}")
