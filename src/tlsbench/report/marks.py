"""The flags a figure carries in every format (noisy, varies, drift, slow phase, reused) and the
warning lines that sum them up for a run."""

from __future__ import annotations

from tlsbench.engine import metrics, stats
from tlsbench.report.rundata import DRIFT_METRIC, RunData, timed_headline

NOISY_MARK = "(noisy)"
VARIES_MARK = "(varies)"


def varies(r: dict) -> bool:
    """An exact count whose repeats differ (state a library keeps from one
    call to the next): shown as varying with its range, never as exact."""
    return r["n"] > 1 and metrics.reported_as(r["metric"], r["min"], r["max"]) == "varies"


def varying_counts(data: RunData) -> list[tuple[str, str, float, float]]:
    """(case, metric, min, max) of every exact count whose repeats differ."""
    return [(c["name"], m, r["min"], r["max"]) for c in data.cases if c["status"] == "ok"
            for m, r in c["results"].items() if varies(r)]


def range_text(r: dict) -> str:
    """A varying count's range, after its median ("" for a steady one)."""
    return f" {VARIES_MARK} {r['min']:,.0f}..{r['max']:,.0f}" if varies(r) else ""


DRIFT_MARK = "(drift)"
SLOW_MARK = "(slow phase)"


def marks(case: dict | None, metric: str) -> list[str]:
    """The flags one figure carries in every format (tables, HTML, charts):
    (noisy) when this noisy metric's spread exceeds stats.NOISE_LIMIT, (drift)
    when the case's rounds differ, (slow phase) when a round of it ran while
    the reference workload was slow. Exact counts are never noisy: they get
    (varies) when their repeats differ."""
    if not case or case.get("status") != "ok":
        return []
    r = case["results"].get(metric)
    if metrics.is_exact(metric):  # a count the machine's pace does not move: only its repeats can differ
        return [VARIES_MARK] if r is not None and varies(r) else []
    out = []
    if r is not None and stats.is_noisy(r["median"], r["stdev"]):
        out.append(NOISY_MARK)
    if (case.get("round_drift") or 0) > stats.DRIFT_LIMIT:
        out.append(DRIFT_MARK)
    if case.get("slow_rounds"):
        out.append(SLOW_MARK)
    return out


def drifting_cases(data: RunData) -> list[tuple[str, float]]:
    """(case, drift) of every case whose rounds' medians differ by more than
    stats.DRIFT_LIMIT of its median (stats.round_drift)."""
    return [(c["name"], c["round_drift"]) for c in data.cases
            if c.get("round_drift") is not None and c["round_drift"] > stats.DRIFT_LIMIT]


def slow_rounds(data: RunData) -> dict[str, int]:
    """Per case: its rounds measured while the reference workload was slow
    (pacing.py: still slow after being measured again); cases without none."""
    out: dict[str, int] = {}
    for r in data.rounds:
        if r["slow"]:
            out[r["name"]] = out.get(r["name"], 0) + 1
    return out


def noisy_cases(data: RunData) -> list[tuple[str, str, float]]:
    """(case, metric, stdev/median) of every noisy metric whose spread exceeds
    stats.NOISE_LIMIT; exact counts are never noisy."""
    out = []
    for c in data.cases:
        for metric, r in c["results"].items():
            if not metrics.is_exact(metric) and stats.is_noisy(r["median"], r["stdev"]):
                out.append((c["name"], metric, r["stdev"] / abs(r["median"])))
    return out


def noise_lines(data: RunData) -> list[str]:
    """The warning every format prints when some figure is noisy: how many, the worst, what to do."""
    out = []
    noisy = noisy_cases(data)
    if noisy:
        worst = sorted(noisy, key=lambda x: -x[2])[:5]
        out.append(f"noisy: {len(noisy)} figure(s) have a spread (stdev/median) over {100 * stats.NOISE_LIMIT:g}%,"
                   f" marked {NOISY_MARK}; worst: " + ", ".join(f"{n} {m} ±{100 * s:.0f}%" for n, m, s in worst)
                   + f"; {stats.NOISE_ADVICE}")
    varying = varying_counts(data)
    if varying:
        out.append(f"varies: {len(varying)} exact count(s) differ between the repeats of their case, marked"
                   f" {VARIES_MARK} in firmware cells with their range (median shown): randomness drawn (on the"
                   " host, from the OS) or state the library keeps from one call to the next (on firmware, Mbed"
                   " TLS's RSA blinding values drawn per operation), not measurement noise; e.g. "
                   + ", ".join(f"{n} {m} {lo:,.0f}..{hi:,.0f}" for n, m, lo, hi in varying[:3]))
    drifting = drifting_cases(data)
    if drifting:
        worst_d = sorted(drifting, key=lambda x: -x[1])[:5]
        out.append(f"drift: {len(drifting)} case(s) whose rounds' median {DRIFT_METRIC} differ by more than"
                   f" {100 * stats.DRIFT_LIMIT:g}% of the median (the machine changed during the run), marked"
                   f" {DRIFT_MARK}; worst: " + ", ".join(f"{n} {100 * d:.0f}%" for n, d in worst_d)
                   + f"; {stats.NOISE_ADVICE}")
    return out


def clockless(cases: list[dict]) -> bool:
    """A run without a clock (firmware under QEMU: exact instruction counts):
    no case measured a noisy metric the registry calls a time, so legends and
    charts speak of counts, never of a time. TLS cases count too: a firmware
    TLS-only run has per-side instructions and no time at all."""
    ok = [c for c in cases if c["status"] == "ok"]
    # a model's time (model_time_ns: exact, derived from instructions) is no clock
    return bool(ok) and not any(metrics.display(m) == "time" and not metrics.is_exact(m)
                                for c in ok for m in c["results"])


# a cell whose case was copied from an earlier measurement (the result cache of exact counts)
REUSED_MARK = "[reused]"


def cases_heading(data: RunData) -> str:
    """What the cases table's figures are, for its title: exact counts, the host's fastest sample, or medians."""
    timed = timed_headline(data)
    return ("instructions per operation" if clockless(data.cases)
            else f"fastest time or throughput ({timed})" if timed else "median time or throughput")
