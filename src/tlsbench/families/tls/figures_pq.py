"""The post-quantum TLS charts (the pq-tls preset, or any run with an ML-KEM
group): classical vs hybrid vs pure ML-KEM key exchange, per library and
handshake kind, in bytes each way, CPU per side and heap per side. Read from
the run's stored medians like every other chart; drawn only when the run has
at least one ML-KEM group case."""

from __future__ import annotations

from tlsbench.engine import metrics
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.families.tls import names
from tlsbench.families.tls.tables import is_handshake
from tlsbench.report import charts
from tlsbench.report.charts import Chart, Point
from tlsbench.report.points import SPREAD_NOTE, axis_format, median, median_range
from tlsbench.report.rundata import RunData

HYBRIDS = ("x25519mlkem768", "secp256r1mlkem768")


def group_class(group: str | None) -> str:
    """classical, hybrid or pure PQ: what the chart groups its rows by."""
    if group in HYBRIDS:
        return "hybrid"
    if group in tls_catalog.PQ_GROUPS:
        return "pure PQ"
    return "classical"


def pq_cases(data: RunData) -> list[dict]:
    """In-memory handshakes with a group, server-authenticated, of a run that
    has an ML-KEM group (TCP rows repeat the bytes and add the kernel to
    the CPU: the interop view has them)."""
    out = []
    for c in data.cases:
        if not is_handshake(c) or names.is_baseline(c["alg"]):
            continue
        v = names.TlsVariant.parse(c["op"])
        if v.group is not None and v.transport == "memory" and v.auth == "server" and not v.device:
            out.append(c)
    if not any(names.TlsVariant.parse(c["op"]).group in tls_catalog.PQ_GROUPS for c in out):
        return []
    # classical first, then hybrids, then pure PQ; within a class the run's order
    order = {"classical": 0, "hybrid": 1, "pure PQ": 2}
    return sorted(out, key=lambda c: order[group_class(names.TlsVariant.parse(c["op"]).group)])


def _label(c: dict) -> str:
    v = names.TlsVariant.parse(c["op"])
    kind = v.handshake + (f":{v.share}" if v.share else "")  # hrr:G: the client's first key share was G
    return f"{c['library']} {v.group} ({group_class(v.group)}) {kind}"


def pq_charts(data: RunData) -> list[Chart]:
    cases = pq_cases(data)
    if not cases:
        return []
    rows = [_label(c) for c in cases]
    out = [charts.bars(
        "pq-tls-bytes", "Post-quantum TLS: handshake bytes each way", (
            "Bytes each side sent during the handshake (exact, records included), classical vs hybrid"
            " (X25519/P-256 + ML-KEM-768) vs ML-KEM-768 alone; resume-ticket: a ticket resumption with (EC)DHE;"
            " hrr:G: a HelloRetryRequest after the client's first key share G."),
        rows, {"client -> server": [median(c, "c2s_bytes") for c in cases],
               "server -> client": [median(c, "s2c_bytes") for c in cases]}, axis_format("c2s_bytes"))]
    for base, title, what in (("cpu_ns", "CPU time per side", "Median thread CPU time per handshake"),
                              ("instructions", "instructions per side", "Median instructions per handshake")):
        series = {f"{side} {what.split()[1]}": [median_range(c, metrics.sided(base, side)) for c in cases]
                  for side in metrics.SIDES}
        if any(p.value is not None for pts in series.values() for p in pts):
            note = metrics.INSTRUCTIONS_NOTE if base == "instructions" else (
                "host CPU time: noisy, read it against the run's load")
            out.append(charts.bars(
                f"pq-tls-{base.replace('_', '-')}", f"Post-quantum TLS: {title}",
                f"{what} on each side; {SPREAD_NOTE}. {note}", rows, series,
                axis_format(metrics.sided(base, "client"))))
    heap: dict[str, list[Point]] = {f"{side} heap peak": [median(c, f"{side}_heap_peak_bytes", "n/m") for c in cases]
                                    for side in metrics.SIDES}
    if any(p.value is not None for pts in heap.values() for p in pts):
        out.append(charts.bars(
            "pq-tls-heap", "Post-quantum TLS: peak heap per side",
            "Peak heap of each side during one counted handshake (exact).", rows, heap,
            axis_format("client_heap_peak_bytes")))
    return out
