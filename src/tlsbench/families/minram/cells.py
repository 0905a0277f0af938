"""A minimum-RAM case's cell in the cases table (report/cells.py asks the family, MinRamFamily.case_cell):
the least heap each side completed with, its uncapped peak and its stack at that limit."""

from __future__ import annotations


def case_cell(case: dict, model_error: str) -> str | None:
    """The cell of a measured minimum-RAM search, or None when the case carries none."""
    res = case["results"]
    if "client_min_heap_bytes" in res or "server_min_heap_bytes" in res:  # the minimum-RAM search
        def b(metric: str) -> str:
            return f"{res[metric]['median']:,.0f}" if metric in res else "n/m"
        return (f"min heap C {b('client_min_heap_bytes')} / S {b('server_min_heap_bytes')} B"
                f" (uncapped peak {b('client_conn_heap_peak_bytes')} / {b('server_conn_heap_peak_bytes')}),"
                f" stack C {b('client_stack_bytes')} / S {b('server_stack_bytes')} B"
                + (f", fragment {b('negotiated_max_frag_bytes')} B" if "negotiated_max_frag_bytes" in res else ""))
    return None
