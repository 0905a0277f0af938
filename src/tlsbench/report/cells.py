"""The cases table: one cell per case (its figures, or why it has none), rows of kind/algorithm/op/size
by library, and the firmware images' code sizes."""

from __future__ import annotations

from tlsbench.engine import metrics, stats
from tlsbench.engine.metrics import format_rate, format_time
from tlsbench.families.tls import names as tls_names
from tlsbench.report.marks import DRIFT_MARK, NOISY_MARK, REUSED_MARK, range_text
from tlsbench.report.rundata import RunData, model_error_short

STATUS_TEXT = {"unsupported": "unsupported", "check_failed": "check failed", "failed": "failed",
               "does_not_fit": "does not fit"}

# what the static RAM column holds (families/size/maps.py: .stacks counts as RAM)
CODE_SIZE_NOTE = ("static RAM: .data + .bss, and in the tlsbench core + platform line the harness's painted"
                  " stacks; not the heap")


def cell(case: dict, metric: str | None = None, model_error: str = "") -> str:
    """A case's cell: its figures (or why it has none), the core's measured model error beside a model
    figure, marked when reused from the result cache."""
    text = _cell_text(case, metric, model_error)
    return f"{text} {REUSED_MARK}" if case.get("reused_from") is not None else text


def _cell_text(case: dict, metric: str | None = None, model_error: str = "") -> str:
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
    if tls_names.is_baseline(case["alg"]) and "transaction_wall_ns" in res:  # the plain TCP baseline
        return (f"TCP {format_time(metrics.headline_of(res['transaction_wall_ns']))} per request/response"
                f" ({format_time(metrics.headline_of(res['connect_wall_ns']))} connect),"
                f" {res['total_c2s_bytes']['median']:.0f}+{res['total_s2c_bytes']['median']:.0f} B")
    if "client_min_heap_bytes" in res or "server_min_heap_bytes" in res:  # the minimum-RAM search
        def b(metric: str) -> str:
            return f"{res[metric]['median']:,.0f}" if metric in res else "n/m"
        return (f"min heap C {b('client_min_heap_bytes')} / S {b('server_min_heap_bytes')} B"
                f" (uncapped peak {b('client_conn_heap_peak_bytes')} / {b('server_conn_heap_peak_bytes')}),"
                f" stack C {b('client_stack_bytes')} / S {b('server_stack_bytes')} B"
                + (f", fragment {b('negotiated_max_frag_bytes')} B" if "negotiated_max_frag_bytes" in res else ""))
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
