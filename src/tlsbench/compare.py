"""Comparing two stored runs: read -> pure compare -> render.

Per case (matched by name), on one metric: the two medians, their ratio, and
a Mann-Whitney U test on the raw per-operation samples. A change is called
only when it is both significant (two-sided p < alpha) and at least
``min_effect`` large; a test that cannot be made (too few samples) is "not
significant", never "significant". Cases on one side only, or not measured
on one side, are listed as such. Differences in what made the runs (machine,
library versions, tlsbench) are reported first: such runs are compared, but
never silently.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

from .store import Store

ALPHA = 0.01
MIN_EFFECT = 0.05


@dataclass
class Row:
    name: str
    verdict: str  # faster | slower | same | only in A | only in B | not measured
    median_a: float | None = None
    median_b: float | None = None
    ratio: float | None = None  # b / a
    p_value: float | None = None
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


def compare(store: Store, run_a: int, run_b: int, metric: str = "wall_ns", alpha: float = ALPHA,
            min_effect: float = MIN_EFFECT) -> Comparison:
    result = Comparison(run_a, run_b, metric, alpha, min_effect)
    ca, cb = _context(store, run_a), _context(store, run_b)
    for key in sorted(set(ca) | set(cb)):
        if ca.get(key) != cb.get(key):
            result.context_differences.append(f"{key}: {ca.get(key, '-')} -> {cb.get(key, '-')}")
    sa, sb = _samples(store, run_a, metric), _samples(store, run_b, metric)
    for name in list(dict.fromkeys([*sa, *sb])):
        if name not in sb:
            result.rows.append(Row(name, "only in A"))
            continue
        if name not in sa:
            result.rows.append(Row(name, "only in B"))
            continue
        (st_a, va), (st_b, vb) = sa[name], sb[name]
        if not va or not vb:
            result.rows.append(Row(name, "not measured", note=f"A: {st_a}, B: {st_b}"))
            continue
        med_a, med_b = _median(va), _median(vb)
        ratio = med_b / med_a if med_a else None
        p = mann_whitney_p(va, vb)
        significant = p is not None and p < alpha and ratio is not None and abs(ratio - 1) >= min_effect
        verdict = ("slower" if ratio > 1 else "faster") if significant else "same"
        note = "" if p is not None else "too few samples for a test"
        result.rows.append(Row(name, verdict, med_a, med_b, ratio, p, note))
    return result


def _median(values: list[float]) -> float:
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def render(c: Comparison, fmt: str = "table", only_changes: bool = False) -> str:
    if fmt == "json":
        return json.dumps(asdict(c), indent=1) + "\n"
    md = fmt == "markdown"
    lines = [f"{'## ' if md else ''}tlsbench compare: run {c.run_a} (A) -> run {c.run_b} (B), metric {c.metric}",
             f"verdict: B is faster/slower when Mann-Whitney p < {c.alpha:g} and the medians differ by >= "
             f"{100 * c.min_effect:g}%; otherwise same"]
    if c.context_differences:
        lines.append("the runs differ in what made them:")
        lines += [f"  {d}" for d in c.context_differences]
    counts = c.counts()
    lines.append("summary: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    header = ["case", "verdict", "median A", "median B", "B/A", "p"]
    body = []
    for r in c.rows:
        if only_changes and r.verdict == "same":
            continue
        body.append([
            r.name, r.verdict,
            "" if r.median_a is None else f"{r.median_a:.4g}",
            "" if r.median_b is None else f"{r.median_b:.4g}",
            "" if r.ratio is None else f"{r.ratio:.3f}",
            "" if r.p_value is None else f"{r.p_value:.2g}",
        ] + ([r.note] if r.note else []))
    width = len(header)
    body = [row[:width] + ([" ".join(row[width:])] if len(row) > width else []) for row in body]
    if md:
        table = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
        table += ["| " + " | ".join(row[:width]) + " |" for row in body]
    else:
        widths = [max([len(header[i])] + [len(row[i]) for row in body]) for i in range(width)]
        table = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
        table += ["  ".join(v.ljust(w) for v, w in zip(row[:width], widths, strict=True)).rstrip()
                  + (f"  {row[width]}" if len(row) > width else "") for row in body]
    return "\n".join(lines) + "\n\n" + "\n".join(table) + "\n"
