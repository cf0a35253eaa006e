"""The package's import graph has no circle (issue 49, 'Structure'): layers import downwards only, e.g. the run
results never import the experiment layer (the run id lives in repro.run_id), the cost tool never imports the
pipeline, and the reporting layer runs one way (gallery -> report -> record)."""

import ast
from pathlib import Path

import repro

ROOT = Path(repro.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Every import of a repro module anywhere in a file (function-level imports included); ``from pkg import sub``
    of a submodule is an edge to the submodule, not to the package."""
    graph = {}
    for name, p in mods.items():
        deps = set()
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("repro"):
                subs = [f"{n.module}.{a.name}" for a in n.names if f"{n.module}.{a.name}" in mods]
                deps.update(subs)
                if len(subs) < len(n.names):
                    deps.add(n.module)
            elif isinstance(n, ast.Import):
                deps.update(a.name for a in n.names if a.name.startswith("repro"))
        graph[name] = {d for d in deps if d in mods and d != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_has_no_circle():
    assert _circles(_edges(_modules())) == []


def test_the_circle_finder_finds_one():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
