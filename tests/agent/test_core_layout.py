"""The agent's core has no circles: no core file calls into a file that calls back into it.

Read from the built core library's symbol tables (nm): which member defines a symbol,
which members use it. A circle (agent.c -> tls.c -> agent.c, say) fails with its files.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tlsbench import paths


def _members(archive: Path) -> dict[str, list[list[str]]]:
    out = subprocess.run(["nm", str(archive)], capture_output=True, text=True, check=True).stdout
    members: dict[str, list[list[str]]] = {}
    current = ""
    for line in out.splitlines():
        if line.endswith(".o:"):
            current = line[:-1]
            members[current] = []
        elif line.strip() and current:
            members[current].append(line.split())
    return members


def _calls(archive: Path) -> dict[str, set[str]]:
    members = _members(archive)
    defined = {f[2]: m for m, rows in members.items() for f in rows if len(f) == 3 and f[1] in "TDBRVW"}
    return {m: {defined[f[1]] for f in rows if len(f) == 2 and f[0] == "U" and f[1] in defined} - {m}
            for m, rows in members.items()}


def _circles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), set()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen
    return sorted((a, b) for a in graph for b in graph[a] if a in reach(b))


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")
def test_core_files_call_each_other_without_circles(agents: dict[str, Path]) -> None:
    graph = _calls(paths.build_dir("host") / "libtb_core.a")
    # the request loop reaches the TLS driver and the shared request module, never the reverse
    assert "tls.c.o" in graph["agent.c.o"] and "request.c.o" in graph["tls.c.o"]
    assert _circles(graph) == []


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")
def test_tls_drivers_share_one_dispatcher(agents: dict[str, Path]) -> None:
    members = _members(paths.build_dir("host") / "libtb_core.a")
    defines = [m for m, rows in members.items() if any(r[1:] == ["T", "tb_tls_call_run"] for r in rows)]
    assert defines == ["tls_call.c.o"]
    for driver in ("tls.c.o", "tls_device.c.o"):
        assert ["U", "tb_tls_call_run"] in members[driver]


def test_a_circle_is_found() -> None:
    assert _circles({"a.o": {"b.o"}, "b.o": {"c.o"}, "c.o": {"a.o"}, "d.o": {"a.o"}}) == [
        ("a.o", "b.o"), ("b.o", "c.o"), ("c.o", "a.o")]
