"""What every chart is drawn from, whichever family's it is: a stored median with its kept samples' range,
a missing figure as its status, and how an axis labels a metric's values."""

from __future__ import annotations

import re
from collections.abc import Callable

from tlsbench.engine import metrics
from tlsbench.engine.metrics import format_time
from tlsbench.report.casecell import STATUS_TEXT
from tlsbench.report.charts import Point
from tlsbench.report.marks import marks


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


def slug(*parts: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def missing(case: dict | None, what: str = "not measured") -> Point:
    if case is None:
        return Point(None, note="not in this run")
    if case["status"] != "ok":
        return Point(None, note=STATUS_TEXT.get(case["status"], case["status"]))
    return Point(None, note=what)


# One convention for every chart and table: the median of the kept samples
# (what the tables print), the whisker their stored range, min to max.
SPREAD_NOTE = "bar the median of the kept samples (the figure the tables print), whisker their range (min to max)"
# the timed charts: a host timing's figure is its fastest sample (metrics.headline_estimator)
TIMED_SPREAD_NOTE = ("bar the figure the tables print (on the host the fastest of all samples, elsewhere the kept"
                     " samples' median), whisker their range (min to max)")
RATE_NOTE = "MB/s is 10^6 bytes per second; input sizes are binary (1 KiB = 1,024 B)"


def median_range(case: dict | None, metric: str) -> Point:
    """The stored median with the stored range of the kept samples (none
    with one sample)."""
    r = case["results"].get(metric) if case and case["status"] == "ok" else None
    if r is None:
        return missing(case)
    flag = " ".join(marks(case, metric))  # (noisy), (drift), (slow phase): as the tables mark them
    if r["n"] < 2:
        return Point(metrics.headline_of(r), flag=flag)
    return Point(metrics.headline_of(r), r["min"], r["max"], flag=flag)


def median(case: dict | None, metric: str, what: str = "not measured") -> Point:
    r = case["results"].get(metric) if case and case["status"] == "ok" else None
    if r is None:
        return missing(case, what)
    return Point(metrics.headline_of(r), flag=" ".join(marks(case, metric)))


def libraries(cases: list[dict]) -> list[str]:
    return list(dict.fromkeys(c["library"] for c in cases))


def has_data(series: dict[str, list[Point]] | list[list[Point]]) -> bool:
    """A chart is drawn only when something in it was measured."""
    rows = series.values() if isinstance(series, dict) else series
    return any(p.value is not None for row in rows for p in row)
