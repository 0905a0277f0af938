"""`tlsbench stability PLAN`: how well a plan's timings hold from run to run.

The plan runs twice (two stored runs, nothing changed in between); then, for
every case timed in both (status ok, the metric present), the two figures the
reports show (a host timing's minimum, otherwise the median:
metrics.headline_estimator) are compared: the share of cases that agree within 2%, 5% and 10%
(agreement is symmetric: max/min - 1), the worst cases, and what
`tlsbench compare` says of the pair (faster / slower / same / inconclusive).
Unchanged code should read "same" everywhere. Read -> pure assess -> render.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tlsbench.engine import metrics
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.report import compare
from tlsbench.targets.target import is_host

# The version of `stability --format json`'s document (its "format" field): raised when a field changes meaning or goes.
JSON_VERSION = 2  # 2: "estimator" names the compared figure; worst rows' "a"/"b" (were median_a/median_b)
BANDS = (0.02, 0.05, 0.10)
# the stored estimators whose agreement is reported side by side (the evidence
# for the one reports use; docs/method.md "Which headline figure repeats")
ESTIMATORS = ("median", "min", "mean")
WORST = 10


@dataclass
class Stability:
    run_a: int
    run_b: int
    metric: str
    cases: int  # timed in both runs
    within: dict[str, int]  # "2%" -> cases whose figures agree within it
    worst: list[dict] = field(default_factory=list)  # name, a, b, spread
    verdicts: dict[str, int] = field(default_factory=dict)  # compare's calls, inconclusive apart
    slow_rounds: dict[str, int] = field(default_factory=dict)  # per run: rounds still slow after retries
    by_estimator: dict[str, dict[str, int]] = field(default_factory=dict)  # estimator -> band -> cases within
    estimator: str = "median"  # the stored column compared above: the reports' figure of this metric
    exact: dict[str, int] = field(default_factory=dict)  # compare's verdicts on every deterministic metric

    def share(self, band: str) -> float | None:
        return self.within[band] / self.cases if self.cases else None


def spread(a: float, b: float) -> float:
    """How far apart two medians are, the same either way round: max/min - 1."""
    lo, hi = sorted((a, b))
    return float("inf") if lo <= 0 else hi / lo - 1


def _band(b: float) -> str:
    return f"{b * 100:g}%"


def agreement(medians_a: dict[str, float], medians_b: dict[str, float]) -> tuple[int, dict[str, int], list[dict]]:
    """Cases in both, the count within each band, and every case by spread (worst first)."""
    names = [n for n in medians_a if n in medians_b]
    rows = sorted(({"name": n, "a": medians_a[n], "b": medians_b[n],
                    "spread": spread(medians_a[n], medians_b[n])} for n in names),
                  key=lambda r: (-r["spread"], r["name"]))
    within = {_band(b): sum(1 for r in rows if r["spread"] <= b + 1e-12) for b in BANDS}
    return len(rows), within, rows


def verdict_counts(c: compare.Comparison) -> dict[str, int]:
    """compare's verdicts; a "same" that no test could have turned into a
    change (too few samples) is inconclusive, not agreement."""
    out = {"faster": 0, "slower": 0, "same": 0, "inconclusive": 0}
    for row in c.rows:
        if row.verdict in ("faster", "slower"):
            out[row.verdict] += 1
        elif row.verdict == "same":
            out["inconclusive" if row.note and ("cannot reach" in row.note or "too few" in row.note)
                else "same"] += 1
        elif row.verdict == "inconclusive":  # a difference the test or the machine's own change cannot call
            out["inconclusive"] += 1
    return out


def exact_counts(c: compare.Comparison) -> dict[str, int]:
    """compare's verdicts on the deterministic metrics both runs stored (bytes, heap, stack, counts): two runs
    of unchanged code should call none "changed"; rows of one run only are not counted."""
    out = {"same": 0, "varies": 0, "changed": 0}
    for row in c.exact:
        if row.verdict in out:
            out[row.verdict] += 1
    return out


def _values(store: Store, run_id: int, metric: str, estimator: str = "median") -> dict[str, float]:
    return {r["name"]: float(r[estimator]) for r in store.results(run_id)
            if r["metric"] == metric and r["status"] == "ok"}


def _slow_rounds(store: Store, run_id: int) -> int:
    return sum(1 for r in store.case_rounds(run_id) if r["slow"])


def assess(store: Store, run_a: int, run_b: int, metric: str = "wall_ns") -> Stability:
    estimator = metrics.headline_estimator(metric, is_host(store.get_run(run_a).target))
    n, within, rows = agreement(_values(store, run_a, metric, estimator), _values(store, run_b, metric, estimator))
    compared = compare.compare(store, run_a, run_b, metric=metric)
    verdicts = verdict_counts(compared)
    by = {e: agreement(_values(store, run_a, metric, e), _values(store, run_b, metric, e))[1] for e in ESTIMATORS}
    return Stability(run_a, run_b, metric, n, within, rows[:WORST], verdicts,
                     {str(run_a): _slow_rounds(store, run_a), str(run_b): _slow_rounds(store, run_b)}, by, estimator,
                     exact_counts(compared))


def _figure(estimator: str) -> str:
    return "medians" if estimator == "median" else f"{estimator}ima of all samples"


def render(s: Stability, fmt: str = "table") -> str:
    if fmt == "json":
        return json.dumps({"format": JSON_VERSION, **asdict(s)}, indent=1) + "\n"
    lines = [f"runs {s.run_a} and {s.run_b}: {s.cases} cases timed in both ({s.metric}: {_figure(s.estimator)})"]
    for band, count in s.within.items():
        share = s.share(band)
        lines.append(f"  within {band:>3}: {count:4d} of {s.cases}" + (f" ({share:.0%})" if share is not None else ""))
    v = s.verdicts
    lines.append(f"compare {s.run_a} {s.run_b}: {v['slower']} slower, {v['faster']} faster, {v['same']} same, "
                 f"{v['inconclusive']} inconclusive")
    if s.exact:
        e = s.exact
        lines.append(f"exact counts (every deterministic metric of both runs): {e['same']} same, {e['varies']} varies,"
                     f" {e['changed']} changed")
    if s.cases:
        lines.append("by estimator (share within " + "/".join(s.within) + "): " + "; ".join(
            f"{e} " + "/".join(f"{c / s.cases:.0%}" for c in bands.values()) for e, bands in s.by_estimator.items()))
    lines.append("rounds still slow after measuring again: "
                 + ", ".join(f"run {k}: {n}" for k, n in s.slow_rounds.items()))
    if s.worst:
        lines.append(f"worst cases ({s.estimator} A, {s.estimator} B, spread):")
        for r in s.worst:
            lines.append(f"  {r['name']}: {r['a']:.6g} {r['b']:.6g} {r['spread']:.1%}")
    return "\n".join(lines) + "\n"


# ---- the command ----

def _load(spec: str):
    from tlsbench.plans.plan import load_plan, load_preset

    path = Path(spec)
    if path.suffix == ".toml" or path.exists():
        return load_plan(path), path.read_text()
    return load_preset(spec)


def cmd_stability(a: argparse.Namespace) -> int:
    from tlsbench.engine import runner
    from tlsbench.plans import runenv

    store = Store(a.db)
    try:
        if a.runs:
            run_a, run_b = a.runs
        else:
            if not a.plan:
                raise PlanError("stability: give a plan (file or preset name) or --runs A B")
            ids = []
            for _ in range(2):  # two runs of the same plan, back to back
                plan, source = _load(a.plan)
                with runenv.applied(plan.method.env):
                    ids.append(runner.run(plan, source, store, show_progress=not a.no_progress, quiet=True))
            run_a, run_b = ids
        sys.stdout.write(render(assess(store, run_a, run_b, a.metric), a.format))
    finally:
        store.close()
    return 0


def add_parser(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    st = sub.add_parser("stability", parents=[db],
                        help="run a plan twice and say how well its timings agree (shares within 2/5/10%%)")
    st.add_argument("plan", nargs="?", help="plan file (TOML) or preset name")
    st.add_argument("--runs", type=int, nargs=2, metavar=("A", "B"), help="assess two stored runs instead")
    st.add_argument("--metric", default="wall_ns", help="the timed metric whose figures are compared (default wall_ns)")
    st.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")
    st.add_argument("--no-progress", action="store_true", help="no progress line on stderr (default: one)")
    st.set_defaults(func=cmd_stability)
