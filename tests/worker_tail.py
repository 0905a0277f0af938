"""Each pytest-xdist worker's busy time, printed at the end of a run with workers: when one
worker finished and how long it then sat idle while the other finished a long module (the
tail), and the longest modules' spans, so the order in conftest.LONG_MODULES is measured."""

from __future__ import annotations

import time

import pytest

_START = time.monotonic()
_done: dict[str, float] = {}  # worker -> when its last report arrived (seconds from the start)
_last_module: dict[str, str] = {}
_spans: dict[str, list[float]] = {}  # module -> [first report, last report]
SHOWN_MODULES = 12


def record(report: pytest.TestReport) -> None:
    """Notes which worker sent this report, and when (the controller receives them as they happen)."""
    node = getattr(report, "node", None)
    if node is None:  # no workers: nothing to compare
        return
    worker = node.gateway.id
    now = time.monotonic() - _START
    module = report.nodeid.split("::")[0]
    _done[worker], _last_module[worker] = now, module
    span = _spans.setdefault(module, [now - report.duration, now])
    span[1] = now


def summary(write_line) -> None:
    """Writes the workers' finishing times, the idle tail and the longest module spans."""
    if len(_done) < 2:
        return
    ends = sorted(_done.items(), key=lambda kv: kv[1])
    each = ", ".join(f"{w} done at {t:.0f} s (last: {_last_module[w]})" for w, t in ends)
    write_line(f"workers: {each}; idle tail {ends[-1][1] - ends[0][1]:.0f} s")
    longest = sorted(_spans.items(), key=lambda kv: kv[1][0] - kv[1][1])[:SHOWN_MODULES]
    write_line("longest module spans: " + ", ".join(f"{m.removeprefix('tests/')} {b - a:.0f} s (from {a:.0f} s)"
                                                    for m, (a, b) in longest))
