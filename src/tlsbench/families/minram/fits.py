"""Which RAM sizes a stored minimum-RAM run's handshakes fit: per case and
side, what the side needs (its configuration's heap, the least heap its
connection completes with, its stack at that heap) plus the image's static
RAM (.data + .bss from the link map, the harness's own share left out and
shown apart), against 20, 32, 64, 128 and 256 KiB and every shipped board
profile's RAM.

Read -> pure computation -> render, like compare: ``fits()`` returns rows,
``render()`` prints them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from tlsbench.families.minram import KIND, SIDES
from tlsbench.families.tls.names import TlsVariant
from tlsbench.targets import boardprofiles

Table = Callable[[list[str], list[list[str]]], str]

SIZES_KIB = (20, 32, 64, 128, 256)
HARNESS = "tlsbench core + platform"  # families.size.maps: the harness's request line, record line, stacks

COUNTED = ("counted: the side's configuration heap (certificates, keys, settings: held outside any connection),"
           " the least heap one connection completes with (the handshake and a 64-byte request and response,"
           " each block at the allocator's usable size), the side's stack peak at that heap, and the image's"
           " static RAM (.data + .bss of the library, its adapter and the C runtime, from the link map)")
NOT_COUNTED = ("not counted: the allocator's per-block headers and fragmentation, the interrupt and main stacks,"
               " the harness's own buffers (request and record lines, painted stacks: shown apart), the"
               " transport's buffers (the in-memory link), the application's own RAM; host runs have no link"
               " map, so no static RAM (their rows say so and fit nothing)")


@dataclass(frozen=True)
class FitRow:
    case: str
    side: str
    endpoint_heap: int
    min_heap: int
    stack: int
    static_ram: int | None  # None: no link map (a host run)
    max_frag: int | None

    @property
    def total(self) -> int | None:
        if self.static_ram is None:
            return None
        return self.endpoint_heap + self.min_heap + self.stack + self.static_ram


@dataclass(frozen=True)
class Fits:
    rows: list[FitRow]
    skipped: list[tuple[str, str]]  # case, why (not ok, or a figure missing)
    harness_ram: dict[str, int]  # library -> the harness's static RAM in its image
    boards: list[tuple[str, int]]  # profile name, RAM bytes
    # library -> the most heap the harness held beside a device's side (rx line, uploaded chain and key)
    harness_heap: dict[str, int] = dataclasses.field(default_factory=dict)


def _static_ram(code_sizes: list[dict]) -> tuple[dict[str, int], dict[str, int]]:
    lib_ram: dict[str, int] = {}
    harness: dict[str, int] = {}
    for r in code_sizes:
        into = harness if r["component"] == HARNESS else lib_ram
        into[r["library"]] = into.get(r["library"], 0) + int(r["ram_bytes"])
    return lib_ram, harness


def fits(cases: list[dict], code_sizes: list[dict], boards: list[boardprofiles.Profile] | None = None) -> Fits:
    """The rows of the view: every min-ram case of a run (report.tables'
    RunData.cases, RunData.code_sizes), per side; ``boards``: the board
    columns (default: every shipped profile)."""
    lib_ram, harness = _static_ram(code_sizes)
    rows: list[FitRow] = []
    skipped: list[tuple[str, str]] = []
    harness_heap: dict[str, int] = {}
    for c in cases:
        if c["kind"] != KIND:
            continue
        if c["status"] != "ok":
            skipped.append((c["name"], f"{c['status']}: {c['reason']}"))
            continue
        res = c["results"]
        if "device_harness_heap_bytes" in res:
            held = int(res["device_harness_heap_bytes"]["median"])
            harness_heap[c["library"]] = max(held, harness_heap.get(c["library"], 0))
        device = TlsVariant.parse(c["op"]).device  # one side on the device: the other is the host's, never searched
        for side in (device,) if device else SIDES:
            need = [f"{side}_{m}" for m in ("endpoint_heap_bytes", "min_heap_bytes", "stack_bytes")]
            missing = [m for m in need if m not in res]
            if missing:
                skipped.append((c["name"], f"{side}: not measured: {', '.join(missing)}"))
                continue
            frag = res.get("negotiated_max_frag_bytes")
            rows.append(FitRow(c["name"], side, *(int(res[m]["median"]) for m in need),
                               lib_ram.get(c["library"]) if code_sizes else None,
                               int(frag["median"]) if frag else None))
    profiles = boards if boards is not None else [boardprofiles.load(n) for n in boardprofiles.names()]
    columns = [(p.name, p.ram_bytes) for p in profiles]
    return Fits(rows, skipped, harness, sorted(columns, key=lambda b: (b[1], b[0])), harness_heap)


def _mark(total: int | None, ram: int) -> str:
    if total is None:
        return "?"
    return "yes" if total <= ram else "no"


def size_table(f: Fits) -> tuple[list[str], list[list[str]]]:
    """Per case and side: the parts, the total, and yes/no per RAM size."""
    header = ["case", "side", "config heap", "min heap", "stack", "static RAM", "total",
              *(f"{k} KiB" for k in SIZES_KIB)]
    body = [[r.case, r.side, f"{r.endpoint_heap:,}", f"{r.min_heap:,}", f"{r.stack:,}",
             "no map" if r.static_ram is None else f"{r.static_ram:,}", "?" if r.total is None else f"{r.total:,}",
             *(_mark(r.total, k * 1024) for k in SIZES_KIB)] for r in f.rows]
    return header, body


def board_table(f: Fits) -> tuple[list[str], list[list[str]]]:
    """Per case and side: yes/no per shipped board profile."""
    header = ["case", "side", "total", *(f"{n} ({ram // 1024} KiB)" for n, ram in f.boards)]
    body = [[r.case, r.side, "?" if r.total is None else f"{r.total:,}", *(_mark(r.total, ram) for _n, ram in f.boards)]
            for r in f.rows]
    return header, body


def notes(f: Fits) -> list[str]:
    """What the totals count, what they leave out, the harness's share, the cases not shown."""
    out = [f"bytes; yes: the total fits that much RAM. {COUNTED}.", f"{NOT_COUNTED}."]
    if f.harness_ram:
        out.append("harness static RAM, not in the totals: "
                   + ", ".join(f"{lib} image {n:,} B" for lib, n in sorted(f.harness_ram.items())))
    if f.harness_heap:
        out.append("harness heap beside the device's side (its rx line, an uploaded chain and key), not in the"
                   " totals: " + ", ".join(f"{lib} up to {n:,} B" for lib, n in sorted(f.harness_heap.items())))
    out += [f"not shown: {name}: {why}" for name, why in f.skipped]
    return out


def render(f: Fits, table: Table, md: bool = False) -> str:
    """The view with ``table`` (report.tables' aligned or markdown)."""
    bullet = "- " if md else "  "
    out = [table(*size_table(f)) if f.rows else "(no min-ram case of this run measured both sides' figures)", ""]
    if f.rows and f.boards:
        out += [table(*board_table(f)), ""]
    out += [bullet + line for line in notes(f)]
    return "\n".join(out) + "\n"
