"""The shape of the Python side: no import circle between its modules, no
SQL outside the store, a runner that names no case family. The circle check
is written here with ast (every import, also those inside functions) so a
clean clone can run it; where /work/shared/tools/import-cycles exists it must
agree."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "tlsbench"
# the shared tools folder lies beside the checkout (CI lays a copy of it beside its clone)
TOOL = Path(__file__).resolve().parents[2] / "shared" / "tools" / "import-cycles"


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path, top: str) -> dict[str, dict[str, int]]:
    """module -> {imported module of the same package: line}; ``from a import b``
    counts as importing a.b when that is a module, else a."""
    files = {_module_name(p, root): p for p in (root / top).rglob("*.py")}
    graph: dict[str, dict[str, int]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: resolved against this module's package
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            for t in targets:
                while t and t not in files:
                    t = t.rpartition(".")[0]
                if t and t != name and t != top:  # the top package's __init__ only holds the version
                    edges.setdefault(t, node.lineno)
        graph[name] = edges
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_circle_check_finds_a_circle(tmp_path: Path) -> None:
    pkg = tmp_path / "demo"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from demo.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from demo import c  # lazily: still a circle\n")
    (pkg / "c.py").write_text("from .a import x\n")
    (pkg / "d.py").write_text("import demo.a\n")
    assert circles(import_graph(tmp_path, "demo")) == [["demo.a", "demo.c", "demo.sub.b"]]


def test_no_import_circle() -> None:
    found = circles(import_graph(SRC, "tlsbench"))
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_shared_circle_tool_agrees() -> None:
    if not TOOL.exists() or shutil.which("python3") is None:
        pytest.skip("no shared import-cycles tool here: the ast check above is the check")
    p = subprocess.run([str(TOOL), str(SRC)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr


def test_no_sql_outside_the_store() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path == PACKAGE / "engine" / "store.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("execute", "executemany", "executescript"):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_the_runner_names_no_family() -> None:
    """Family names and kinds live in the families; the runner only loops over the registry."""
    from tlsbench.families import registry

    names = {f.name for f in registry.FAMILIES} | {k for f in registry.FAMILIES for k in f.kinds}
    tree = ast.parse((PACKAGE / "engine" / "runner.py").read_text())
    keys = {id(k) for n in ast.walk(tree) if isinstance(n, ast.Dict) for k in n.keys}  # JSON fields, e.g. "size"
    literals = {n.value for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in keys}
    assert literals & names == set()
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {m for m in imported if m and m.startswith(("tlsbench.families.tls", "tlsbench.families.size.family",
                                                            "tlsbench.families.primitive.family"))}
