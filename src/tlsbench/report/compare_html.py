"""A comparison of two runs as one self-contained HTML page: the verdict
rule, what differs in how the runs were made, the ratio B/A per case with its
bootstrap interval as a chart, and sortable tables."""

from __future__ import annotations

import html

from tlsbench.report import charts
from tlsbench.report.charts import Point
from tlsbench.report.compare import Comparison
from tlsbench.report.compare_text import exact_table, header_lines, main_table
from tlsbench.report.html import CSS, ERROR_TRAP, SCRIPT, table

MAX_CHART_ROWS = 120


def _ratio_chart(c: Comparison) -> str:
    rows = [r for r in c.rows if r.ratio is not None]
    if len(rows) > MAX_CHART_ROWS:  # too many to read: the changed ones
        rows = [r for r in rows if r.verdict != "same"][:MAX_CHART_ROWS]
    if not rows:
        return ""
    chart = charts.bars("ratio", f"B/A per case ({c.metric}): run {c.run_b} over run {c.run_a}", "",
                        [f"{r.name} {r.metric} ({r.verdict})".replace("  ", " ") for r in rows],
                        {"B/A": [Point(r.ratio, r.ratio_low, r.ratio_high) for r in rows]}, lambda v: f"×{v:.3g}")
    return (f'<figure><div class="chart">{chart.svg}</div><figcaption>The ratio of the medians B/A per case, whisker'
            " its 95% bootstrap interval; 1 is no change (the verdict needs the Mann-Whitney test and the minimum"
            " effect too).</figcaption></figure>")


def render(c: Comparison, only_changes: bool = False) -> str:
    title = f"tlsbench compare: run {c.run_a} (A) -> run {c.run_b} (B), metric {c.metric}"
    lines = header_lines(c)
    exact_header, exact_body = exact_table(c)
    parts = [
        "<!DOCTYPE html>", '<html lang="en" data-report="loading">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{html.escape(title)}</title>",
        f"<style>{CSS}</style>", f"<script>{ERROR_TRAP}</script>", "</head>", "<body>",
        '<pre id="script-errors" role="alert"></pre>', f"<h1>{html.escape(title)}</h1>",
        "<pre>" + html.escape("\n".join(lines)) + "</pre>",
        _ratio_chart(c),
        f"<h2>Cases ({c.metric})</h2>", table(*main_table(c, only_changes), wrap_cols=(8,)),
        "<h2>Deterministic metrics that are not the same</h2>",
        table(exact_header, exact_body, "deterministic metrics that differ") if exact_body
        else "<p>Every deterministic metric of both runs is the same.</p>",
        f"<script>{SCRIPT}</script>", "</body>", "</html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"
