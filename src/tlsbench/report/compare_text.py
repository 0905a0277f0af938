"""Renderers of a comparison (report.compare): terminal table, Markdown,
JSON, and github-action-benchmark's JSON. The HTML page is report.compare_html."""

from __future__ import annotations

import json
from dataclasses import asdict

from tlsbench.engine import metrics
from tlsbench.engine.stats import BOOTSTRAP_ROUNDS, median
from tlsbench.report.compare import Comparison, Row


def ci_json(c: Comparison) -> list[dict]:
    """Run B's figures in github-action-benchmark's shape (customSmallerIsBetter):
    name, unit, value (the figure B's report shows: a host timing's fastest
    sample, else the median), range (95% bootstrap interval of B/A), extra."""
    out = []
    for r in c.rows:
        value = _figure_b(r)
        if value is None:
            continue
        metric = r.metric or c.metric
        if r.ratio_low is not None and r.ratio_high is not None:
            rng = f"B/A {r.ratio_low:.3f}..{r.ratio_high:.3f}"
        else:
            rng = "exact" if metrics.is_exact(metric) else "no interval"
        extra = [f"run {c.run_b} vs run {c.run_a}", f"verdict: {r.verdict}"]
        if r.estimator != "median":  # the value is not the median the verdict tests: both are said
            extra.append(f"value: B's {r.estimator} of its samples; B median {r.median_b:.6g}")
            if r.figure_a is not None:
                extra.append(f"A {r.estimator} {r.figure_a:.6g}")
        if r.median_a is not None:
            extra.append(f"A median {r.median_a:.6g}")
        if r.ratio is not None:
            extra.append(f"B/A {r.ratio:.4f}")
        if r.p_value is not None:
            extra.append(f"Mann-Whitney p {r.p_value:.2g}")
        if r.note:
            extra.append(r.note)
        out.append({"name": f"{r.name} {metric}", "unit": r.unit or metric, "value": value,
                    "range": rng, "extra": "\n".join(extra)})
    return out


def bmf_json(c: Comparison) -> dict[str, dict[str, dict[str, float]]]:
    """Run B's figures in the Bencher Metric Format: {case: {metric: {"value":
    figure}}}, the figure B's report shows (as ci_json). No lower_value/upper_value:
    compare's interval is of the ratio B/A, not of B's value, and is not passed off as one."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for r in c.rows:
        value = _figure_b(r)
        if value is not None:
            out.setdefault(r.name, {})[r.metric or c.metric] = {"value": value}
    return out


def _figure_b(r: Row) -> float | None:
    """B's figure as its report shows it (metrics.headline_estimator), for the exports a CI dashboard
    tracks: a host timing's fastest sample moves least with the machine."""
    if r.median_b is None:
        return None
    return r.figure_b if r.estimator != "median" and r.figure_b is not None else r.median_b


FORMATS = ("table", "markdown", "json")  # and html: report.compare_html
# The version of `compare --format json`'s document (its "format" field): raised when a field changes
# meaning or goes. ci_json and bmf_json are other tools' formats (github-action-benchmark's, Bencher's),
# versioned by them: nothing is added to them.
JSON_VERSION = 1


def header_lines(c: Comparison) -> list[str]:
    effect = f"{100 * c.min_effect:g}%"
    lines = [f"verdict: B is faster/slower when Mann-Whitney p < {c.alpha:g}, the medians differ by >= "
             f"{effect} and the whole B/A 95% interval lies beyond that; same when the whole interval lies within"
             f" {effect} of 1; otherwise inconclusive (too few samples to reach p < {c.alpha:g}, or an interval"
             f" wider than {effect}: more repeats or a quieter machine). B/A 95%: bootstrap interval of the ratio"
             " of medians "
             f"({BOOTSTRAP_ROUNDS} resamples, fixed seed). Counts (bytes, instructions, heap, stack) compare "
             "exactly: same or changed; between two host runs, a count that depends on the keys and random values"
             " each run draws (heap, allocations, the stack, handshake bytes) varies when the medians differ by no more"
             " than the runs' own spread or the runs' ranges overlap (tlsbench list metrics: exact (host: drawn))."]
    if c.context_differences:
        lines.append("the runs differ in what made them:")
        lines += [f"  {d}" for d in c.context_differences]
    if c.machine:
        lines.append("the machine's speed (reference workload around each round):")
        lines += [f"  {m}" for m in c.machine]
    counts = c.counts()
    if headlined(c):
        lines.append(FIGURES_NOTE)
    lines.append("summary: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    if c.metric == "headline":
        shown = sorted({r.metric for r in c.rows if r.metric})
        lines.append("metrics: each case's headline metrics both runs measured (per side for TLS): "
                     + (", ".join(shown) or "none") + " (--metric NAME for another; tlsbench list metrics)")
    by_verdict: dict[str, int] = {}
    for e in c.exact:  # "only in A/B" is a case one run did not make, not a count that moved
        by_verdict[e.verdict] = by_verdict.get(e.verdict, 0) + 1
    lines.append("deterministic metrics: " + ", ".join(
        f"{by_verdict[v]} {v}" for v in ("same", "changed", "varies", "only in A", "only in B") if v in by_verdict))
    return lines


def _num(v: float | None, spec: str = ".4g") -> str:
    return "" if v is None else format(v, spec)


def _value(metric: str, v: float | None) -> str:
    """A median with its unit, formatted by the metric's kind in the registry."""
    if v is None:
        return ""
    return metrics.format_value(metric, v) if metric in metrics.REGISTRY else format(v, ".4g")


def headlined(c: Comparison) -> bool:
    """Some row shows a figure other than the median (a host timing's fastest sample)."""
    return any(r.estimator != "median" for r in c.rows)


# said under a table whose A and B are the reports' figures, not the medians the verdict tests
FIGURES_NOTE = ("A, B: each run's figure as its report shows it: a host timing's fastest sample (the least of all"
                " samples; a rate's highest), a count's median; the verdict, B/A and its interval are the medians'"
                " and all samples', as above")


def main_table(c: Comparison, only_changes: bool = False) -> tuple[list[str], list[list[str]]]:
    figures = headlined(c)
    header = ["case", "metric", "verdict", *(("A", "B") if figures else ("median A", "median B")),
              "B/A", "B/A 95%", "p", "note"]
    body = []
    for r in c.rows:
        if only_changes and r.verdict == "same":
            continue
        interval = f"{r.ratio_low:.3f}..{r.ratio_high:.3f}" if r.ratio_low is not None else ""
        metric = r.metric or c.metric
        a, b = (r.figure_a, r.figure_b) if r.estimator != "median" else (r.median_a, r.median_b)
        body.append([r.name, r.metric, r.verdict, _value(metric, a), _value(metric, b),
                     _num(r.ratio, ".3f"), interval, _num(r.p_value, ".2g"), r.note])
    return header, body


def exact_table(c: Comparison, only_changes: bool = True) -> tuple[list[str], list[list[str]]]:
    header = ["case", "metric", "verdict", "A", "B", "B - A", "note"]
    body = [[e.name, e.metric, e.verdict, _value(e.metric, e.a), _value(e.metric, e.b), _num(e.diff, "+,.0f"), e.note]
            for e in c.exact if not (only_changes and e.verdict == "same")]
    return header, body


def model_table(c: Comparison) -> tuple[list[str], list[list[str]]]:
    header = ["case", f"measured cycles/op (run {c.measured_run})", f"model cycles/op (run {c.model_run})",
              "measured/model", "note"]
    body = [[m.name, _num(m.measured, ",.0f"), _num(m.model, ",.0f"), _num(m.ratio, ".3f"), m.note]
            for m in c.measured_vs_model]
    return header, body


def model_summary(c: Comparison) -> str:
    """The spread of measured/model over the cases that have both."""
    ratios = sorted(m.ratio for m in c.measured_vs_model if m.ratio is not None)
    if not ratios:
        return "no case has both a measured and a model figure"
    return (f"measured/model over {len(ratios)} cases: median {median(ratios):.3f}, min {ratios[0]:.3f},"
            f" max {ratios[-1]:.3f} (1 = the model is exact; the model: docs/cycle-model.md)")


def _text_table(header: list[str], body: list[list[str]], md: bool) -> list[str]:
    if md:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return out + ["| " + " | ".join(row) + " |" for row in body]
    widths = [max([len(header[i])] + [len(row[i]) for row in body]) for i in range(len(header))]
    fmt = lambda row: "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()  # noqa: E731
    return [fmt(header), *map(fmt, body)]


def render(c: Comparison, fmt: str = "table", only_changes: bool = False) -> str:
    if fmt == "json":
        data = {"format": JSON_VERSION, **asdict(c)}
        if not c.measured_vs_model:  # runs without a board's counter read exactly as before
            for key in ("measured_run", "model_run", "measured_vs_model", "model_error"):
                data.pop(key)
        if not c.machine:  # runs without references (firmware, older stores) read exactly as before
            data.pop("machine")
        return json.dumps(data, indent=1) + "\n"
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    md = fmt == "markdown"
    title = f"{'## ' if md else ''}tlsbench compare: run {c.run_a} (A) -> run {c.run_b} (B), metric {c.metric}"
    out = "\n".join([title, *header_lines(c)]) + "\n\n" + "\n".join(_text_table(*main_table(c, only_changes), md))
    if c.measured_vs_model:
        out += ("\n\n" + ("### " if md else "") + "cycles measured on the board beside the cycle model\n\n"
                + model_summary(c) + "\n\n"
                + (f"the model's validated error: {c.model_error}\n\n" if c.model_error else "")
                + "\n".join(_text_table(*model_table(c), md)))
    header, body = exact_table(c)
    if body:
        out += ("\n\n" + ("### " if md else "") + "deterministic metrics that are not the same\n\n"
                + "\n".join(_text_table(header, body, md)))
    return out + "\n"
