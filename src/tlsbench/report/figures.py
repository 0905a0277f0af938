"""Which charts a stored run gets, and their figures: read from the run's
stored results (medians with the kept samples' range), never computed
anew; a case that was not measured is drawn as its status."""

from __future__ import annotations

import re
from collections.abc import Callable

from tlsbench.engine import metrics
from tlsbench.engine.metrics import format_time
from tlsbench.families import registry
from tlsbench.families.base import HANDSHAKES, KIND_CHARTS
from tlsbench.families.tls import names
from tlsbench.families.tls.tables import interop
from tlsbench.report import charts
from tlsbench.report import tables as report
from tlsbench.report.charts import Chart, Point
from tlsbench.report.tables import STATUS_TEXT, RunData


def _handshake_kinds() -> tuple[str, ...]:
    """The kinds whose cases are handshakes (their charts: _tls_charts)."""
    return registry.kinds_with(HANDSHAKES)


def fmt_time(ns: float) -> str:
    return format_time(ns)


def fmt_size(b: float) -> str:
    """Input sizes (powers of two): B, KiB, MiB."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:,.0f} B"


def fmt_bytes(b: float) -> str:
    """Memory and traffic: decimal kB and MB, so round axis steps read round."""
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:,.0f} B"


def fmt_rate(bps: float) -> str:
    mb = bps / 1e6
    # 4 significant digits, but never an exponent: an axis tick of 10^10 B/s read "1e+04 MB/s"
    return f"{mb:,.0f} MB/s" if mb >= 1000 else f"{mb:,.4g} MB/s"


def fmt_count(v: float) -> str:
    """Counts in SI steps (k, M, G): 30 M reads at a glance where 3e+07 does not."""
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= scale:
            return f"{v / scale:,.3g} {suffix}"
    return f"{v:,.4g}"


_AXIS = {"time": fmt_time, "bytes": fmt_bytes, "rate": fmt_rate, "count": fmt_count, "value": fmt_count}


def axis_format(metric: str) -> Callable[[float], str]:
    """How a chart labels values of this metric (the registry says what it is)."""
    return _AXIS[metrics.display(metric)]


def _slug(*parts: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def _missing(case: dict | None, what: str = "not measured") -> Point:
    if case is None:
        return Point(None, note="not in this run")
    if case["status"] != "ok":
        return Point(None, note=STATUS_TEXT.get(case["status"], case["status"]))
    return Point(None, note=what)


# One convention for every chart and table: the median of the kept samples
# (what the tables print), the whisker their stored range, min to max.
SPREAD_NOTE = "bar the median of the kept samples (the figure the tables print), whisker their range (min to max)"
# the timed charts: a host timing's figure is its fastest sample (metrics.headline_estimator)
TIMED_SPREAD_NOTE = ("bar the figure the tables print (on the host the fastest of the kept samples, elsewhere their"
                     " median), whisker their range (min to max)")
RATE_NOTE = "MB/s is 10^6 bytes per second; input sizes are binary (1 KiB = 1,024 B)"


def median_range(case: dict | None, metric: str) -> Point:
    """The stored median with the stored range of the kept samples (none
    with one sample)."""
    r = case["results"].get(metric) if case and case["status"] == "ok" else None
    if r is None:
        return _missing(case)
    flag = " ".join(report.marks(case, metric))  # (noisy), (drift), (slow phase): as the tables mark them
    if r["n"] < 2:
        return Point(metrics.headline_of(r), flag=flag)
    return Point(metrics.headline_of(r), r["min"], r["max"], flag=flag)


def median(case: dict | None, metric: str, what: str = "not measured") -> Point:
    r = case["results"].get(metric) if case and case["status"] == "ok" else None
    if r is None:
        return _missing(case, what)
    return Point(metrics.headline_of(r), flag=" ".join(report.marks(case, metric)))


def _libraries(cases: list[dict]) -> list[str]:
    return list(dict.fromkeys(c["library"] for c in cases))


def _clockless(data: RunData) -> bool:
    return report.clockless(data.cases)


def _has_data(series: dict[str, list[Point]] | list[list[Point]]) -> bool:
    """A chart is drawn only when something in it was measured."""
    rows = series.values() if isinstance(series, dict) else series
    return any(p.value is not None for row in rows for p in row)


def _primitive_bars(data: RunData, kind: str) -> Chart | None:
    cases = [c for c in data.cases if c["kind"] == kind]
    if not cases:
        return None
    libs = _libraries(cases)
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
    if not _has_data(series):
        return None
    return charts.bars(_slug(kind, metric), title, caption, [f"{a} {o}" for a, o in cats], series,
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
        for li, lib in enumerate(_libraries(mine)):
            for oi, op in enumerate(ops):
                name = lib if len(ops) == 1 else f"{lib} {op}"
                series[name] = [median(by_key.get((lib, op, s)), metric) for s in sizes]
                groups.append(li)
                dashed.append(oi > 0)
        out.append(charts.lines(
            _slug(kind, alg, "by-size"), f"{alg}: {what} per operation by input size", (
                f"{alg}: median {what} of one operation against the input size, both axes logarithmic; a gap is a"
                " size that was not measured."), sizes, series, "input size", fmt_size, fmt, groups, dashed))
    return out


def _tls_cases(data: RunData, foreign_clients: bool) -> list[dict]:
    """Handshake cases (not capacity, not the TCP baseline); with or without
    those against a client tool (only their server side is measured)."""
    return [c for c in data.cases
            if report.is_handshake(c) and not names.is_baseline(c["alg"]) and not names.is_capacity(c["alg"], c["op"])
            and (foreign_clients or names.client_of(c["alg"], c["op"], c["library"]) == c["library"])]


def _side_point(case: dict, side: str, base: str) -> Point:
    """One side's metric of a TLS case; "(foreign)" only for a side a tool
    (not one of our libraries) played, whose inside nobody here measures."""
    library = case["library"]
    player = (names.client_of(case["alg"], case["op"], library) if side == "client"
              else names.server_of(case["alg"], case["op"], library) or library)
    return median(case, metrics.sided(base, side), "n/m" if player == library else "n/m (foreign)")


def _per_side(tls: list[dict], base: str) -> list[list[Point]]:
    return [[_side_point(c, side, base) for side in metrics.SIDES] for c in tls]


def _tls_charts(data: RunData) -> list[Chart]:
    own = _tls_cases(data, foreign_clients=False)
    tls = _tls_cases(data, foreign_clients=True)
    out: list[Chart] = []
    series: dict[str, list[Point]] = {}
    if own:
        libs = _libraries(own)
        by_key = {(c["alg"], c["op"], c["library"]): c for c in own}
        cats = list(dict.fromkeys((c["alg"], c["op"]) for c in own))

        def wall(case: dict | None) -> Point:
            if case and case["status"] == "ok" and "handshake_wall_ns" not in case["results"]:
                return median_range(case, "exchange_wall_ns")
            return median_range(case, "handshake_wall_ns")
        series = {lib: [wall(by_key.get((a, o, lib))) for a, o in cats] for lib in libs}
        labels = [f"{a} {o}" for a, o in cats]
        base = {c["library"]: c for c in data.cases if report.is_handshake(c) and names.is_baseline(c["alg"])}
        if base:  # the plain TCP baseline: its connect time, beside the handshakes
            labels.append("TCP without TLS: connect")
            for lib in libs:
                series[lib].append(median_range(base.get(lib), "connect_wall_ns"))
    if _has_data(series):  # never a chart of a time the target does not measure
        out.append(charts.bars(
            "tls-handshake-wall", "TLS: handshake time per suite and variant", (
                "Over TCP the client's wall time to handshake complete; in memory the wall time of the handshake"
                f" and a 64-byte request/response; {TIMED_SPREAD_NOTE}. The TCP baseline shows the plain TCP connect."),
            labels, series, fmt_time))
    if tls:
        rows = [f"{c['library']} {c['alg']} {c['op']}" for c in tls]
        ins = _per_side(tls, "instructions")
        if _has_data(ins):  # firmware (or host perf counters): exact counts per side
            out.append(charts.stacked(
                "tls-instructions-per-side", "TLS: instructions per handshake, client + server", (
                    "Median instructions per handshake on each side, stacked. " + metrics.INSTRUCTIONS_NOTE), rows,
                ["client instructions", "server instructions"], ins, axis_format("client_instructions")))
        cpu = _per_side(tls, "cpu_ns")
        if _has_data(cpu):
            out.append(charts.stacked(
                "tls-cpu-per-side", "TLS: CPU time per handshake, client + server", (
                    "Median thread CPU time per handshake in each side's library, stacked; n/m (foreign): not"
                    " measured (the side of a peer nobody here wrote)."), rows, ["client CPU", "server CPU"], cpu,
                axis_format("client_cpu_ns")))
        heap = [[median(c, "client_heap_peak_bytes", "n/m"), median(c, "server_heap_peak_bytes", "n/m")]
                for c in tls]
        if any(p.value is not None for row in heap for p in row):
            out.append(charts.stacked(
                "tls-heap-per-side", "TLS: peak heap per side, client + server", (
                    "Median peak heap of each side during a handshake, stacked; n/m: not measured for that side."),
                rows, ["client heap peak", "server heap peak"], heap, axis_format("client_heap_peak_bytes")))
        stack = [[median(c, "client_stack_bytes", "n/m"), median(c, "server_stack_bytes", "n/m")] for c in tls]
        if any(p.value is not None for row in stack for p in row):
            out.append(charts.stacked(
                "tls-stack-per-side", "TLS: peak stack per side, client + server", (
                    "Peak stack of each side (painted stack, one untimed pass per round), stacked; n/m: not"
                    " measured for that side (over TCP the stack is not measured)."),
                rows, ["client stack", "server stack"], stack, axis_format("client_stack_bytes")))
    cap = [c for c in data.cases if report.is_handshake(c) and names.is_capacity(c["alg"], c["op"])]
    if cap:
        libs = _libraries(cap)
        by_key = {(c["alg"], c["op"], c["library"]): c for c in cap}
        cats = list(dict.fromkeys((c["alg"], c["op"]) for c in cap))
        series = {lib: [median_range(by_key.get((a, o, lib)), "transactions_per_s") for a, o in cats] for lib in libs}
        out.append(charts.bars(
            "tls-transactions", "TLS: transactions per second", (
                "Full handshakes with a 64-byte request/response per second, with N concurrent clients (clients=N);"
                f" {TIMED_SPREAD_NOTE} (a sample is a round)."),
            [f"{a} {o}" for a, o in cats], series, lambda v: f"{v:,.0f}/s"))
    return out


def _interop_chart(data: RunData) -> Chart | None:
    header, body = interop(data)
    if not body:
        return None
    servers = header[3:]
    rows, cells = [], {}
    for line in body:
        row = f"{line[0]} {line[1]} — client {line[2]}"
        rows.append(row)
        for server, text in zip(servers, line[3:], strict=True):
            if text == "-":
                continue
            state = "ok" if text.startswith("ok") else "unsupported" if text.startswith("unsupported") else "fails"
            cells[(row, server)] = (text, state)
    return charts.grid("interop", "Interop: client library x server", (
        "Each client against each server over loopback TCP: ok with the median handshake wall time, or the failure"
        " (hover a cell for the whole reason; the interop table below has it too)."), rows, servers, cells)


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
    if set(kinds) & set(_handshake_kinds()):
        out += _tls_charts(data)
        grid = _interop_chart(data)
        if grid:
            out.append(grid)
    slugs = [c.slug for c in out]
    assert len(slugs) == len(set(slugs)), "chart names must be unique"
    return out
