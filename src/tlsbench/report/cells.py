"""The cases table: one cell per case (its figures, or why it has none; a family's own cases in the words
its family gives them), rows of kind/algorithm/op/size by library, and the firmware images' code sizes."""

from __future__ import annotations

from tlsbench.families import registry
from tlsbench.report import casecell
from tlsbench.report.casecell import STATUS_TEXT
from tlsbench.report.rundata import RunData, model_error_short

__all__ = ["CODE_SIZE_NOTE", "STATUS_TEXT", "cell", "code_size_table", "pivot"]

# what the static RAM column holds (families/size/maps.py: .stacks counts as RAM)
CODE_SIZE_NOTE = ("static RAM: .data + .bss, and in the tlsbench core + platform line the harness's painted"
                  " stacks; not the heap")


def cell(case: dict, metric: str | None = None, model_error: str = "") -> str:
    """A case's cell: its figures (or why it has none), the core's measured model error beside a model
    figure, marked when reused from the result cache; a family's case as its family writes it."""
    return casecell.cell(case, metric, model_error, registry.case_cell)


def code_size_table(data: RunData) -> tuple[list[str], list[list[str]]]:
    """Firmware runs: flash (text + rodata + data) and static RAM (data +
    bss) per library image, per component, from the linker map."""
    profiles = data.run.machine.get("profiles") or {}
    header = ["library", "build profile", "component", "flash bytes", "static RAM bytes"]
    body = [[r["library"], profiles.get(r["library"], "default"), r["component"], f"{r['flash_bytes']:,}",
             f"{r['ram_bytes']:,}"] for r in data.code_sizes]
    return header, body


def pivot(data: RunData, metric: str | None = None) -> tuple[list[str], list[list[str]]]:
    """Rows: kind/alg/op/size; columns: libraries. Cells: median throughput
    (sized operations) or median time per operation, with stdev/median; or
    the median of another metric (heap_peak_bytes, stack_bytes, ...)."""
    libs = list(dict.fromkeys(c["library"] for c in data.cases))
    band = model_error_short(data)
    rows: dict[tuple, dict[str, str]] = {}
    for c in data.cases:
        key = (c["kind"], c["alg"], c["op"], c["size"])
        rows.setdefault(key, {})[c["library"]] = cell(c, metric, band)
    header = ["kind", "algorithm", "op", "size"] + libs
    body = [
        [k[0], k[1], k[2], "" if k[3] is None else str(k[3])] + [cells.get(lib, "-") for lib in libs]
        for k, cells in rows.items()
    ]
    return header, body
