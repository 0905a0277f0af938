"""A TLS case's cell in the cases table (report/cells.py asks the family, TlsFamily.case_cell): the TCP
baseline's request/response line, a server's capacity, and a handshake's figures per side (exact
instructions on firmware, CPU time on the host) with the bytes each way."""

from __future__ import annotations

from tlsbench.engine import metrics
from tlsbench.engine.metrics import format_time
from tlsbench.families.tls import names as tls_names
from tlsbench.report.marks import range_text


def case_cell(case: dict, model_error: str) -> str | None:
    """The cell of a measured TLS case, or None when its figures are none of these."""
    res = case["results"]
    if tls_names.is_baseline(case["alg"]) and "transaction_wall_ns" in res:  # the plain TCP baseline
        return (f"TCP {format_time(metrics.headline_of(res['transaction_wall_ns']))} per request/response"
                f" ({format_time(metrics.headline_of(res['connect_wall_ns']))} connect),"
                f" {res['total_c2s_bytes']['median']:.0f}+{res['total_s2c_bytes']['median']:.0f} B")
    if "transactions_per_s" in res:  # TLS server capacity
        return f"{metrics.headline_of(res['transactions_per_s']):,.0f} transactions/s"
    if "c2s_bytes" in res and ("client_instructions" in res or "server_instructions" in res):
        # a TLS case on firmware: exact instructions per side (one side on the device: the other is the host's,
        # not measured), bytes each way
        def count(metric: str) -> str:
            return f"{res[metric]['median']:,.0f}{range_text(res[metric])}" if metric in res else "host"

        def model_time(side: str) -> str:
            metric = f"{side}_model_time_ns"
            return format_time(res[metric]["median"]) if metric in res else "host"
        modelled = "client_model_time_ns" in res or "server_model_time_ns" in res
        return (f"C {count('client_instructions')} / S {count('server_instructions')}"
                f" instructions, {res['c2s_bytes']['median']:.0f}+{res['s2c_bytes']['median']:.0f} B"
                + (f", {res['round_trips']['median']:.0f} RTT" if "round_trips" in res else "")
                + (f"; model C {model_time('client')} / S {model_time('server')}"
                   + (f" ({model_error})" if model_error else "") if modelled else ""))
    if "c2s_bytes" in res and ("client_cpu_ns" in res or "server_cpu_ns" in res):
        # a TLS case: CPU per side (a foreign peer's is not measured), bytes each way
        def side(metric: str) -> str:
            return format_time(metrics.headline_of(res[metric])) if metric in res else "not measured (foreign)"
        text = (f"C {side('client_cpu_ns')} / S {side('server_cpu_ns')},"
                f" {res['c2s_bytes']['median']:.0f}+{res['s2c_bytes']['median']:.0f} B")
        if "round_trips" in res:
            text += f", {res['round_trips']['median']:.0f} RTT"
        for wall in ("handshake_wall_ns", "server_handshake_wall_ns"):  # over TCP: to handshake complete
            if wall in res:
                text += f", {format_time(metrics.headline_of(res[wall]))} wall"
                break
        return text
    return None
