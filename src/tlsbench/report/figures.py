"""Which charts a stored run gets, and their figures: read from the run's
stored results (medians with the kept samples' range), never computed
anew; a case that was not measured is drawn as its status."""

from __future__ import annotations

from tlsbench.engine import metrics
from tlsbench.families import registry
from tlsbench.families.base import KIND_CHARTS
from tlsbench.report import charts
from tlsbench.report import tables as report
from tlsbench.report.charts import Chart, Point
from tlsbench.report.points import (
    RATE_NOTE,
    SPREAD_NOTE,
    TIMED_SPREAD_NOTE,
    axis_format,
    fmt_bytes,
    fmt_count,
    fmt_rate,
    fmt_size,
    fmt_time,
    has_data,
    libraries,
    median,
    median_range,
    slug,
)
from tlsbench.report.tables import RunData

# what the pages, the exports and the tests read as figures.X (each lives in report/points.py)
__all__ = ["RATE_NOTE", "SPREAD_NOTE", "TIMED_SPREAD_NOTE", "Point", "axis_format", "figures", "fmt_bytes", "fmt_count",
           "fmt_rate", "fmt_size", "fmt_time", "median", "median_range"]


def _clockless(data: RunData) -> bool:
    return report.clockless(data.cases)


def _primitive_bars(data: RunData, kind: str) -> Chart | None:
    cases = [c for c in data.cases if c["kind"] == kind]
    if not cases:
        return None
    libs = libraries(cases)
    if _clockless(data):  # firmware: instructions per operation (at the largest size for sized kinds)
        size = max((c["size"] for c in cases if c["size"]), default=None)
        if size:
            cases = [c for c in cases if c["size"] == size]
        metric = "instructions"
        at = f" at {fmt_size(size)}" if size else ""
        caption = (f"Instructions per operation{at} per algorithm and library; median of the repeats. "
                   + metrics.INSTRUCTIONS_NOTE)
        title = f"{registry.kind_title(kind)}: instructions per operation{at}"
    elif registry.sized(kind):  # throughput at the largest size
        size = max(c["size"] for c in cases)
        cases = [c for c in cases if c["size"] == size]
        metric = "throughput"
        caption = f"Throughput on {fmt_size(size)} inputs per algorithm and library: {TIMED_SPREAD_NOTE}. {RATE_NOTE}."
        title = f"{registry.kind_title(kind)}: throughput at {fmt_size(size)}"
    else:
        metric = "wall_ns"
        caption = f"Time per operation per algorithm and library: {TIMED_SPREAD_NOTE}."
        title = f"{registry.kind_title(kind)}: time per operation"
    by_key = {(c["alg"], c["op"], c["library"]): c for c in cases}
    cats = list(dict.fromkeys((c["alg"], c["op"]) for c in cases))
    series = {lib: [median_range(by_key.get((a, o, lib)), metric) for a, o in cats] for lib in libs}
    if not has_data(series):
        return None
    return charts.bars(slug(kind, metric), title, caption, [f"{a} {o}" for a, o in cats], series,
                       axis_format(metric))


def _size_lines(data: RunData, kind: str) -> list[Chart]:
    cases = [c for c in data.cases if c["kind"] == kind and c["size"] is not None]
    out = []
    metric, what = ("instructions", "instructions") if _clockless(data) else ("wall_ns", "time")
    fmt = axis_format(metric)
    for alg in dict.fromkeys(c["alg"] for c in cases):
        mine = [c for c in cases if c["alg"] == alg]
        sizes = sorted({c["size"] for c in mine})
        if len(sizes) < 2 or not any(metric in c["results"] for c in mine if c["status"] == "ok"):
            continue
        ops = list(dict.fromkeys(c["op"] for c in mine))
        by_key = {(c["library"], c["op"], c["size"]): c for c in mine}
        series, groups, dashed = {}, [], []
        for li, lib in enumerate(libraries(mine)):
            for oi, op in enumerate(ops):
                name = lib if len(ops) == 1 else f"{lib} {op}"
                series[name] = [median(by_key.get((lib, op, s)), metric) for s in sizes]
                groups.append(li)
                dashed.append(oi > 0)
        out.append(charts.lines(
            slug(kind, alg, "by-size"), f"{alg}: {what} per operation by input size", (
                f"{alg}: median {what} of one operation against the input size, both axes logarithmic; a gap is a"
                " size that was not measured."), sizes, series, "input size", fmt_size, fmt, groups, dashed))
    return out


def figures(data: RunData) -> list[Chart]:
    out: list[Chart] = []
    kinds = list(dict.fromkeys(c["kind"] for c in data.cases))
    for kind in kinds:
        if KIND_CHARTS not in registry.views_of(kind):  # e.g. min-ram: tables only (the fits view)
            continue
        bar = _primitive_bars(data, kind)
        if bar:
            out.append(bar)
        if registry.sized(kind):
            out += _size_lines(data, kind)
    out += registry.charts(data)  # the charts a family draws itself (TLS: handshakes, interop, post-quantum)
    slugs = [c.slug for c in out]
    assert len(slugs) == len(set(slugs)), "chart names must be unique"
    return out
