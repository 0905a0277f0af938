"""The TLS family's charts, which it hands the report (TlsFamily.charts): handshake time per suite and
variant, instructions, CPU, heap and stack per side, server capacity, the interop grid and the post-quantum
charts (families/tls/figures_pq.py)."""

from __future__ import annotations

from tlsbench.engine import metrics
from tlsbench.families.tls import figures_pq, names
from tlsbench.families.tls.tables import interop, is_handshake
from tlsbench.report import charts
from tlsbench.report.charts import Chart, Point
from tlsbench.report.points import TIMED_SPREAD_NOTE, axis_format, fmt_time, has_data, libraries, median, median_range
from tlsbench.report.rundata import RunData


def charts_of(data: RunData) -> list[Chart]:
    """Every chart of the run's handshakes, in the page's order (none without a handshake case)."""
    if not any(is_handshake(c) for c in data.cases):
        return []
    out = _tls_charts(data)
    grid = _interop_chart(data)
    if grid:
        out.append(grid)
    return out + figures_pq.pq_charts(data)


def _tls_cases(data: RunData, foreign_clients: bool) -> list[dict]:
    """Handshake cases (not capacity, not the TCP baseline); with or without
    those against a client tool (only their server side is measured)."""
    return [c for c in data.cases
            if is_handshake(c) and not names.is_baseline(c["alg"]) and not names.is_capacity(c["alg"], c["op"])
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
        libs = libraries(own)
        by_key = {(c["alg"], c["op"], c["library"]): c for c in own}
        cats = list(dict.fromkeys((c["alg"], c["op"]) for c in own))

        def wall(case: dict | None) -> Point:
            if case and case["status"] == "ok" and "handshake_wall_ns" not in case["results"]:
                return median_range(case, "exchange_wall_ns")
            return median_range(case, "handshake_wall_ns")
        series = {lib: [wall(by_key.get((a, o, lib))) for a, o in cats] for lib in libs}
        labels = [f"{a} {o}" for a, o in cats]
        base = {c["library"]: c for c in data.cases if is_handshake(c) and names.is_baseline(c["alg"])}
        if base:  # the plain TCP baseline: its connect time, beside the handshakes
            labels.append("TCP without TLS: connect")
            for lib in libs:
                series[lib].append(median_range(base.get(lib), "connect_wall_ns"))
    if has_data(series):  # never a chart of a time the target does not measure
        out.append(charts.bars(
            "tls-handshake-wall", "TLS: handshake time per suite and variant", (
                "Over TCP the client's wall time to handshake complete; in memory the wall time of the handshake"
                f" and a 64-byte request/response; {TIMED_SPREAD_NOTE}. The TCP baseline shows the plain TCP connect."),
            labels, series, fmt_time))
    if tls:
        rows = [f"{c['library']} {c['alg']} {c['op']}" for c in tls]
        ins = _per_side(tls, "instructions")
        if has_data(ins):  # firmware (or host perf counters): exact counts per side
            out.append(charts.stacked(
                "tls-instructions-per-side", "TLS: instructions per handshake, client + server", (
                    "Median instructions per handshake on each side, stacked. " + metrics.INSTRUCTIONS_NOTE), rows,
                ["client instructions", "server instructions"], ins, axis_format("client_instructions")))
        cpu = _per_side(tls, "cpu_ns")
        if has_data(cpu):
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
    cap = [c for c in data.cases if is_handshake(c) and names.is_capacity(c["alg"], c["op"])]
    if cap:
        libs = libraries(cap)
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
