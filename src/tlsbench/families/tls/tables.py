"""The TLS family's report views, which it hands the report (TlsFamily.report_views): the per-side
TLS table (`report --view tls`) with its capacity and TCP baseline lines, and the interop grid of
client and server libraries (`--view interop`); as text, Markdown and the HTML page's tables."""

from __future__ import annotations

from tlsbench.engine import metrics
from tlsbench.engine.metrics import format_rate, format_time
from tlsbench.families.base import ReportView, ViewTable
from tlsbench.families.tls import cells
from tlsbench.families.tls import names as tls_names
from tlsbench.families.tls.plan import KIND
from tlsbench.report.casecell import STATUS_TEXT, cell
from tlsbench.report.context import context_lines
from tlsbench.report.marks import REUSED_MARK, VARIES_MARK, noise_lines, varies
from tlsbench.report.rundata import RunData, timed_headline
from tlsbench.report.textformat import aligned, markdown


def is_handshake(case: dict) -> bool:
    """A case of this family (by its kind: the registry, which imports this module, is not asked)."""
    return case["kind"] == KIND


def interop(data: RunData) -> tuple[list[str], list[list[str]]]:
    """The interop matrix of TCP cases: a row per suite, variant and client
    library, a column per server; a cell says ok (with the client's handshake
    wall time) or why it failed."""
    servers: list[str] = []
    rows: dict[tuple, dict[str, str]] = {}
    for c in data.cases:
        if not is_handshake(c):
            continue
        server = tls_names.server_of(c["alg"], c["op"], c["library"])
        if server is None or tls_names.is_capacity(c["alg"], c["op"]):
            continue
        if server not in servers:
            servers.append(server)
        variant = tls_names.TlsVariant.parse(c["op"]).peers_removed(c["alg"])
        key = (c["alg"], variant, tls_names.client_of(c["alg"], c["op"], c["library"]))
        if c["status"] == "ok":
            wall = c["results"].get("handshake_wall_ns") or c["results"].get("server_handshake_wall_ns")
            text = "ok" + (f" {format_time(metrics.headline_of(wall))}" if wall else "")
        elif c["status"] == "unsupported":
            text = "unsupported: " + (c["reason"] or "")[:60]
        else:
            text = "FAILS: " + (c["reason"] or "").removeprefix("handshake failed: ")[:80]
        rows.setdefault(key, {})[server] = text
    header = ["suite", "variant", "client \\ server", *servers]
    body = [[*k, *(cells.get(s, "-") for s in servers)] for k, cells in rows.items()]
    return header, body


TLS_TIME_COLUMNS = (  # (header, metric or the first of these that was measured)
    ("client CPU", "client_cpu_ns"), ("server CPU", "server_cpu_ns"),
    ("wall", ("handshake_wall_ns", "exchange_wall_ns")),
)
TLS_INSTRUCTION_COLUMNS = (  # firmware: exact counts instead of clocks
    ("client instructions", "client_instructions"), ("server instructions", "server_instructions"),
)
TLS_MODEL_COLUMNS = (  # a board profile's cycle model, beside the instructions it is computed from
    ("client model cycles", "client_model_cycles"), ("server model cycles", "server_model_cycles"),
    ("client model time", "client_model_time_ns"), ("server model time", "server_model_time_ns"),
)
TLS_COLUMNS = (*TLS_TIME_COLUMNS,
    ("C->S B", "c2s_bytes"), ("S->C B", "s2c_bytes"), ("RTT", "round_trips"),
    ("C heap peak", "client_heap_peak_bytes"), ("S heap peak", "server_heap_peak_bytes"),
    ("C heap held", "client_heap_held_bytes"), ("S heap held", "server_heap_held_bytes"),
    ("C stack", "client_stack_bytes"), ("S stack", "server_stack_bytes"),
    ("bulk", "bulk_throughput_per_s"),
)


def _tls_value(res: dict, metric: str | tuple[str, ...]) -> str:
    for m in (metric,) if isinstance(metric, str) else metric:
        if m in res:
            v = metrics.headline_of(res[m])
            how = metrics.display(m)
            text = format_time(v) if how == "time" else format_rate(v) if how == "rate" else f"{v:,.0f}"
            # an exact count whose repeats differ is marked in the cell, as in the other tables
            return f"{text} {VARIES_MARK}" if metrics.is_exact(m) and varies(res[m]) else text
    return "n/m"  # not measured for this case (e.g. a foreign server's side)


def tls_table(data: RunData) -> tuple[list[str], list[list[str]]]:
    """A row per TLS case: medians per side (CPU, bytes, round trips, heap,
    stack, bulk throughput); a case that did not run says why."""
    firmware = any("client_instructions" in c["results"] and "client_cpu_ns" not in c["results"]
                   for c in data.cases)
    model = TLS_MODEL_COLUMNS if has_tls_model(data) else ()
    columns = ((*TLS_INSTRUCTION_COLUMNS, *model, *TLS_COLUMNS[len(TLS_TIME_COLUMNS):]) if firmware
               else TLS_COLUMNS)
    # the reason a case did not run goes to the last column, not into a number column
    header = ["suite", "variant", "library", *(h for h, _m in columns), "note"]
    body = []
    for c in data.cases:
        if not is_handshake(c) or tls_names.is_baseline(c["alg"]) or tls_names.is_capacity(c["alg"], c["op"]):
            continue
        row = [c["alg"], c["op"], c["library"]]
        if c["status"] != "ok":
            why = (c["reason"] or "").removeprefix("handshake failed: ")
            body.append(row + [STATUS_TEXT.get(c["status"], c["status"])] + [""] * (len(columns) - 1) + [why[:100]])
            continue
        note = REUSED_MARK if c.get("reused_from") is not None else ""
        body.append(row + [_tls_value(c["results"], m) for _h, m in columns] + [note])
    return header, body


TLS_MODEL_LEGEND = ("model cycles and model time per side: a model, the board profile's cycle model applied to the"
                    " side's instructions, not a measurement (its error against real boards: docs/cycle-model.md,"
                    " Validation)")


def has_tls_model(data: RunData) -> bool:
    """Some TLS case of the run carries a side's model cycles."""
    return any(m in c["results"] for c in data.cases if is_handshake(c) for _h, m in TLS_MODEL_COLUMNS[:2])


def tls_extras(data: RunData) -> tuple[list[str], list[list[str]]]:
    """Capacity and TCP baseline cases: a line each."""
    body = []
    for c in data.cases:
        if is_handshake(c) and (tls_names.is_baseline(c["alg"]) or tls_names.is_capacity(c["alg"], c["op"])):
            body.append([c["alg"], c["op"], c["library"], cell(c, family_cell=cells.case_cell)])
    return ["suite", "variant", "library", "result"], body


def capacity_legend(plan: dict) -> str:
    """What a run's capacity figure is: its plan's window (runs stored before windows took whole rounds)."""
    window = (plan.get("tls") or {}).get("capacity_window_ms", 0)
    stretch = f"in the fastest {window} ms window of its rounds" if window else "over the fastest of its rounds"
    return f"capacity (clients=N): transactions per second of the N clients together, {stretch}"


def tls_text(data: RunData, md: bool) -> str:
    """`report --view tls` in the terminal or Markdown: the legend, the per-side table, the noise lines
    and the capacity and baseline lines."""
    bullet = "- " if md else "  "
    render_t = markdown if md else aligned
    timed = timed_headline(data)
    figures = (f"timed figures the fastest, {timed} (bulk: the highest rate), counts the medians" if timed
               else "medians")
    legend = (f"{bullet}TLS cases: {figures} per handshake; CPU is each side's thread CPU time in the library,"
              " wall is the client's time to handshake complete (TCP) or of the handshake and 64-byte"
              " request/response (memory); bytes and round trips from the exchange; heap and stack per side"
              " (n/m: not measured for this case, e.g. the side of a foreign server)")
    if has_tls_model(data):
        legend += f"\n{bullet}{TLS_MODEL_LEGEND}"
    out = "\n".join([*context_lines(data, md), legend]) + "\n\n" + render_t(*tls_table(data)) + "\n"
    out += "".join(f"\n{bullet}{line}\n" for line in noise_lines(data))
    extras = tls_extras(data)
    if extras[1]:
        if any(tls_names.is_capacity(suite, op) for suite, op, *_ in extras[1]):
            out += f"\n{bullet}{capacity_legend(data.run.plan)}\n"
        out += "\n" + render_t(*extras) + "\n"
    return out


def interop_text(data: RunData, md: bool) -> str:
    """`report --view interop` in the terminal or Markdown."""
    header, body = interop(data)
    table = markdown(header, body) if md else aligned(header, body)
    bullet = "- " if md else "  "
    legend = (f"{bullet}interop over loopback TCP: each client library against each server;"
              f" ok with the {'fastest' if timed_headline(data) else 'median'} handshake wall time (the client's;"
              " the server's against a client tool),"
              " or the failure with its reason")
    table = table if body else "(no TCP cases in this run)"
    return "\n".join([*context_lines(data, md), legend]) + "\n\n" + table + "\n"


def tls_tables(data: RunData) -> list[ViewTable]:
    timed = timed_headline(data)
    title = (f"TLS: per side (times: {timed}, counts: medians; n/m: not measured for that side)" if timed
             else "TLS: per side (medians; n/m: not measured for that side)")
    model = f"; {TLS_MODEL_LEGEND}" if has_tls_model(data) else ""
    tables = [ViewTable("tls", title, *tls_table(data), page_title=f"{title[:-1]}{model})", wrap_last=True),
              ViewTable("tls-extra", "TLS: transactions per second and the TCP baseline", *tls_extras(data))]
    return [t for t in tables if t.body]


def interop_tables(data: RunData) -> list[ViewTable]:
    table = ViewTable("interop", "Interop: client library x server", *interop(data))
    return [table] if table.body else []


REPORT_VIEWS = (
    ReportView("tls", tls_text, tls_tables, lambda data: any(is_handshake(c) for c in data.cases)),
    ReportView("interop", interop_text, interop_tables, lambda data: bool(interop(data)[1])),
)
