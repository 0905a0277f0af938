"""One case's cell in a report's tables: its figures, or why it has none. What only a family knows how to
write (a TLS case's figures per side, a minimum-RAM search) that family writes (`family_cell`, asked of
families.registry by report/cells.py); the rest is written here from the metrics a case carries."""

from __future__ import annotations

from collections.abc import Callable

from tlsbench.engine import metrics, stats
from tlsbench.engine.metrics import format_rate, format_time
from tlsbench.report.marks import DRIFT_MARK, NOISY_MARK, REUSED_MARK, range_text

STATUS_TEXT = {"unsupported": "unsupported", "check_failed": "check failed", "failed": "failed",
               "does_not_fit": "does not fit"}

# (a measured case, the model error beside a model figure) -> its cell, or None where the family has none
FamilyCell = Callable[[dict, str], "str | None"]


def cell(case: dict, metric: str | None = None, model_error: str = "", family_cell: FamilyCell | None = None) -> str:
    """A case's cell: its figures (or why it has none), the core's measured model error beside a model
    figure, marked when reused from the result cache."""
    text = _cell_text(case, metric, model_error, family_cell)
    return f"{text} {REUSED_MARK}" if case.get("reused_from") is not None else text


def _cell_text(case: dict, metric: str | None, model_error: str, family_cell: FamilyCell | None) -> str:
    if case["status"] != "ok":
        return STATUS_TEXT.get(case["status"], case["status"])
    res = case["results"]
    if metric is not None:
        r = res.get(metric)
        if r is None:
            return "not measured"
        if metric in metrics.REGISTRY:  # its unit and format from the registry
            return metrics.format_value(metric, metrics.headline_of(r))
        return f"{metrics.headline_of(r):.4g} {r['unit']}"
    if "flash_bytes" in res and "ram_bytes" in res:  # a size probe (tlsbench sizes)
        return f"{res['flash_bytes']['median']:,.0f} B flash, {res['ram_bytes']['median']:,.0f} B RAM"
    if family_cell is not None and (text := family_cell(case, model_error)) is not None:
        return text
    if "wall_ns" not in res and "instructions" in res:  # firmware: exact counts, no clock
        n = res["instructions"]["median"]
        per_byte = f" ({n / case['size']:,.1f}/B)" if case.get("size") else ""
        model = res.get("model_time_ns")
        if model is not None:  # a board profile's cycle model ran along
            cycles = res["model_cycles"]["median"]
            per_byte += f"; model {cycles:,.0f} cycles = {format_time(model['median'])}"
            if model_error:
                per_byte += f" ({model_error})"
        return f"{n:,.0f} instructions{range_text(res['instructions'])}{per_byte}"
    if "wall_ns" not in res and "cycles" in res:  # a real board's cycle counter
        return f"{res['cycles']['median']:,.0f} cycles"
    wall = res["wall_ns"]
    sp = stats.spread(wall["median"], wall["stdev"])
    spread = "" if sp is None else f" ±{100 * sp:.1f}%" + (f" {NOISY_MARK}" if sp > stats.NOISE_LIMIT else "")
    if (case.get("round_drift") or 0) > stats.DRIFT_LIMIT:
        spread += f" {DRIFT_MARK}"
    if "throughput" in res:
        return f"{format_rate(metrics.headline_of(res['throughput']))}{spread}"
    return f"{format_time(metrics.headline_of(wall))}{spread}"
