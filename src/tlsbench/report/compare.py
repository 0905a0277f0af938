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
import math
import random
from dataclasses import asdict, dataclass, field

from tlsbench.engine.store import Store

ALPHA = 0.01
MIN_EFFECT = 0.05
BOOTSTRAP_ROUNDS = 2000
BOOTSTRAP_SEED = 20240601
EXACT_SUFFIXES = ("_bytes", "_records", "instructions", "allocations", "round_trips", "flights")


def is_deterministic(metric: str) -> bool:
    """Counts, not times: equal or not, no statistics needed."""
    return metric.endswith(EXACT_SUFFIXES)


@dataclass
class Row:
    name: str
    verdict: str  # faster | slower | same | only in A | only in B | not measured
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


def mann_whitney_p(a: list[float], b: list[float]) -> float | None:
    """Two-sided p-value of the Mann-Whitney U test (normal approximation
    with tie correction and continuity correction); None below 3 samples."""
    n1, n2 = len(a), len(b)
    if n1 < 3 or n2 < 3:
        return None
    values = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(values)
    ties = 0.0
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1][0] == values[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t**3 - t
        i = j + 1
    r1 = sum(r for r, (_, side) in zip(ranks, values, strict=True) if side == 0)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    mean = n1 * n2 / 2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - mean) - 0.5) / math.sqrt(var)
    return max(0.0, min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2))))


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


def _samples(store: Store, run_id: int, metric: str) -> dict[str, tuple[str, list[float]]]:
    """case name -> (status, per-operation values of the measured batches)."""
    out: dict[str, tuple[str, list[float]]] = {}
    for case in store.cases(run_id):
        out[case["name"]] = (case["status"], [])
    rows = store.db.execute(
        "SELECT c.name, s.total, s.iters FROM samples s JOIN cases c ON c.id = s.case_id"
        " WHERE c.run_id=? AND s.warmup=0 AND s.counter=? ORDER BY c.id, s.idx",
        (run_id, metric),
    )
    for name, total, iters in rows:
        out[name][1].append(total / iters)
    return out


def bootstrap_ratio_ci(a: list[float], b: list[float], rounds: int = BOOTSTRAP_ROUNDS,
                       seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """95% percentile interval of median(B*)/median(A*) over resamples of the
    raw samples; None below 3 samples a side or with a zero median."""
    if len(a) < 3 or len(b) < 3:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(rounds):
        ma = _median(rng.choices(a, k=len(a)))
        mb = _median(rng.choices(b, k=len(b)))
        if ma == 0:
            return None
        ratios.append(mb / ma)
    ratios.sort()
    return ratios[int(0.025 * (rounds - 1))], ratios[int(math.ceil(0.975 * (rounds - 1)))]


def smallest_p(n1: int, n2: int) -> float:
    """The smallest p-value mann_whitney_p can give with these sample counts
    (every B sample beyond every A sample)."""
    n = n1 + n2
    z = (n1 * n2 / 2 - 0.5) / math.sqrt(n1 * n2 * (n + 1) / 12)
    return math.erfc(z / math.sqrt(2))


def _exact_value(values: list[float]) -> tuple[float, str]:
    """The value of a deterministic metric in a run, and a note when its samples differ."""
    lo, hi = min(values), max(values)
    return _median(values), "" if lo == hi else f"varies {lo:g}..{hi:g}"


def _exact_row(name: str, metric: str, va: list[float], vb: list[float]) -> ExactRow:
    a, note_a = _exact_value(va)
    b, note_b = _exact_value(vb)
    notes = "; ".join(f"{side}: {n}" for side, n in (("A", note_a), ("B", note_b)) if n)
    verdict = "same" if a == b and not notes else "varies" if notes and a == b else "changed"
    return ExactRow(name, metric, verdict, a, b, b - a, notes)


def _units(store: Store, run_id: int) -> dict[str, str]:
    return {r["metric"]: r["unit"] for r in store.results(run_id)}


def compare(store: Store, run_a: int, run_b: int, metric: str = "wall_ns", alpha: float = ALPHA,
            min_effect: float = MIN_EFFECT) -> Comparison:
    result = Comparison(run_a, run_b, metric, alpha, min_effect)
    ca, cb = _context(store, run_a), _context(store, run_b)
    for key in sorted(set(ca) | set(cb)):
        if ca.get(key) != cb.get(key):
            result.context_differences.append(f"{key}: {ca.get(key, '-')} -> {cb.get(key, '-')}")
    unit = _units(store, run_b).get(metric) or _units(store, run_a).get(metric, "")
    exact = is_deterministic(metric)
    sa, sb = _samples(store, run_a, metric), _samples(store, run_b, metric)
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
        med_a, med_b = _median(va), _median(vb)
        ratio = med_b / med_a if med_a else None
        p = mann_whitney_p(va, vb)
        ci = bootstrap_ratio_ci(va, vb)
        # a change is called when the test says the samples differ AND the
        # whole 95% interval of B/A lies beyond the minimum effect: a shift
        # of a few percent with a wide interval is the machine, not the code
        beyond = ci is not None and (ci[1] <= 1 - min_effect or ci[0] >= 1 + min_effect)
        significant = (p is not None and p < alpha and ratio is not None and abs(ratio - 1) >= min_effect
                       and beyond)
        verdict = ("slower" if ratio > 1 else "faster") if significant else "same"
        if p is None:
            note = "too few samples for a test"
        elif not significant and smallest_p(len(va), len(vb)) >= alpha:
            note = f"{len(va)} and {len(vb)} samples cannot reach p < {alpha:g}: measure more repeats"
        else:
            note = ""
        result.rows.append(Row(name, verdict, med_a, med_b, ratio, p, note,
                               ci[0] if ci else None, ci[1] if ci else None, unit))
    result.exact = _exact_all(store, run_a, run_b)
    return result


def _exact_all(store: Store, run_a: int, run_b: int) -> list[ExactRow]:
    """Every deterministic metric stored in either run, case by case."""
    metrics = sorted({r[0] for run in (run_a, run_b) for r in store.db.execute(
        "SELECT DISTINCT s.counter FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id=?", (run,))
        if is_deterministic(r[0])})
    rows = []
    for metric in metrics:
        sa, sb = _samples(store, run_a, metric), _samples(store, run_b, metric)
        for name in dict.fromkeys([*sa, *sb]):
            va = sa.get(name, ("", []))[1]
            vb = sb.get(name, ("", []))[1]
            if va and vb:
                rows.append(_exact_row(name, metric, va, vb))
            elif va:
                rows.append(ExactRow(name, metric, "only in A", a=_median(va)))
            elif vb:
                rows.append(ExactRow(name, metric, "only in B", b=_median(vb)))
    return rows


def regressions(c: Comparison, pct: float) -> list[Row]:
    """Cases significantly slower (or, for a count, larger) by more than pct percent."""
    limit = 1 + pct / 100
    return [r for r in c.rows if r.ratio is not None and r.ratio > limit
            and (r.verdict == "slower" or (r.verdict == "changed" and is_deterministic(c.metric)))]


def ci_json(c: Comparison) -> list[dict]:
    """Run B's figures in github-action-benchmark's shape (customSmallerIsBetter):
    name, unit, value (median), range (95% bootstrap interval of B/A), extra."""
    out = []
    for r in c.rows:
        if r.median_b is None:
            continue
        if r.ratio_low is not None and r.ratio_high is not None:
            rng = f"B/A {r.ratio_low:.3f}..{r.ratio_high:.3f}"
        else:
            rng = "exact" if is_deterministic(c.metric) else "no interval"
        extra = [f"run {c.run_b} vs run {c.run_a}", f"verdict: {r.verdict}"]
        if r.median_a is not None:
            extra.append(f"A median {r.median_a:.6g}")
        if r.ratio is not None:
            extra.append(f"B/A {r.ratio:.4f}")
        if r.p_value is not None:
            extra.append(f"Mann-Whitney p {r.p_value:.2g}")
        if r.note:
            extra.append(r.note)
        out.append({"name": f"{r.name} {c.metric}", "unit": r.unit or c.metric, "value": r.median_b,
                    "range": rng, "extra": "\n".join(extra)})
    return out


def _median(values: list[float]) -> float:
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


FORMATS = ("table", "markdown", "json", "html")


def header_lines(c: Comparison) -> list[str]:
    lines = [f"verdict: B is faster/slower when Mann-Whitney p < {c.alpha:g}, the medians differ by >= "
             f"{100 * c.min_effect:g}% and the whole B/A 95% interval lies beyond that; otherwise same."
             " B/A 95%: bootstrap interval of the ratio of medians "
             f"({BOOTSTRAP_ROUNDS} resamples, fixed seed). Counts (bytes, instructions, heap, stack) compare "
             "exactly: same or changed."]
    if c.context_differences:
        lines.append("the runs differ in what made them:")
        lines += [f"  {d}" for d in c.context_differences]
    counts = c.counts()
    lines.append("summary: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    changed = [e for e in c.exact if e.verdict != "same"]
    lines.append(f"deterministic metrics: {len(c.exact) - len(changed)} same, {len(changed)} not")
    return lines


def _num(v: float | None, spec: str = ".4g") -> str:
    return "" if v is None else format(v, spec)


def main_table(c: Comparison, only_changes: bool = False) -> tuple[list[str], list[list[str]]]:
    header = ["case", "verdict", "median A", "median B", "B/A", "B/A 95%", "p", "note"]
    body = []
    for r in c.rows:
        if only_changes and r.verdict == "same":
            continue
        interval = f"{r.ratio_low:.3f}..{r.ratio_high:.3f}" if r.ratio_low is not None else ""
        body.append([r.name, r.verdict, _num(r.median_a), _num(r.median_b), _num(r.ratio, ".3f"), interval,
                     _num(r.p_value, ".2g"), r.note])
    return header, body


def exact_table(c: Comparison, only_changes: bool = True) -> tuple[list[str], list[list[str]]]:
    header = ["case", "metric", "verdict", "A", "B", "B - A", "note"]
    body = [[e.name, e.metric, e.verdict, _num(e.a, ",.0f"), _num(e.b, ",.0f"), _num(e.diff, "+,.0f"), e.note]
            for e in c.exact if not (only_changes and e.verdict == "same")]
    return header, body


def _text_table(header: list[str], body: list[list[str]], md: bool) -> list[str]:
    if md:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return out + ["| " + " | ".join(row) + " |" for row in body]
    widths = [max([len(header[i])] + [len(row[i]) for row in body]) for i in range(len(header))]
    fmt = lambda row: "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()  # noqa: E731
    return [fmt(header), *map(fmt, body)]


def render(c: Comparison, fmt: str = "table", only_changes: bool = False) -> str:
    if fmt == "json":
        return json.dumps(asdict(c), indent=1) + "\n"
    if fmt == "html":
        from tlsbench.report import compare_html

        return compare_html.render(c, only_changes)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    md = fmt == "markdown"
    title = f"{'## ' if md else ''}tlsbench compare: run {c.run_a} (A) -> run {c.run_b} (B), metric {c.metric}"
    out = "\n".join([title, *header_lines(c)]) + "\n\n" + "\n".join(_text_table(*main_table(c, only_changes), md))
    header, body = exact_table(c)
    if body:
        out += ("\n\n" + ("### " if md else "") + "deterministic metrics that are not the same\n\n"
                + "\n".join(_text_table(header, body, md)))
    return out + "\n"
