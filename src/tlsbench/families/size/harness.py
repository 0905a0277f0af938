"""The harness's own share of a firmware image's memory, from its GNU ld map
file (and, for the in-memory link reserve, which is heap taken at run time,
from the build's compile flags): the request line and its byte pool, the
record line, the painted stacks, the main and
handler stacks, what is left for the heap, and the flash of tlsbench's
core and platform code.

    python -m tlsbench.families.size.harness build/qemu-netduinoplus2/cmake/tlsbench-agent-selftest.map ...

prints one Markdown row per map (agent/platform/BOARDS.md keeps the table).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tlsbench.errors import TlsbenchError
from tlsbench.families.size import maps as sizes

# .bss input section -> what it is
BUFFERS = {"request": "request line", "bytes_pool": "request byte pool", "line": "record line",
           "stacks": "painted stacks"}
_SECTION = re.compile(r"^ \.bss\.([A-Za-z_][A-Za-z0-9_]*)(?:\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s.*)?$")
_CONT = re.compile(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+\S")
_SYMBOL = re.compile(r"^\s+0x([0-9a-f]+)\s+([A-Za-z_][A-Za-z0-9_]*) = ")


@dataclass
class HarnessRam:
    buffers: dict[str, int]  # BUFFERS key -> bytes
    main_stack: int
    handler_stack: int
    heap: int  # the arena left for the libraries (and the link reserve)
    link_reserve: int  # per direction of an in-memory handshake, taken from the heap at run time
    core_flash: int  # tlsbench core + platform code and constants


def measure(map_path: Path) -> HarnessRam:
    try:
        lines = map_path.read_text().splitlines()
    except OSError as e:
        raise TlsbenchError(f"cannot read map file {map_path}: {e}") from e
    found: dict[str, int] = {}
    symbols: dict[str, int] = {}
    for n, text in enumerate(lines):
        m = _SECTION.match(text)
        if m and m.group(1) in BUFFERS:
            size = m.group(2)
            if size is None and n + 1 < len(lines):  # a long name puts address and size on the next line
                cont = _CONT.match(lines[n + 1])
                size = cont.group(1) if cont else None
            if size is not None:
                found[m.group(1)] = found.get(m.group(1), 0) + int(size, 16)
        s = _SYMBOL.match(text)
        if s:
            symbols.setdefault(s.group(2), int(s.group(1), 16))
    missing = [k for k in ("_main_stack_size", "_heap_start", "_heap_limit") if k not in symbols]
    if missing:
        raise TlsbenchError(f"{map_path}: no {', '.join(missing)} (not a firmware map of agent/platform/cortexm?)")
    library = map_path.name.removeprefix("tlsbench-agent-").removesuffix(".map")
    core = sum(p.flash_bytes for p in sizes.sizes(map_path, library) if p.component == "tlsbench core + platform")
    return HarnessRam(buffers={k: found.get(k, 0) for k in BUFFERS}, main_stack=symbols["_main_stack_size"],
                      handler_stack=symbols.get("_handler_stack_size", 1024),
                      heap=symbols["_heap_limit"] - symbols["_heap_start"],
                      link_reserve=_link_reserve(map_path.parent), core_flash=core)


def _link_reserve(cmake_dir: Path) -> int:
    """TB_LINK_RESERVE as the build compiled it (0 when the core has no in-memory link)."""
    for name in ("build.ninja", "CMakeFiles/tb_core.dir/flags.make"):
        try:
            m = re.search(r"-DTB_LINK_RESERVE=(\d+)u", (cmake_dir / name).read_text())
        except OSError:
            continue
        if m:
            return int(m.group(1))
    raise TlsbenchError(f"{cmake_dir}: cannot find the TB_LINK_RESERVE the core was built with")


HEADER = ("| image | request line + byte pool | record line | painted stacks | main + handler stack"
          " | link reserve (heap, 2 directions) | heap arena | core + platform flash |\n"
          "|---|---|---|---|---|---|---|---|")


def row(name: str, r: HarnessRam) -> str:
    b = r.buffers
    return (f"| {name} | {b['request']:,} + {b['bytes_pool']:,} B | {b['line']:,} B"
            f" | {b['stacks']:,} B | {r.main_stack:,} + {r.handler_stack:,} B | 2 x {r.link_reserve:,} B"
            f" | {r.heap:,} B | {r.core_flash:,} B |")


def main(argv: list[str]) -> int:
    rows = []
    for arg in argv:
        path = Path(arg)
        folder = path.parent.parent if path.parent.name == "cmake" else path.parent
        try:
            rows.append(row(f"{folder.name}/{path.stem.removeprefix('tlsbench-agent-')}", measure(path)))
        except TlsbenchError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    print("\n".join([HEADER, *rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
