"""History: how cases moved over many stored runs (across commits, machines,
library versions). read -> pure assembly -> render (text here, HTML in
history_html.py).

A case's points are its median in each run with the 95% bootstrap interval
of that median (stats.bootstrap_ratio_ci against a constant side: the same
resampling and seed compare uses): what the change verdict tests. Each point
also carries the figure the run's report shows (a host timing's fastest
sample), printed beside it. Runs are grouped into series by machine
(the machine.id label) and target, oldest first; each point is compared with
the previous point of its series by compare's own test (compare.compare_runs:
Mann-Whitney plus the minimum effect for noisy metrics, equal-or-changed for
exact ones), so a change marked here is one `tlsbench compare` would call.
"""

from __future__ import annotations

import calendar
import fnmatch
import time
from dataclasses import dataclass, field

from tlsbench.engine import labels as run_labels
from tlsbench.engine import metrics, steadiness
from tlsbench.engine.stats import bootstrap_ratio_ci, median
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.report import compare
from tlsbench.targets.target import is_host

CHANGES = ("slower", "faster", "changed")  # the verdicts marked on a trend
DATE_FORMATS = ("%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S")


@dataclass
class HPoint:
    run_id: int
    created: float
    commit: str
    dirty: bool
    series: str
    median: float
    low: float | None           # 95% bootstrap interval of the median (None: under 3 samples, or exact)
    high: float | None
    n: int                      # measured samples
    figure: float | None = None  # the figure the run's report shows (metrics.headline_estimator)
    estimator: str = "median"
    verdict: str = ""           # against the previous point of its series: compare's verdict ("" for the first)
    ratio: float | None = None  # this / previous
    p_value: float | None = None
    note: str = ""


@dataclass
class CaseHistory:
    name: str
    metric: str
    unit: str
    exact: bool
    series: dict[str, list[HPoint]] = field(default_factory=dict)

    def points(self) -> list[HPoint]:
        return sorted((p for pts in self.series.values() for p in pts), key=lambda p: (p.created, p.run_id))

    def changes(self) -> list[HPoint]:
        return [p for p in self.points() if p.verdict in CHANGES]


@dataclass
class History:
    runs: list[int]                      # the runs selected, oldest first
    cases: list[CaseHistory]
    selection: list[str]                 # what selected the runs, said in words
    alpha: float = compare.ALPHA
    min_effect: float = compare.MIN_EFFECT
    created: dict[int, float] = field(default_factory=dict)  # run -> its creation time (the chart's x)


def parse_since(text: str) -> float:
    """A UTC date or date-time -> seconds since 1970."""
    for fmt in DATE_FORMATS:
        try:
            return float(calendar.timegm(time.strptime(text, fmt)))
        except ValueError:
            continue
    raise PlanError(f"--since {text!r}: expected a UTC date YYYY-MM-DD or date-time YYYY-MM-DDTHH:MM[:SS]")


@dataclass
class _Run:
    id: int
    created: float
    target: str
    labels: dict[str, str]
    names: list[str]
    values: dict[str, dict[str, tuple[str, list[float]]]]  # metric -> case -> (status, per-op values)
    # case -> the reference workload's times around its rounds (host runs): a point is called changed only
    # beyond what the machine's own speed change explains, as in compare
    references: dict[str, list[int]] = field(default_factory=dict)
    reference_kind: str = ""  # the workload those references timed (steadiness.kind)
    # metric -> case -> each round's values: a point is called changed only beyond its processes' spread
    rounds: dict[str, dict[str, list[list[float]]]] = field(default_factory=dict)


def _select_runs(store: Store, since: float | None, wanted: dict[str, str]) -> list[dict]:
    rows = [r for r in store.list_runs() if r["status"] == "complete" and run_labels.matches(r["labels"], wanted)
            and (since is None or r["created"] >= since)]
    return sorted(rows, key=lambda r: (r["created"], r["id"]))


def _match_cases(patterns: list[str], known: list[str]) -> list[str]:
    """Case names, or shell-style patterns (openssl/hash/*/hash/64); one that
    matches nothing is an error naming the nearest known names."""
    chosen: list[str] = []
    for pattern in patterns:
        hits = [n for n in known if fnmatch.fnmatchcase(n, pattern)]
        if not hits:
            import difflib

            near = difflib.get_close_matches(pattern, known, n=3, cutoff=0.4)
            hint = f"; nearest: {', '.join(near)}" if near else ""
            raise PlanError(f"history: no selected run has a case {pattern!r}{hint} (case names: tlsbench report RUN)")
        chosen += [h for h in hits if h not in chosen]
    return chosen


def _series_names(runs: list[_Run]) -> dict[int, str]:
    """run -> its series: the machine (its host name, with the fingerprint
    when two machines share a name) and the target."""
    by_host: dict[str, set[str]] = {}
    for r in runs:
        by_host.setdefault(r.labels.get("machine", "?"), set()).add(r.labels.get("machine.id", "?"))
    out = {}
    for r in runs:
        host, mid = r.labels.get("machine", "?"), r.labels.get("machine.id", "?")
        name = f"{host} [{mid[:6]}]" if len(by_host[host]) > 1 else host
        out[r.id] = f"{name} · {r.target}"
    return out


def read(store: Store, cases: list[str], since: str | None = None, labels: list[str] | None = None,
         metric: str | None = None, alpha: float = compare.ALPHA,
         min_effect: float = compare.MIN_EFFECT) -> History:
    if metric:
        metrics.get(metric)  # an unknown name: the nearest known ones
    wanted = run_labels.parse(labels, recorded_ok=True)
    after = parse_since(since) if since else None
    rows = _select_runs(store, after, wanted)
    selection = [f"since {since} UTC"] if since else []
    selection += [f"label {k}={v}" for k, v in wanted.items()]
    if not rows:
        raise PlanError(f"history: no complete run in {store.path}" + (f" ({', '.join(selection)})" if selection
                                                                          else ""))
    runs = []
    for r in rows:
        stored = store.sample_counters(r["id"])
        needed = [metric] if metric else metrics.headline(stored)
        refs = steadiness.references(dict(c) for c in store.case_rounds(r["id"]))
        info = store.get_run(r["id"])
        runs.append(_Run(r["id"], r["created"], r["target"], r["labels"], list(store.case_progress(r["id"])),
                         {m: store.per_op_values(r["id"], m) for m in needed if m in stored}, refs,
                         steadiness.kind(info.machine, bool(refs)),
                         compare.read_rounds(store, info, [m for m in needed if m in stored
                                                              and not metrics.is_exact(m)])))
    known = list(dict.fromkeys(n for r in runs for n in r.names))
    names = _match_cases(cases, known)
    return assemble(runs, names, metric, selection, alpha, min_effect)


def _case_metric(runs: list[_Run], name: str) -> str | None:
    """The metric a case is drawn on when none is named: its first headline
    metric with values in the newest run that measured it."""
    for r in reversed(runs):
        for m in metrics.HEADLINE:
            if r.values.get(m, {}).get(name, ("", []))[1]:
                return m
    return None


def _interval(values: list[float], exact: bool) -> tuple[float | None, float | None]:
    if exact:
        return None, None
    ci = bootstrap_ratio_ci([1.0] * 3, values)  # median(values*) / 1: the median's own interval
    return ci if ci else (None, None)


def assemble(runs: list[_Run], names: list[str], metric: str | None, selection: list[str],
             alpha: float = compare.ALPHA, min_effect: float = compare.MIN_EFFECT) -> History:
    """Pure: the selected runs' values in, each case's trend and changes out."""
    series_of = _series_names(runs)
    out = []
    for name in names:
        m = metric or _case_metric(runs, name)
        if m is None:
            raise PlanError(f"history: case {name} has no headline metric in the selected runs; give --metric")
        case = CaseHistory(name, m, metrics.unit(m), metrics.is_exact(m))
        previous: dict[str, tuple[_Run, list[float]]] = {}
        for r in runs:
            status, values = r.values.get(m, {}).get(name, ("", []))
            if not values:
                continue
            s = series_of[r.id]
            low, high = _interval(values, case.exact)
            point = HPoint(r.id, r.created, r.labels.get("git.commit", "unknown"),
                           r.labels.get("git.dirty") == "true", s, median(values), low, high, len(values))
            point.estimator = metrics.headline_estimator(m, is_host(r.target))
            point.figure = metrics.figure_of(point.estimator, values)
            if s in previous:
                point.verdict, point.ratio, point.p_value, point.note = _against(previous[s], (r, values), name, m,
                                                                                 alpha, min_effect)
            previous[s] = (r, values)
            case.series.setdefault(s, []).append(point)
        if not case.series:
            has = sorted({x for r in runs for x, per_case in r.values.items() if per_case.get(name, ("", []))[1]})
            raise PlanError(f"history: case {name} has no {m} values in the selected runs"
                            + (f"; it has: {', '.join(has)}" if has else ""))
        out.append(case)
    return History([r.id for r in runs], out, selection, alpha, min_effect, {r.id: r.created for r in runs})


def _against(a: tuple[_Run, list[float]], b: tuple[_Run, list[float]], name: str, metric: str, alpha: float,
             min_effect: float) -> tuple[str, float | None, float | None, str]:
    """compare's verdict on one case between two runs, from their values."""
    def side(r: _Run, values: list[float]) -> compare.RunSide:
        rounds = r.rounds.get(metric, {}).get(name)
        return compare.RunSide(r.id, {}, {metric: metrics.unit(metric)}, {metric: {name: ("ok", values)}},
                               {name: r.references[name]} if name in r.references else {}, r.reference_kind,
                               rounds={metric: {name: rounds}} if rounds else {})
    row = compare.compare_runs(side(*a), side(*b), metric, alpha, min_effect).rows[0]
    return row.verdict, row.ratio, row.p_value, row.note


# ---- text ----

def _fmt(metric: str, value: float | None) -> str:
    return "-" if value is None else metrics.format_value(metric, value)


def change_text(p: HPoint) -> str:
    if not p.verdict:
        return "first"
    ratio = f" x{p.ratio:.3f}" if p.ratio is not None else ""
    pv = f" p={p.p_value:.2g}" if p.p_value is not None else ""
    return f"{p.verdict.upper() if p.verdict in CHANGES else p.verdict}{ratio}{pv}"


def table_rows(case: CaseHistory) -> list[list[str]]:
    rows = []
    for p in case.points():
        interval = "exact" if case.exact else (f"{_fmt(case.metric, p.low)} .. {_fmt(case.metric, p.high)}"
                                               if p.low is not None else "too few samples")
        rows.append([str(p.run_id), time.strftime("%Y-%m-%d %H:%M", time.gmtime(p.created)),
                     p.commit + ("+dirty" if p.dirty else ""), p.series, figure_text(case, p),
                     _fmt(case.metric, p.median), interval,
                     str(p.n), change_text(p)])
    return rows


def figure_text(case: CaseHistory, p: HPoint) -> str:
    """The run's figure as its report shows it, named by its estimator when that is not the median."""
    text = _fmt(case.metric, p.figure)
    return text if p.estimator == "median" else f"{text} ({p.estimator})"


HEADER = ["run", "created (UTC)", "commit", "machine · target", "figure", "median", "95% interval", "n",
          "vs previous"]


def render_text(h: History) -> str:
    from tlsbench.report.tables import aligned

    out = [f"history of {len(h.cases)} case(s) over {len(h.runs)} run(s)"
           + (f" ({', '.join(h.selection)})" if h.selection else "")
           + f"; a change is compare's: p < {h.alpha:g} and at least {100 * h.min_effect:g}% (exact: any)"]
    for case in h.cases:
        marked = len(case.changes())
        out.append("")
        out.append(f"{case.name}  {case.metric} ({case.unit}): {marked} change(s)")
        out.append(aligned(HEADER, table_rows(case)))
    return "\n".join(out) + "\n"
