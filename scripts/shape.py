#!/usr/bin/env python3
"""The shape of the code, as issue 37 measures it: lines in src/commands/, functions over 100
lines outside src/engine/search/ (over 80 in src/commands/), module-level import circles (from
`use` lines, re-exports included), and the places that build a thread pool. (Doc examples: `cargo test --profile ci --doc`.)

    python3 scripts/shape.py [SRC]      (default: src)

Reads the files as text; prints one figure a line, then what each figure counts."""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "src"
FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)")
STRIP = re.compile(r'r#*"[^"]*"#*|"(\\.|[^"\\])*"|\'(\\.|[^\'\\])\'|//.*')


def rust_files():
    for dp, _, fs in os.walk(ROOT):
        for f in sorted(fs):
            if f.endswith(".rs"):
                yield os.path.join(dp, f)


def rel(p):
    return os.path.relpath(p, ROOT).replace(os.sep, "/")


def long_functions():
    """(path:line name (lines), over 100?) for functions over their limit."""
    out = []
    for p in rust_files():
        r = rel(p)
        if r.startswith("engine/search/") or r.endswith("tests.rs"):
            continue
        limit = 80 if r.startswith("commands/") else 100
        lines = open(p, encoding="utf-8", errors="replace").read().split("\n")
        for i, line in enumerate(lines):
            m = FN.match(line)
            if not m:
                continue
            depth, started = 0, False
            for j in range(i, len(lines)):
                s = STRIP.sub("", lines[j])
                depth += s.count("{") - s.count("}")
                started = started or "{" in s
                if not started and s.rstrip().endswith(";"):
                    break
                if started and depth <= 0:
                    n = j - i + 1
                    if n > limit:
                        out.append((f"src/{r}:{i + 1} {m.group(5)} ({n} lines)", n > 100))
                    break
    return out


def module_of(p):
    parts = rel(p)[:-3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def import_circles():
    mods = {module_of(p): p for p in rust_files() if not rel(p).endswith("tests.rs")}

    def resolve(cur, path):
        parts = path.split("::")
        if parts[0] in ("crate", "marginal"):
            base, parts = [], parts[1:]
        elif parts[0] == "super":
            base = list(cur)
            while parts and parts[0] == "super":
                base, parts = base[:-1], parts[1:]
        elif parts[0] == "self":
            base, parts = list(cur), parts[1:]
        else:
            return None
        for i in range(len(parts), -1, -1):
            cand = tuple(base + parts[:i])
            if cand in mods:
                return cand
        return None

    edges = {}
    for m, p in mods.items():
        text = open(p, encoding="utf-8", errors="replace").read().split("#[cfg(test)]")[0]
        for u in re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text, re.M):
            u = re.sub(r"\s+", "", u)
            braced = re.match(r"([\w:]+)::\{(.*)\}$", u)
            paths = [u]
            if braced:
                items, depth, cur = [], 0, ""
                for ch in braced.group(2):
                    depth += (ch == "{") - (ch == "}")
                    if ch == "," and depth == 0:
                        items.append(cur)
                        cur = ""
                    else:
                        cur += ch
                items.append(cur)
                paths = [braced.group(1) + "::" + it.split("::{")[0] for it in items if it]
            for path in paths:
                t = resolve(m, path)
                if t and t != m and t[: len(m)] != m and m[: len(t)] != t:
                    edges.setdefault(m, set()).add(t)
    index, low, stack, on, sccs = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
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
                sccs.append(sorted("::".join(x) for x in comp))

    for v in mods:
        if v not in index:
            visit(v)
    return sccs


def count(pattern, path_filter=lambda r: True):
    hits = []
    for p in rust_files():
        if not path_filter(rel(p)):
            continue
        for i, line in enumerate(open(p, encoding="utf-8", errors="replace"), 1):
            if re.search(pattern, line):
                hits.append(f"src/{rel(p)}:{i}")
    return hits


commands = sum(
    sum(1 for _ in open(p, encoding="utf-8", errors="replace"))
    for p in rust_files()
    if rel(p).startswith("commands/")
)
long = long_functions()
circles = import_circles()
pools = count(r"ThreadPoolBuilder::new\(")
print(f"src/commands/ lines: {commands}")
print(f"functions over 100 lines outside engine/search: {sum(1 for _, big in long if big)}")
print(f"functions over their limit (100; 80 in commands): {len(long)}")
print(f"import circles: {len(circles)}")
print(f"places that build a thread pool: {len(pools)}")
for name, _ in long:
    print(f"  long: {name}")
for c in circles:
    print(f"  circle: {' <-> '.join(c)}")
for p in pools:
    print(f"  pool: {p}")
