"""Comparing two stored runs: read -> pure compare -> render.

Per case (matched by name), on the metric named, or by default on every
headline metric (metrics.HEADLINE) that both runs measured for the case, per
side for TLS: a host run compares times, a firmware run instruction counts.
For each: the two medians, their ratio, and a Mann-Whitney U test on the raw
per-operation samples. A change is called only when it is significant
(two-sided p < alpha), at least ``min_effect`` large, and the 95% bootstrap
interval of B/A lies wholly beyond ``min_effect``, widened by how far the
machine's speed moved around the case and by how far the case's own agent
processes lie apart within each run (a host run of several rounds: its
slowest round's median over its fastest's, stats.process_spread; two runs
of unchanged code differ by the process as much). "same" needs the opposite
evidence: the whole interval within ``min_effect`` of 1. Anything between
(too few samples for the test to reach alpha at all, or an interval that
reaches past the minimum effect on either side of 1) is "inconclusive",
never "same". Cases on one side only, or not measured on one side, are
listed as such. Differences in what made the runs (target, board, profile,
machine, library versions, tlsbench) are reported first, short: such runs
are compared, but never silently.

The ratio B/A comes with a 95% bootstrap confidence interval (medians of
resampled raw samples, fixed seed: the same runs give the same interval).
Deterministic metrics (bytes, records, round trips, instruction counts, heap,
stack, allocations) are compared exactly, without statistics: equal, or
changed by a difference; every such metric of both runs is listed too. A
count that depends on the keys and random values a host run draws
(metrics.VARIES_ON_HOST), between two host runs, "varies" when its medians
differ by no more than the wider of the two runs' own ranges or when those
ranges overlap, and is "changed" beyond that; on firmware every count is
exact by construction.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench import versions
from tlsbench.engine import metrics, steadiness
from tlsbench.engine.case import split_repeats
from tlsbench.engine.stats import bootstrap_ratio_ci, mann_whitney_p, median, process_spread, rounds_of, smallest_p
from tlsbench.engine.store import RunInfo, Store
from tlsbench.families import registry
from tlsbench.report import tables
from tlsbench.targets.target import is_host

ALPHA = 0.01
MIN_EFFECT = 0.05


@dataclass
class Row:
    name: str
    verdict: str  # faster | slower | same | inconclusive | changed | varies | only in A | only in B | not measured
    median_a: float | None = None
    median_b: float | None = None
    ratio: float | None = None  # b / a
    p_value: float | None = None
    note: str = ""
    ratio_low: float | None = None  # 95% bootstrap interval of the ratio
    ratio_high: float | None = None
    unit: str = ""
    metric: str = ""
    # the figure each run's report shows (metrics.headline_estimator: a host timing's fastest of all
    # samples); the verdict and the ratio stay the medians' and all samples'
    estimator: str = "median"
    figure_a: float | None = None
    figure_b: float | None = None


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
class ModelRow:
    """One case's cycles measured on a board (its DWT or SysTick counter,
    run ``measured_run``) beside the cycle model's figure for that board
    (an emulated run of the same plan with the board's profile, run
    ``model_run``)."""

    name: str
    measured: float | None  # median cycles per operation, the board's counter
    model: float | None  # model cycles per operation
    ratio: float | None  # measured / model: the model's error on this case (1 = exact)
    note: str = ""


@dataclass
class Comparison:
    run_a: int
    run_b: int
    metric: str  # the metric asked for, or "headline": each case's headline metrics
    alpha: float
    min_effect: float
    context_differences: list[str] = field(default_factory=list)
    machine: list[str] = field(default_factory=list)  # how steady each run's machine was, and what that explains
    rows: list[Row] = field(default_factory=list)
    exact: list[ExactRow] = field(default_factory=list)  # every deterministic metric of both runs
    # a board's measured cycles beside the model's, when one run has each
    measured_run: int | None = None
    model_run: int | None = None
    measured_vs_model: list[ModelRow] = field(default_factory=list)
    model_error: str = ""  # the model run's core: its error on the published rows (modelerror)

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
    # case -> the reference workload's times around its rounds (host runs; engine/steadiness.py)
    references: dict[str, list[int]] = field(default_factory=dict)
    reference_kind: str = ""  # the workload those references timed (steadiness.kind)
    target: str = ""  # where the run measured (host, qemu:..., serial:...): which figure its reports show
    # timed metric -> case -> each round's values (one agent process each; runs of several rounds)
    rounds: dict[str, dict[str, list[list[float]]]] = field(default_factory=dict)


# ---- read ----

# A value longer than this (a library's whole configuration) is reported as
# "differs" with its length, not printed whole.
LONG_CONTEXT = 80


def _context(store: Store, run: RunInfo) -> dict[str, str]:
    """What made the run, most telling first: target, board and profiles,
    then the machine, versions and method (compare keeps this order)."""
    ctx = {
        **user_build_context(run.machine),  # the user's own build first: it decides every figure
        "target": run.target,
        "board": str(run.machine.get("board", "-")),
        "profiles": ",".join(f"{k}={v}" for k, v in sorted((run.machine.get("profiles") or {}).items())) or "-",
        "cpu": str(run.machine.get("cpu_model")),
        "cpu features": ",".join(sorted(run.machine.get("cpu_flags") or [])) or "-",  # the code paths libraries take
        "cores": str(run.machine.get("cores")),
        "kernel": str(run.machine.get("kernel")),
        "tlsbench": run.tlsbench_version,
        "method": json.dumps(run.plan.get("method"), sort_keys=True),
        **registry.figure_settings(run.plan),
    }
    for lib in store.libraries(run.id):
        ctx[f"{lib['library']} version"] = lib["version"]
        ctx[f"{lib['library']} config"] = lib["config"]
    return ctx


def read(store: Store, run_id: int, metric: str | None) -> RunSide:
    """The run's context, units, and the values of ``metric`` (None: every
    headline metric), and of every exact metric it stored."""
    stored = store.sample_counters(run_id)
    wanted = ({metric} if metric else set(metrics.headline(stored))) | {m for m in stored if metrics.is_exact(m)}
    wanted |= {m for m in MEASURED_AND_MODEL if m in stored}
    refs = steadiness.references(dict(r) for r in store.case_rounds(run_id))
    run = store.get_run(run_id)
    return RunSide(run_id, _context(store, run), {r["metric"]: r["unit"] for r in store.results(run_id)},
                   {m: store.per_op_values(run_id, m) for m in sorted(wanted)}, refs,
                   steadiness.kind(run.machine, bool(refs)), run.target,
                   read_rounds(store, run, [m for m in wanted if not metrics.is_exact(m)]))


def read_rounds(store: Store, run: RunInfo, timed: list[str]) -> dict[str, dict[str, list[list[float]]]]:
    """Each timed metric's values per case, round by round (the batch index says which round); none
    for a run of one round."""
    method = run.plan.get("method", {})
    split = split_repeats(int(method.get("repeats", 1)), int(method.get("rounds", 1)))
    if len(split) < 2:
        return {}
    return {m: {name: rounds_of(pairs, split) for name, pairs in store.per_op_indexed(run.id, m).items()}
            for m in sorted(timed)}


# ---- pure comparison ----

# a board's counter and the cycle model's figure for the same work
MEASURED_AND_MODEL = ("cycles", "model_cycles")


def measured_vs_model(a: RunSide, b: RunSide) -> tuple[int | None, int | None, list[ModelRow]]:
    """When one run measured ``cycles`` (a board's counter) and the other
    ``model_cycles`` (the cycle model), each case of both: the measured
    median over the model's. Returns (measured run, model run, rows)."""
    def has(side: RunSide, metric: str) -> bool:
        return any(values for _, values in side.values.get(metric, {}).values())
    if has(a, "cycles") and has(b, "model_cycles") and not has(a, "model_cycles"):
        meas, model = a, b
    elif has(b, "cycles") and has(a, "model_cycles") and not has(b, "model_cycles"):
        meas, model = b, a
    else:
        return None, None, []
    measured_cases, model_cases = meas.values["cycles"], model.values["model_cycles"]
    rows = []
    for name in dict.fromkeys([*measured_cases, *model_cases]):
        mv = measured_cases.get(name, ("", []))[1]
        pv = model_cases.get(name, ("", []))[1]
        m = median(mv) if mv else None
        p = median(pv) if pv else None
        note = "" if mv and pv else "measured only" if mv else "model only"
        rows.append(ModelRow(name, m, p, m / p if m is not None and p else None, note))
    return meas.run_id, model.run_id, rows

def _exact_value(values: list[float]) -> tuple[float, str]:
    """The value of a deterministic metric in a run, and a note when its samples differ."""
    lo, hi = min(values), max(values)
    return median(values), "" if lo == hi else f"varies {lo:g}..{hi:g}"


def exact_row(name: str, metric: str, va: list[float], vb: list[float], drawn: bool = False) -> ExactRow:
    """drawn: the count depends on random values each run draws anew (both
    runs on the host, metrics.exact_between_runs): a difference of the
    medians no larger than the wider of the two runs' own ranges, or
    between runs whose ranges overlap, is the spread the runs measured,
    "varies"; otherwise "changed". (A count drawn three ways, an ECDSA
    signature's 70-72 bytes, gave one run 1930..1931 and the next
    1931..1932: medians 2 apart, each range 1 wide, the same draws.)"""
    a, note_a = _exact_value(va)
    b, note_b = _exact_value(vb)
    notes = "; ".join(f"{side}: {n}" for side, n in (("A", note_a), ("B", note_b)) if n)
    if a == b:
        verdict = "varies" if notes else "same"
    elif drawn and abs(b - a) <= (spread := max(max(va) - min(va), max(vb) - min(vb))):
        verdict = "varies"
        notes = f"within the runs' own spread ({spread:g}); {notes}"
    elif drawn and max(va) >= min(vb) and max(vb) >= min(va):
        verdict = "varies"
        notes = f"the runs' ranges overlap; {notes}"
    else:
        verdict = "changed"
    return ExactRow(name, metric, verdict, a, b, b - a, notes)


def _drawn(a: RunSide, b: RunSide, metric: str) -> bool:
    """Whether this count of these two runs may differ without a change: both runs on a target where it
    depends on values drawn per run (one firmware run: exact, a difference is a change)."""
    return not (metrics.exact_between_runs(metric, is_host(a.context.get("target", "")))
                or metrics.exact_between_runs(metric, is_host(b.context.get("target", ""))))


def _exact_all(a: RunSide, b: RunSide) -> list[ExactRow]:
    """Every deterministic metric stored in either run, case by case."""
    rows = []
    for metric in sorted(m for m in {*a.values, *b.values} if metrics.is_exact(m)):
        sa, sb = a.values.get(metric, {}), b.values.get(metric, {})
        for name in dict.fromkeys([*sa, *sb]):
            va = sa.get(name, ("", []))[1]
            vb = sb.get(name, ("", []))[1]
            if va and vb:
                rows.append(exact_row(name, metric, va, vb, _drawn(a, b, metric)))
            elif va:
                rows.append(ExactRow(name, metric, "only in A", a=median(va)))
            elif vb:
                rows.append(ExactRow(name, metric, "only in B", b=median(vb)))
    return rows


def statistical_row(name: str, va: list[float], vb: list[float], alpha: float, min_effect: float,
                    lower_is_better: bool, unit: str, metric: str = "", machine: float = 1.0,
                    processes: float = 1.0, whose: str = "its agent processes") -> Row:
    """machine: how far the machine's own speed moved around this case's rounds in the two runs
    (steadiness.moved, >= 1); processes: how far the case's agent processes lie apart within a run
    (stats.process_spread, >= 1), ``whose`` saying which processes set it: a change is called only beyond
    the minimum effect widened by both."""
    med_a, med_b = median(va), median(vb)
    ratio = med_b / med_a if med_a else None
    p = mann_whitney_p(va, vb)
    ci = bootstrap_ratio_ci(va, vb)
    # a change is called when the test says the samples differ AND the
    # whole 95% interval of B/A lies beyond the minimum effect, widened by
    # the machine's own speed change and by the spread of the case's own
    # processes: that much difference can be the machine or the process
    widen = machine * processes
    low, high = (1 - min_effect) / widen, (1 + min_effect) * widen
    beyond = ci is not None and (ci[1] <= low or ci[0] >= high)
    significant = (p is not None and p < alpha and ratio is not None and (ratio <= low or ratio >= high)
                   and beyond)
    # "same" is a claim too: the whole interval within the minimum effect
    within = ci is not None and 1 - min_effect < ci[0] and ci[1] < 1 + min_effect
    underpowered = p is None or smallest_p(len(va), len(vb)) >= alpha
    if significant:
        assert ratio is not None
        verdict = "slower" if (ratio > 1) == lower_is_better else "faster"
    elif within and not underpowered:
        verdict = "same"
    else:
        verdict = "inconclusive"
    if p is None:
        note = "too few samples for a test: measure more repeats"
    elif not significant and underpowered:
        note = f"{len(va)} and {len(vb)} samples cannot reach p < {alpha:g}: measure more repeats"
    elif verdict == "inconclusive" and within_widening(ci, min_effect, widen):
        causes = []
        if machine > 1:
            causes.append(f"the machine's speed changed by {100 * (machine - 1):.0f}% around this case"
                          " (reference workload)")
        if processes > 1:
            causes.append(f"{whose} lie up to {100 * (processes - 1):.0f}% apart within a run")
        who = "either" if len(causes) == 2 else "the machine" if machine > 1 else "the process"
        note = f"inconclusive: {' and '.join(causes)}: a difference that size can be {who}"
    elif verdict == "inconclusive":
        note = f"B/A 95% interval reaches beyond ±{100 * min_effect:g}%: more repeats or a quieter machine"
    else:
        note = ""
    return Row(name, verdict, med_a, med_b, ratio, p, note, ci[0] if ci else None, ci[1] if ci else None, unit,
               metric)


def within_widening(ci: tuple[float, float] | None, min_effect: float, widen: float) -> bool:
    """Whether the interval lies beyond the minimum effect (but not beyond it widened by the machine and
    the processes, the caller's verdict)."""
    if ci is None or widen <= 1.0:
        return False
    return ci[1] <= 1 - min_effect or ci[0] >= 1 + min_effect


CONFIG_TEXT = " your config text"  # a context key's suffix: the file's text, compared line by line


def user_build_context(machine: dict) -> dict[str, str]:
    """The user's config files (name, hash, how applied; their text apart) and compiler options of a run."""
    user = machine.get("user_build") or {}
    out = {}
    for lib, c in sorted(user.get("configs", {}).items()):
        how = "whole configuration" if c["full"] else "layered over ours"
        out[f"{lib} your config file"] = f"{Path(c['path']).name} ({how}, sha256 {c['sha256'][:16]})"
        out[f"{lib}{CONFIG_TEXT}"] = c["text"]
    out["your compiler options"] = " ".join(user.get("cflags", ())) or "-"
    return out


def _text_differences(key: str, a: str, b: str) -> list[str]:
    """A config file's lines that one run has and the other lacks ("-": A's only, "+": B's only)."""
    lib = key.removesuffix(CONFIG_TEXT)
    lines = [line for line in difflib.ndiff(a.splitlines(), b.splitlines()) if line[:2] in ("- ", "+ ")]
    return [f"{lib} your config: {line[0]} {line[2:].strip()}" for line in lines if line[2:].strip()]


def _differences(a: dict[str, str], b: dict[str, str]) -> list[str]:
    """The context keys whose values differ, in the order of the context, short."""
    out = []
    mine = [k for k in [*a, *b] if k.endswith((" your config file", CONFIG_TEXT)) or k == "your compiler options"]
    mine.sort(key=lambda k: k == "your compiler options")  # each file, then the flags
    for key in dict.fromkeys([*mine, *a, *b]):  # the user's own build first, whichever run has it
        va, vb = a.get(key, "-"), b.get(key, "-")
        if va == vb:
            continue
        if key.endswith(CONFIG_TEXT):
            out += _text_differences(key, a.get(key, ""), b.get(key, ""))
        elif max(len(va), len(vb)) > LONG_CONTEXT:
            out.append(f"{key}: differs ({len(va):,} -> {len(vb):,} characters; tlsbench report --format json)")
        else:
            out.append(f"{key}: {va} -> {vb}")
    return out


def machine_lines(a: RunSide, b: RunSide) -> list[str]:
    """Each run's steadiness line and how large a B/A the machine's own speed change can explain
    (none for runs without references: firmware, or stored before them)."""
    refs_a = [ns for refs in a.references.values() for ns in refs]
    refs_b = [ns for refs in b.references.values() for ns in refs]
    if not refs_a and not refs_b:
        return []
    lines = [f"A: {steadiness.line(refs_a)}", f"B: {steadiness.line(refs_b)}"]
    moved = [steadiness.moved(a.references[n], b.references[n], a.reference_kind, b.reference_kind)
             for n in a.references if n in b.references]
    if refs_a and refs_b and moved and a.reference_kind != b.reference_kind:
        lines.append(f"the runs timed different reference workloads (A: {a.reference_kind}; B:"
                     f" {b.reference_kind}): how the machine's speed differed between them is not known; around a"
                     f" case's rounds each run's own speed moved by up to {max(moved):.2f}x (median case"
                     f" {median(moved):.2f}x), and a change is called only beyond the minimum effect widened by"
                     " the case's own figure")
    elif refs_a and refs_b and moved:
        lines.append(f"the reference workload took {median(refs_b) / median(refs_a):.2f}x as long in B as in A"
                     f" (medians); around a case's rounds the machine's speed moved by up to {max(moved):.2f}x"
                     f" (median case {median(moved):.2f}x): a B/A that size can be the machine, so a change is"
                     " called only beyond the minimum effect widened by the case's own figure")
    return lines


def _case_metrics(a: RunSide, b: RunSide, name: str, metric: str | None) -> list[str]:
    """The metrics to compare a case on: the one asked for, or the headline
    metrics both runs measured for it (at least one, for the 'not measured' row)."""
    if metric:
        return [metric]
    def measured(side: RunSide) -> set[str]:
        return {m for m, per_case in side.values.items() if per_case.get(name, ("", []))[1]}
    both = metrics.headline(measured(a) & measured(b))
    return both or metrics.headline(measured(a) | measured(b))[:1] or [""]


def size_neighbours(names: Iterable[str]) -> dict[str, list[str]]:
    """Each sized case ("lib/kind/alg/op/SIZE") -> the same operation at the next smaller and the next
    larger size among ``names``: the same code, so the same speed modes per process. A process can draw
    a slow or a fast mode of the code's layout (OpenSSL's one-block SHA-512: 255 or 285 ns, about half of
    the processes each, docs/method.md); three processes of a run can all draw one mode, and the case's
    own rounds then agree, while its neighbours' rounds show both."""
    by_op: dict[str, list[int]] = {}
    for n in names:
        head, _, size = n.rpartition("/")
        if head and size.isdigit():
            by_op.setdefault(head, []).append(int(size))
    out: dict[str, list[str]] = {}
    for head, sizes in by_op.items():
        ordered = sorted(set(sizes))
        for i, size in enumerate(ordered):
            out[f"{head}/{size}"] = [f"{head}/{s}" for s in ordered[max(0, i - 1):i] + ordered[i + 1:i + 2]]
    return out


def _processes(a: RunSide, b: RunSide, name: str, metric: str, neighbours: list[str]) -> tuple[float, str]:
    """How far the case's agent processes lie apart within a run, or those of its size neighbours where
    they lie further apart, and whose they are."""
    rounds_a, rounds_b = a.rounds.get(metric, {}), b.rounds.get(metric, {})
    own = process_spread(rounds_a.get(name, []), rounds_b.get(name, []))
    near = process_spread(*(r.get(n, []) for n in neighbours for r in (rounds_a, rounds_b)))
    if near > own:
        return near, "the agent processes of the same operation at the next sizes"
    return own, "its agent processes"


def _metric_row(a: RunSide, b: RunSide, name: str, metric: str, alpha: float, min_effect: float,
                neighbours: list[str] | None = None) -> Row:
    unit = b.units.get(metric) or a.units.get(metric, "")
    st_a, va = a.values.get(metric, {}).get(name, ("", []))
    st_b, vb = b.values.get(metric, {}).get(name, ("", []))
    if not va or not vb:
        def why(status: str, values: list[float]) -> str:
            return "measured" if values else f"{status}, {metric or 'nothing'} not measured" if status == "ok" \
                else status
        return Row(name, "not measured", note=f"A: {why(st_a, va)}; B: {why(st_b, vb)}", unit=unit, metric=metric)
    if metrics.is_exact(metric):
        e = exact_row(name, metric, va, vb, _drawn(a, b, metric))
        ratio = e.b / e.a if e.a else None
        note = "exact" + (f"; {e.note}" if e.note else "")
        return Row(name, e.verdict, e.a, e.b, ratio, None, note, unit=unit, metric=metric)
    machine = steadiness.moved(a.references.get(name, []), b.references.get(name, []), a.reference_kind,
                               b.reference_kind)
    processes, whose = _processes(a, b, name, metric, neighbours or [])
    row = statistical_row(name, va, vb, alpha, min_effect, metrics.lower_is_better(metric), unit, metric, machine,
                          processes, whose)
    estimator = metrics.headline_estimator(metric, is_host(a.target))
    if estimator != "median":  # printed beside the verdict as the reports show it
        row.estimator, row.figure_a, row.figure_b = estimator, metrics.figure_of(estimator, va), \
            metrics.figure_of(estimator, vb)
    return row


def compare_runs(a: RunSide, b: RunSide, metric: str | None, alpha: float = ALPHA,
                 min_effect: float = MIN_EFFECT) -> Comparison:
    """Pure: two runs' values in, the comparison out. Exact metrics compare
    as equal or changed, noisy ones by the test and the minimum effect.
    metric None: each case on the headline metrics both runs measured."""
    result = Comparison(a.run_id, b.run_id, metric or "headline", alpha, min_effect)
    result.context_differences = _differences(a.context, b.context)
    result.machine = machine_lines(a, b)
    names_a = dict.fromkeys(n for per_case in a.values.values() for n in per_case)
    names_b = dict.fromkeys(n for per_case in b.values.values() for n in per_case)
    near = size_neighbours(names_a.keys() & names_b.keys())
    for name in dict.fromkeys([*names_a, *names_b]):
        if name not in names_b:
            result.rows.append(Row(name, "only in A", metric=metric or ""))
        elif name not in names_a:
            result.rows.append(Row(name, "only in B", metric=metric or ""))
        else:
            result.rows += [_metric_row(a, b, name, m, alpha, min_effect, near.get(name))
                            for m in _case_metrics(a, b, name, metric)]
    result.exact = _exact_all(a, b)
    result.measured_run, result.model_run, result.measured_vs_model = measured_vs_model(a, b)
    return result


def one_version(side: RunSide, ident: str) -> RunSide:
    """Pure: only the cases of one library version ("openssl@3.5"), named by
    their library alone ("openssl/kem/..."), so two versions of a library
    compare case by case, from one run or two. Its version and configuration
    stay in the context under the library's name: compare shows them as the
    difference between the two sides."""
    lib = ident.split("@", 1)[0]
    # a run stored before a default changed names the version by that day's identifier
    recorded = {k.removesuffix(" version"): v for k, v in side.context.items() if k.endswith(" version")}
    ident = versions.stored_name(ident, recorded) if versions.base(ident) in versions.VERSIONS else ident
    prefix = f"{ident}/" if ident else "\0"  # "": the run has no case of that version
    values = {m: {f"{lib}/{n[len(prefix):]}": v for n, v in per_case.items() if n.startswith(prefix)}
              for m, per_case in side.values.items()}
    context = {k: v for k, v in side.context.items() if not k.endswith((" version", " config"))}
    for what in ("version", "config"):
        if f"{ident} {what}" in side.context:
            context[f"{lib} {what}"] = side.context[f"{ident} {what}"]
    for suffix in (" your config file", CONFIG_TEXT):  # an alias's own file, else its library's
        mine = next((f"{k}{suffix}" for k in (ident, lib) if f"{k}{suffix}" in side.context), None)
        context = {k: v for k, v in context.items()
                   if not (k.endswith(suffix) and k.removesuffix(suffix).split("@", 1)[0] == lib)}
        if mine is not None:
            context[f"{lib}{suffix}"] = side.context[mine]
    references = {f"{lib}/{n[len(prefix):]}": v for n, v in side.references.items() if n.startswith(prefix)}
    rounds = {m: {f"{lib}/{n[len(prefix):]}": r for n, r in per_case.items() if n.startswith(prefix)}
              for m, per_case in side.rounds.items()}
    return RunSide(side.run_id, context, side.units, values, references, target=side.target, rounds=rounds)


def compare(store: Store, run_a: int, run_b: int, metric: str | None = None, alpha: float = ALPHA,
            min_effect: float = MIN_EFFECT, versions: tuple[str, str] | None = None) -> Comparison:
    """Read both runs, compare them. An unknown metric is an error naming the nearest ones.
    versions (A's library version, B's): compare those two versions of one library (one_version)."""
    if metric:
        metrics.get(metric)
    a, b = read(store, run_a, metric), read(store, run_b, metric)
    if versions is not None:
        a, b = one_version(a, versions[0]), one_version(b, versions[1])
    result = compare_runs(a, b, metric, alpha, min_effect)
    if result.model_run is not None:  # beside measured/model: what the published rows say of the model
        result.model_error = tables.model_error_line(tables.load(store, result.model_run)) or ""
    return result


def _worse(r: Row, limit: float, value: float) -> bool:
    return value > limit if metrics.lower_is_better(r.metric) else value * limit < 1


def regressions(c: Comparison, pct: float) -> list[Row]:
    """Cases significantly worse (slower, or for a count larger; for a rate
    smaller) by more than pct percent."""
    limit = 1 + pct / 100
    worse = [r for r in c.rows if r.ratio is not None and _worse(r, limit, r.ratio)]
    return [r for r in worse if r.verdict == "slower" or (r.verdict == "changed" and metrics.is_exact(r.metric))]


def undecided(c: Comparison, pct: float) -> list[Row]:
    """Inconclusive cases that may hide a regression larger than pct percent:
    no interval, or its worse end beyond the limit. The CI gate reports them
    as their own outcome, never as "same"."""
    limit = 1 + pct / 100
    out = []
    for r in c.rows:
        if r.verdict != "inconclusive":
            continue
        worst = r.ratio_high if metrics.lower_is_better(r.metric) else r.ratio_low
        if worst is None or _worse(r, limit, worst):
            out.append(r)
    return out
