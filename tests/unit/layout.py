#!/usr/bin/env python3
"""The layout's rules, checked (TAP): no two source files of one library or
plugin use each other, directly or round a longer cycle (read from the
built objects' symbol tables with nm); librlhost's rooms include each other
only along the arrows docs/design.md draws; no source file is longer than
800 lines; no function, C or Python, is longer than 100 lines (250 in the
tests); librlhost reads no terminal and writes to one through its log alone.
Usage: layout.py SOURCE_ROOT BUILD_ROOT"""

import ast
import collections
import pathlib
import re
import subprocess
import sys

MAX_FILE, MAX_FUNCTION, MAX_TEST_FUNCTION = 800, 100, 250
SOURCES = ("core", "algos", "envs", "examples", "include", "python", "scripts")
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


def rooms():
    """Each room's #include "ROOM/..." of another room, against the arrows of
    docs/design.md ("run         -> checkpoint, env, ..."): the include lines
    are the arrows, so none may point where the picture does not."""
    text = (src / "docs" / "design.md").read_text()
    block = re.search(r"The arrows.*?```\n(.*?)```", text, re.S)
    arrows = {}
    for line in block.group(1).splitlines() if block else []:
        m = re.match(r"(\w+)\s+(?:->\s*(.*?)\s*$|uses nothing)", line)
        if m:
            arrows[m.group(1)] = {r.strip() for r in (m.group(2) or "").split(",") if r.strip()}
    runtime = src / "core" / "runtime"
    found = [] if arrows else ["docs/design.md draws no arrows between the rooms"]
    for d in sorted(p for p in runtime.iterdir() if p.is_dir()):
        if d.name not in arrows:
            found.append(f"core/runtime/{d.name}/ is no room of docs/design.md's picture")
            continue
        for f in sorted(d.rglob("*")):
            if f.suffix not in (".c", ".h"):
                continue
            for i, line in enumerate(f.read_text(errors="replace").splitlines()):
                m = re.match(r'#include "(\w+)/', line)
                if m and m.group(1) != d.name and m.group(1) not in arrows[d.name]:
                    found.append(f"{f.relative_to(src)}:{i + 1}: {d.name} -> {m.group(1)}, an arrow the picture lacks")
    return found


def files():
    """Source files (not the tests) over MAX_FILE lines."""
    big = []
    for top in SOURCES:
        for f in sorted((src / top).rglob("*")):
            if f.suffix in (".c", ".h", ".py") and f.is_file():
                n = len(f.read_text(errors="replace").splitlines())
                if n > MAX_FILE:
                    big.append(f"{f.relative_to(src)}: {n} lines")
    return big


def c_functions(f, limit):
    """Top-level C function bodies of f over limit lines: a '{' alone in
    column 0 to the next '}' in column 0 (the project's style)."""
    long = []
    lines = f.read_text(errors="replace").splitlines()
    start = None
    for i, line in enumerate(lines):
        if line == "{":
            start = i
        elif line.startswith("}") and start is not None:
            if i - start + 1 > limit:
                j = start - 1
                while j > 0 and "(" not in lines[j]:
                    j -= 1
                m = re.search(r"(\w+)\s*\(", lines[j])
                long.append(f"{f.relative_to(src)}:{j + 1}: {m.group(1) if m else '?'}, {i - start + 1} lines")
            start = None
    return long


def py_functions(f, limit):
    """Python functions and methods of f over limit lines (ast)."""
    tree = ast.parse(f.read_text(), str(f))
    return [
        f"{f.relative_to(src)}:{n.lineno}: {n.name}, {n.end_lineno - n.lineno + 1} lines"
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > limit
    ]


def functions(tops, limit):
    long = []
    for top in tops:
        for f in sorted((src / top).rglob("*")):
            if f.suffix == ".c":
                long += c_functions(f, limit)
            elif f.suffix == ".py":
                long += py_functions(f, limit)
    return long


def terminal():
    """librlhost never reads a terminal (a person's moves come through the
    function the CLI hands it, seats/opponent.h's rl__human_set) and writes
    to one only through its log (base/log.c, whose sink an embedder sets),
    but for the loader's fatal-signal handler, where write(2) alone is safe."""
    reads = r"\bstdin\b|\bgetchar\s*\(|\bscanf\s*\(|\bgetline\s*\("
    writes = r"\bstdout\b|\bstderr\b|\bSTD(OUT|ERR)_FILENO\b|(?<!\w)printf\s*\(|(?<!\w)puts\s*\(|\bputchar\s*\("
    found = []
    for f in sorted((src / "core" / "runtime").rglob("*.[ch]")):
        rel = f.relative_to(src).as_posix()
        text = re.sub(
            r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), f.read_text(errors="replace"), flags=re.S
        )
        for i, line in enumerate(text.splitlines()):
            code = line.split("//")[0]
            if re.search(reads, code) or (
                rel != "core/runtime/base/log.c"
                and re.search(writes, code)
                and not (rel == "core/runtime/plugin/loader.c" and "write(STDERR_FILENO" in code)
            ):
                found.append(f"{rel}:{i + 1}: {line.strip()}")
    return found


c = cycles()
ok(not c, "no source files of a library or plugin use each other (no cycles)", c)
r = rooms()
ok(not r, "librlhost's rooms include each other only along docs/design.md's arrows", r)
b = files()
ok(not b, f"no source file is over {MAX_FILE} lines", b)
f = functions(SOURCES, MAX_FUNCTION)
ok(not f, f"no function, C or Python, is over {MAX_FUNCTION} lines", f)
f = functions(("tests",), MAX_TEST_FUNCTION)
ok(not f, f"no test function is over {MAX_TEST_FUNCTION} lines", f)
t = terminal()
ok(not t, "librlhost reads no terminal, and writes to one through its log alone", t)
print(f"1..{n_test}")
