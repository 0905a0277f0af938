"""The shape of the Python side: no import circle between its modules, no
SQL outside the store, a runner that names no case family. The circle check
is written here with ast (every import, also those inside functions) so a
clean clone can run it; where /work/shared/tools/import-cycles exists it must
agree."""

from __future__ import annotations

import ast
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "tlsbench"
# the shared tools folder, where a machine has it beside the checkout (the AST check above does not need it)
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


@pytest.mark.outside_checkout
def test_the_shared_circle_tool_agrees() -> None:
    if not TOOL.exists() or shutil.which("python3") is None:
        pytest.skip("no shared import-cycles tool here: the ast check above is the check")
    p = subprocess.run([str(TOOL), str(SRC)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr


# Modules with their own `python -m` entry, and why: every other command a user types is a subcommand of the
# one CLI (cli/), behind its one error handler.
PROCESS_ENTRY_POINTS = {
    "targets/bridge.py": "the pipe between a firmware agent's UART and the runner: a process the runner starts",
    "targets/labgrid_drivers.py": "each labgrid step (drivers, power cycle, flash) in its own process, so the caller"
                                  " bounds it with a timeout",
    "families/size/harness.py": "the harness's share of an image's memory as rows of agent/platform/BOARDS.md, from"
                                " linker maps: the C agent's own notes, not a benchmark command",
}


def main_blocks(source: str) -> list[int]:
    """Lines of each ``if __name__ == "__main__":`` block."""
    return [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.If) and isinstance(n.test, ast.Compare)
            and isinstance(n.test.left, ast.Name) and n.test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in n.test.comparators)]


def test_the_main_block_scan_finds_one() -> None:
    assert main_blocks('def main():\n    pass\n\n\nif __name__ == "__main__":\n    main()\n') == [5]
    assert main_blocks("name = __name__\nif name == 'x':\n    pass\n") == []


def test_no_module_main_but_the_process_entry_points() -> None:
    """A user's command is `tlsbench ...` (the package's __main__ runs the CLI); only the processes the tool
    starts itself have their own `if __name__ == "__main__"`."""
    found = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
             if path.name != "__main__.py" and main_blocks(path.read_text())}
    assert sorted(found - set(PROCESS_ENTRY_POINTS)) == [], "module main()s outside the CLI (make it a subcommand)"
    assert sorted(set(PROCESS_ENTRY_POINTS) - found) == [], "listed entry points that no longer have a main block"


# the results store and the parts it is made of (engine/store.py): the only modules that run SQL
STORE_MODULES = {PACKAGE / "engine" / f"{name}.py" for name in ("store", "store_base", "store_schema", "store_copy")}


def test_no_sql_outside_the_store() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path in STORE_MODULES:
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


# Files that may name a library, and why: each states a fact about that one library that is not
# the record's (what a study compares it with, a peer program of the same name, a recipe's own folders).
LIBRARY_NAME_ALLOWED = {
    "studies/fidelity.py": "compares OpenSSL with the system's own `openssl speed`",
    "studies/fidelity_counts.py": "counts each named library against that library's own benchmark program",
    "studies/fidelity_handshakes.py": "times each named library against that library's own handshake tool",
    "studies/fidelity_layouts.py": "lays out each named library's own benchmark beside its agent",
    "studies/fidelity_native.py": "profiles each named library against that library's own benchmark program",
    "studies/fidelity_peers.py": "builds the embedded libraries' own benchmark programs",
    "families/tls/net.py": "runs the system's openssl command (s_server, s_client) as a peer program",
    "families/primitive/pqvectors.py": "reads the ML-KEM/ML-DSA known answers from the pinned OpenSSL 3.5 tree",
    "targets/gnutlsbuild.py": "the GnuTLS-with-nettle prefix recipe names its own folders",
}


def literals_outside(folder: str, scan: Callable[[str, set[str]], list[tuple[int, str]]],
                     names: set[str]) -> dict[str, list[tuple[int, str]]]:
    """What scan finds of names in each package file outside folder (a path
    prefix such as "libraries/"), by the file's path in the package."""
    found: dict[str, list[tuple[int, str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith(folder):
            hits = scan(path.read_text(), names)
            if hits:
                found[rel] = hits
    return found


def library_literals(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, text) of each string constant that is a library name or starts with "name@"."""
    return sorted((n.lineno, n.value) for n in ast.walk(ast.parse(source))
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)
                  and (n.value in names or n.value.split("@", 1)[0] in names and "@" in n.value))


def test_the_library_name_scan_finds_names_and_versions() -> None:
    source = 'A = "mbedtls"\nB = f"wolfssl@{x}"\nC = "wolfssl@5.9"\nD = "mbedtls_ssl"\n"""mbedtls"""\n'
    assert library_literals(source, {"mbedtls", "wolfssl"}) == [(1, "mbedtls"), (2, "wolfssl@"), (3, "wolfssl@5.9"),
                                                                (5, "mbedtls")]


def test_no_library_name_outside_the_registry() -> None:
    """A library is declared once, in libraries/: everything else reads its record."""
    from tlsbench.libraries import registry

    names = set(registry.names())
    found = literals_outside("libraries/", library_literals, names)
    unexplained = {rel: hits for rel, hits in found.items() if rel not in LIBRARY_NAME_ALLOWED}
    assert unexplained == {}, ("library names outside src/tlsbench/libraries (put the fact in the library's"
                               " record): " + "; ".join(f"{rel}:{line} {text!r}" for rel, hits in
                                                        unexplained.items() for line, text in hits))
    assert sorted(set(LIBRARY_NAME_ALLOWED) - set(found)) == [], "allowed files that no longer name a library"


def _target_kinds() -> set[str]:
    from tlsbench.targets import target

    return set(target.KINDS)


def kind_branches(tree: ast.AST, kinds: set[str]) -> list[int]:
    """Lines that test a target's kind: ``x.kind`` compared with a kind's
    name (or a collection of them), or any ``.kind`` of something named
    *target. A case's kind ("hash", "tls") is not a target's."""
    def names_a_kind(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in kinds
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(names_a_kind(e) for e in node.elts)
        return False

    def of_a_target(node: ast.AST) -> bool:
        owner = node.value if isinstance(node, ast.Attribute) else None
        name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
        return name.lower().endswith("target")

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            kind_attrs = [s for s in sides if isinstance(s, ast.Attribute) and s.attr == "kind"]
            if kind_attrs and (any(names_a_kind(s) for s in sides) or any(of_a_target(a) for a in kind_attrs)):
                lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "kind" and of_a_target(node):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_the_kind_scan_finds_a_branch() -> None:
    code = ("if target.kind == 'qemu': pass\n"
            "if self.target.kind != x: pass\n"
            "if t.kind in ('host', 'serial'): pass\n"
            "if case.kind == 'hash': pass\n"
            "label = session.target.kind\n")
    assert kind_branches(ast.parse(code), {"host", "qemu", "serial", "labgrid"}) == [1, 2, 3, 5]


def test_no_target_kind_branch_outside_targets() -> None:
    """A target is asked (targets/base.py), never told apart by its kind: a new kind is one module."""
    kinds = _target_kinds()
    offenders = [f"{path.relative_to(SRC)}:{line}"
                 for path in sorted(PACKAGE.rglob("*.py")) if PACKAGE / "targets" not in path.parents
                 for line in kind_branches(ast.parse(path.read_text()), kinds)]
    assert offenders == [], "target kinds branched on outside targets/: " + ", ".join(offenders)


# Files outside targets/ that may compare a value with a target kind's name, and why.
KIND_NAME_ALLOWED = {
    "cli/results.py": "`link --server host` is the link model's server side (a host elsewhere), a word of that flag",
}


def kind_name_tests(tree: ast.AST, kinds: set[str]) -> list[int]:
    """Lines that test a value against a target kind's name: a comparison with "qemu" or "qemu:..."
    (or a collection holding one), or a startswith/removeprefix of one."""
    def a_kind(node: ast.AST) -> bool:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(a_kind(e) for e in node.elts)
        return (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and (node.value in kinds or node.value.partition(":")[0] in kinds and ":" in node.value))

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(a_kind(s) for s in [node.left, *node.comparators]):
            lines.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "removeprefix") and any(a_kind(a) for a in node.args)):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_the_kind_name_scan_finds_a_test() -> None:
    code = ("if name == 'host': pass\n"
            "if t.startswith('qemu:'): pass\n"
            "if x in ('serial', 'labgrid'): pass\n"
            "if case.kind == 'hash': pass\n"
            "target = 'qemu:mps2-an386'\n"
            "if 'host' != n: pass\n")
    assert kind_name_tests(ast.parse(code), {"host", "qemu", "serial", "labgrid"}) == [1, 2, 3, 6]


def test_no_target_kind_name_tested_outside_targets() -> None:
    """A target's name is read by targets/ (target.parse, target.is_host): nothing else tells targets apart
    by the words of their names."""
    kinds = _target_kinds()
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith("targets/") and (lines := kind_name_tests(ast.parse(path.read_text()), kinds)):
            found[rel] = lines
    unexplained = {rel: lines for rel, lines in found.items() if rel not in KIND_NAME_ALLOWED}
    assert unexplained == {}, "target kind names tested outside targets/: " + ", ".join(
        f"{rel}:{line}" for rel, lines in unexplained.items() for line in lines)
    assert sorted(set(KIND_NAME_ALLOWED) - set(found)) == [], "allowed files that no longer test a kind's name"


def test_each_target_kind_is_its_own_module() -> None:
    """The kinds table names one class per kind, each from its own module of targets/kinds/."""
    from tlsbench.targets import target
    from tlsbench.targets.base import Target

    modules = [cls.__module__ for cls in target.KINDS.values()]
    assert all(issubclass(cls, Target) and cls.kind == k for k, cls in target.KINDS.items())
    assert all(m.startswith("tlsbench.targets.kinds.") for m in modules) and len(set(modules)) == len(modules)
    assert {k: type(target.parse(n, board="nucleo-f446re")).__name__ for k, n in
            (("host", "host"), ("qemu", "qemu:mps2-an386"), ("serial", "serial:/dev/ttyACM0"))} == \
        {"host": "HostTarget", "qemu": "QemuTarget", "serial": "SerialTarget"}


# Files outside families/ that may name a family or a case kind, and why: each states a fact about
# that one kind that is not the family's to declare.
FAMILY_NAME_ALLOWED = {
    "studies/fidelity.py": "compares the AEAD and hash cases with OpenSSL's own `openssl speed`",
    "studies/fidelity_counts.py": "counts the AEAD and signature cases against each library's own benchmark program",
    "studies/fidelity_native.py": "profiles the AEAD and signature cases against each library's own benchmark program",
    "studies/fidelity_peers.py": "maps each kind to the embedded libraries' own benchmark programs",
    "libraries/openssl.py": "the record says which kinds (ML-KEM, ML-DSA) this library version has",
    "libraries/wolfssl.py": "the record says which kinds (ML-KEM, ML-DSA) this library version has",
    "report/resultsdoc.py": "the results page quotes the spread of the 16 KiB AEAD cases",
}


def family_literals(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, text) of each string constant that is a family's name or kind; a dict key or a
    subscript (a stored case's JSON field, e.g. case["size"]) is a field name, not a kind."""
    tree = ast.parse(source)
    fields = {id(k) for n in ast.walk(tree) if isinstance(n, ast.Dict) for k in n.keys if k is not None}
    fields |= {id(n.slice) for n in ast.walk(tree) if isinstance(n, ast.Subscript)}
    return sorted((n.lineno, n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in names
                  and id(n) not in fields)


def test_the_family_name_scan_finds_kinds_not_fields() -> None:
    source = 'if c["kind"] == "tls": pass\nx = c["size"]\nd = {"tls": 1}\nK = ("hash", "min-ram")\n'
    assert family_literals(source, {"tls", "hash", "min-ram", "size"}) == [(1, "tls"), (4, "hash"), (4, "min-ram")]


def test_no_family_name_outside_the_families() -> None:
    """A family declares its kinds, plan section and report views (families/); everything else asks
    the registry. "size" is also every case's message-size field (Case.size): not scanned."""
    import dataclasses

    from tlsbench.engine.case import Case
    from tlsbench.families import registry

    names = {f.name for f in registry.FAMILIES} | {k for f in registry.FAMILIES for k in f.kinds}
    names -= {f.name for f in dataclasses.fields(Case)}
    found = literals_outside("families/", family_literals, names)
    unexplained = {rel: hits for rel, hits in found.items() if rel not in FAMILY_NAME_ALLOWED}
    assert unexplained == {}, ("family names or kinds outside src/tlsbench/families (ask families.registry): "
                               + "; ".join(f"{rel}:{line} {text!r}" for rel, hits in unexplained.items()
                                           for line, text in hits))
    assert sorted(set(FAMILY_NAME_ALLOWED) - set(found)) == [], "allowed files that no longer name a family"


# Modules of cli/ and plans/ that may import a family's own modules, and why: the rest reach the
# families through families.registry (and the contract in families.base) only.
FAMILY_IMPORT_ALLOWED = {
    "cli/inventory.py": "lists a family's catalog as it is: tlsbench list algorithms and suites, tlsbench certs, sizes",
}
_CONTRACT = {"tlsbench.families", "tlsbench.families.registry", "tlsbench.families.base"}


def family_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import of a family's own module, past the registry and the contract."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "tlsbench.families":
            modules = [f"tlsbench.families.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        else:
            continue
        found += [(node.lineno, m) for m in modules if m.startswith("tlsbench.families.") and m not in _CONTRACT]
    return sorted(found)


def test_the_family_import_scan_finds_a_family_module() -> None:
    source = ("from tlsbench.families import registry\nfrom tlsbench.families.base import Family\n"
              "from tlsbench.families.tls import plan\nimport tlsbench.families.primitive.catalog\n"
              "from tlsbench.families import size\n")
    assert family_imports(source) == [(3, "tlsbench.families.tls"), (4, "tlsbench.families.primitive.catalog"),
                                      (5, "tlsbench.families.size")]


def test_cli_and_plans_reach_the_families_through_the_registry() -> None:
    """A family's flags, plan keys and kinds are its own (its plan section): the command line and the
    plan loader loop over families.registry, so a new family needs no line in either."""
    found = {}
    for path in sorted([*(PACKAGE / "cli").rglob("*.py"), *(PACKAGE / "plans").rglob("*.py")]):
        hits = family_imports(path.read_text())
        if hits:
            found[path.relative_to(PACKAGE).as_posix()] = hits
    unexplained = {rel: hits for rel, hits in found.items() if rel not in FAMILY_IMPORT_ALLOWED}
    assert unexplained == {}, ("family modules imported by cli/ or plans/ (ask families.registry): "
                               + "; ".join(f"{rel}:{line} {m}" for rel, hits in unexplained.items()
                                           for line, m in hits))
    assert sorted(set(FAMILY_IMPORT_ALLOWED) - set(found)) == [], "allowed files that no longer import a family"


# What engine/ may import of the packages that build on it: their public faces only. A target is asked through
# its contract (targets/base.py) and the kinds table (targets/target.py: parse, of_run, is_host), a family
# through the registry and its contract, a library through its registry; a package's own __init__ holds nothing.
ENGINE_REACHES = {
    "tlsbench.targets": {"tlsbench.targets", "tlsbench.targets.target", "tlsbench.targets.base"},
    "tlsbench.families": {"tlsbench.families", "tlsbench.families.registry", "tlsbench.families.base"},
    "tlsbench.libraries": {"tlsbench.libraries", "tlsbench.libraries.registry"},
}


def _is_module(name: str) -> bool:
    path = SRC.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def past_the_faces(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import of a targets/, families/ or libraries/ module past its public face
    (ENGINE_REACHES); ``from tlsbench.targets import x`` imports the module tlsbench.targets.x where x is one."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [f"{node.module}.{a.name}" if _is_module(f"{node.module}.{a.name}") else node.module
                       for a in node.names]
        else:
            continue
        for m in modules:
            package = next((p for p in ENGINE_REACHES if m == p or m.startswith(p + ".")), None)
            if package is not None and m not in ENGINE_REACHES[package]:
                found.append((node.lineno, m))
    return sorted(found)


def test_the_public_face_scan_finds_an_internal_import() -> None:
    source = ("from tlsbench.families import registry\nfrom tlsbench.targets import target as targets\n"
              "from tlsbench.targets.base import LibraryInfo\nimport tlsbench.libraries.registry\n"
              "from tlsbench.targets import cyclemodel, target\n"
              "def f():\n    from tlsbench.families.primitive import keys  # lazily: still reached\n"
              "from tlsbench.libraries import versions\nimport tlsbench.targets.labgrid_places as lp\n"
              "from tlsbench.engine import farm\n")
    assert past_the_faces(source) == [(5, "tlsbench.targets.cyclemodel"), (7, "tlsbench.families.primitive.keys"),
                                      (8, "tlsbench.libraries.versions"), (9, "tlsbench.targets.labgrid_places")]


def test_the_engine_reaches_targets_families_and_libraries_through_their_faces() -> None:
    """The runner asks a Target (its board profile, derived results, refusals, the user's build, its places),
    the family registry (the run's material) and the library registry (why a library lacks an algorithm):
    a new kind, family or library changes nothing in engine/."""
    found = [f"{p.relative_to(PACKAGE).as_posix()}:{line} {m}"
             for p in sorted((PACKAGE / "engine").rglob("*.py")) for line, m in past_the_faces(p.read_text())]
    assert found == [], "engine/ imports past a public face: " + ", ".join(found)
    assert all(_is_module(face) for faces in ENGINE_REACHES.values() for face in faces)  # no face misnamed


# Modules of report/ that may import a family's own modules, and why: none. A family hands the report what
# it draws through families.registry: its views (base.ReportView), its cases' cells, its charts, its fits view.
REPORT_FAMILY_IMPORT_ALLOWED: dict[str, str] = {}


def test_report_asks_the_families_for_their_views() -> None:
    """A view a family renders itself (the TLS family's per-side table and interop grid) is declared by
    the family (ReportView) and reached through families.registry: report/ holds no module named after
    a family or its kinds, and imports no family module beyond the registry and the contract but the
    listed ones."""
    from tlsbench.families import registry

    names = {f.name for f in registry.FAMILIES} | {k for f in registry.FAMILIES for k in f.kinds}
    words = names | {n.replace("-", "") for n in names}
    report = PACKAGE / "report"
    assert [p.name for p in report.glob("*.py") if set(p.stem.split("_")) & words] == []
    found = {}
    for path in sorted(report.rglob("*.py")):
        if hits := family_imports(path.read_text()):
            found[path.relative_to(PACKAGE).as_posix()] = hits
    unexplained = {rel: hits for rel, hits in found.items() if rel not in REPORT_FAMILY_IMPORT_ALLOWED}
    assert unexplained == {}, ("family modules imported by report/ (ask families.registry): "
                               + "; ".join(f"{rel}:{line} {m}" for rel, hits in unexplained.items()
                                           for line, m in hits))
    assert sorted(set(REPORT_FAMILY_IMPORT_ALLOWED) - set(found)) == [], "allowed files that no longer import a family"
    assert [v.name for v in registry.report_views()] == ["tls", "interop"]


def log_parameters(source: str) -> list[int]:
    """Lines of each function (or lambda) with a parameter named ``log``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
            found += [node.lineno for p in params if p.arg == "log"]
    return found


def test_the_log_parameter_scan_finds_one() -> None:
    assert log_parameters("def build(jobs, log=print):\n    pass\n") == [1]
    assert log_parameters("x = 1\nf = lambda *, log: None\n") == [2]
    assert log_parameters("def build(jobs):\n    log(jobs)\n") == []


def test_no_log_callback_parameter() -> None:
    """Progress and build messages go through each module's logger (logging.getLogger(__name__)); where they
    are shown is set once where the process starts (cli/main.py, tlsbench.messages), not handed down."""
    found = [f"{path.relative_to(PACKAGE).as_posix()}:{line}" for path in sorted(PACKAGE.rglob("*.py"))
             for line in log_parameters(path.read_text())]
    assert found == [], "a `log` parameter: log with a module logger instead"


def test_no_two_test_modules_share_a_name() -> None:
    """Test modules are imported by their file name (folders without __init__.py, the shared helpers by name
    from tests/): two test_X.py in two folders, or a test folder's module named as a helper, cannot be
    collected in one session."""
    tests = Path(__file__).parent
    names = [p.name for p in tests.rglob("*.py") if not {"data", "fixtures", "reference"} & set(p.parts)]
    assert sorted({n for n in names if names.count(n) > 1}) == []
