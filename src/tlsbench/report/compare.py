"""Comparing two stored runs: read -> pure compare -> render.

Per case (matched by name), on one metric: the two medians, their ratio, and
a Mann-Whitney U test on the raw per-operation samples. A change is called
only when it is significant (two-sided p < alpha), at least ``min_effect``
large, and the 95% bootstrap interval of B/A lies wholly beyond
``min_effect``; a test that cannot be made (too few samples) is "not
significant", never "significant". Cases on one side only, or not measured
on one side, are listed as such. Differences in what made the runs (machine,
library versions, tlsbench) are reported first: such runs are compared, but
never silently.

The ratio B/A comes with a 95% bootstrap confidence interval (medians of
resampled raw samples, fixed seed: the same runs give the same interval).
Deterministic metrics (bytes, records, round trips, instruction counts, heap,
stack, allocations) are compared exactly, without statistics: equal, or
changed by a difference; every such metric of both runs is listed too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tlsbench.engine import metrics
from tlsbench.engine.stats import bootstrap_ratio_ci, mann_whitney_p, median, smallest_p
from tlsbench.engine.store import Store

ALPHA = 0.01
MIN_EFFECT = 0.05


@dataclass
class Row:
    name: str
    verdict: str  # faster | slower | same | changed | varies | only in A | only in B | not measured
    median_a: float | None = None
    median_b: float | None = None
    ratio: float | None = None  # b / a
    p_value: float | None = None
    note: str = ""
    ratio_low: float | None = None  # 95% bootstrap interval of the ratio
    ratio_high: float | None = None
    unit: str = ""


@dataclass
class ExactRow:
    """A deterministic metric of a case in both runs."""

    name: str
    metric: str
    verdict: str  # same | changed | varies | only in A | only in B
    a: float | None = None
    b: float | None = None
    diff: float | None = None  # b - a
    note: str = ""


@dataclass
class Comparison:
    run_a: int
    run_b: int
    metric: str
    alpha: float
    min_effect: float
    context_differences: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    exact: list[ExactRow] = field(default_factory=list)  # every deterministic metric of both runs

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.verdict] = out.get(r.verdict, 0) + 1
        return out


# case name -> (status, per-operation values of its measured batches)
Values = dict[str, tuple[str, list[float]]]


@dataclass
class RunSide:
    """What compare reads of one run."""

    run_id: int
    context: dict[str, str]  # what made the run: machine, versions, method
    units: dict[str, str]  # metric -> unit, as stored with its results
    values: dict[str, Values]  # metric -> its values per case


# ---- read ----

def _context(store: Store, run_id: int) -> dict[str, str]:
    run = store.get_run(run_id)
    ctx = {
        "cpu": str(run.machine.get("cpu_model")),
        "cores": str(run.machine.get("cores")),
        "kernel": str(run.machine.get("kernel")),
        "tlsbench": run.tlsbench_version,
        "method": json.dumps(run.plan.get("method"), sort_keys=True),
    }
    for lib in store.libraries(run_id):
        ctx[f"{lib['library']} version"] = lib["version"]
        ctx[f"{lib['library']} config"] = lib["config"]
    return ctx


def read(store: Store, run_id: int, metric: str) -> RunSide:
    """The run's context, units, and the values of ``metric`` and of every exact metric it stored."""
    wanted = {metric} | {m for m in store.sample_counters(run_id) if metrics.is_exact(m)}
    return RunSide(run_id, _context(store, run_id), {r["metric"]: r["unit"] for r in store.results(run_id)},
                   {m: store.per_op_values(run_id, m) for m in sorted(wanted)})


# ---- pure comparison ----

def _exact_value(values: list[float]) -> tuple[float, str]:
    """The value of a deterministic metric in a run, and a note when its samples differ."""
    lo, hi = min(values), max(values)
    return median(values), "" if lo == hi else f"varies {lo:g}..{hi:g}"


def _exact_row(name: str, metric: str, va: list[float], vb: list[float]) -> ExactRow:
    a, note_a = _exact_value(va)
    b, note_b = _exact_value(vb)
    notes = "; ".join(f"{side}: {n}" for side, n in (("A", note_a), ("B", note_b)) if n)
    verdict = "same" if a == b and not notes else "varies" if notes and a == b else "changed"
    return ExactRow(name, metric, verdict, a, b, b - a, notes)


def _exact_all(a: RunSide, b: RunSide) -> list[ExactRow]:
    """Every deterministic metric stored in either run, case by case."""
    rows = []
    for metric in sorted(m for m in {*a.values, *b.values} if metrics.is_exact(m)):
        sa, sb = a.values.get(metric, {}), b.values.get(metric, {})
        for name in dict.fromkeys([*sa, *sb]):
            va = sa.get(name, ("", []))[1]
            vb = sb.get(name, ("", []))[1]
            if va and vb:
                rows.append(_exact_row(name, metric, va, vb))
            elif va:
                rows.append(ExactRow(name, metric, "only in A", a=median(va)))
            elif vb:
                rows.append(ExactRow(name, metric, "only in B", b=median(vb)))
    return rows


def _statistical_row(name: str, va: list[float], vb: list[float], alpha: float, min_effect: float,
                     lower_is_better: bool, unit: str) -> Row:
    med_a, med_b = median(va), median(vb)
    ratio = med_b / med_a if med_a else None
    p = mann_whitney_p(va, vb)
    ci = bootstrap_ratio_ci(va, vb)
    # a change is called when the test says the samples differ AND the
    # whole 95% interval of B/A lies beyond the minimum effect: a shift
    # of a few percent with a wide interval is the machine, not the code
    beyond = ci is not None and (ci[1] <= 1 - min_effect or ci[0] >= 1 + min_effect)
    significant = (p is not None and p < alpha and ratio is not None and abs(ratio - 1) >= min_effect
                   and beyond)
    if significant:
        assert ratio is not None
        verdict = "slower" if (ratio > 1) == lower_is_better else "faster"
    else:
        verdict = "same"
    if p is None:
        note = "too few samples for a test"
    elif not significant and smallest_p(len(va), len(vb)) >= alpha:
        note = f"{len(va)} and {len(vb)} samples cannot reach p < {alpha:g}: measure more repeats"
    else:
        note = ""
    return Row(name, verdict, med_a, med_b, ratio, p, note, ci[0] if ci else None, ci[1] if ci else None, unit)


def compare_runs(a: RunSide, b: RunSide, metric: str, alpha: float = ALPHA,
                 min_effect: float = MIN_EFFECT) -> Comparison:
    """Pure: two runs' values in, the comparison out. Exact metrics compare
    as equal or changed, noisy ones by the test and the minimum effect."""
    result = Comparison(a.run_id, b.run_id, metric, alpha, min_effect)
    for key in sorted(set(a.context) | set(b.context)):
        if a.context.get(key) != b.context.get(key):
            result.context_differences.append(f"{key}: {a.context.get(key, '-')} -> {b.context.get(key, '-')}")
    unit = b.units.get(metric) or a.units.get(metric, "")
    exact = metrics.is_exact(metric)
    sa, sb = a.values.get(metric, {}), b.values.get(metric, {})
    for name in list(dict.fromkeys([*sa, *sb])):
        if name not in sb:
            result.rows.append(Row(name, "only in A", unit=unit))
            continue
        if name not in sa:
            result.rows.append(Row(name, "only in B", unit=unit))
            continue
        (st_a, va), (st_b, vb) = sa[name], sb[name]
        if not va or not vb:
            result.rows.append(Row(name, "not measured", note=f"A: {st_a}, B: {st_b}", unit=unit))
            continue
        if exact:
            e = _exact_row(name, metric, va, vb)
            ratio = e.b / e.a if e.a else None
            note = "exact" + (f"; {e.note}" if e.note else "")
            result.rows.append(Row(name, e.verdict, e.a, e.b, ratio, None, note, unit=unit))
            continue
        result.rows.append(_statistical_row(name, va, vb, alpha, min_effect, metrics.lower_is_better(metric), unit))
    result.exact = _exact_all(a, b)
    return result


def compare(store: Store, run_a: int, run_b: int, metric: str = "wall_ns", alpha: float = ALPHA,
            min_effect: float = MIN_EFFECT) -> Comparison:
    """Read both runs, compare them. An unknown metric is an error naming the nearest ones."""
    metrics.get(metric)
    return compare_runs(read(store, run_a, metric), read(store, run_b, metric), metric, alpha, min_effect)


def regressions(c: Comparison, pct: float) -> list[Row]:
    """Cases significantly worse (slower, or for a count larger; for a rate
    smaller) by more than pct percent."""
    limit = 1 + pct / 100
    lower = metrics.lower_is_better(c.metric)
    worse = [r for r in c.rows if r.ratio is not None and (r.ratio > limit if lower else r.ratio * limit < 1)]
    return [r for r in worse if r.verdict == "slower" or (r.verdict == "changed" and metrics.is_exact(c.metric))]
