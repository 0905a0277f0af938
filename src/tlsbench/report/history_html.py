"""History as one self-contained HTML page: a trend chart per case (inline
SVG, no external reference), then its table. Runs sit on the x axis at
their run date (a week without runs is a gap, two runs an hour apart are
close; the axis is labelled with dates, each point's run and commit are on
hover and in the table); each series is one machine and
target; a point is the run's median with its 95% interval as a whisker;
exact metrics (bytes, instructions) are drawn as steps, since they hold
until the next run changes them; a change compare calls significant is
ringed and labelled with its ratio, and every point names its run."""

from __future__ import annotations

import math
import time

from tlsbench.engine import metrics
from tlsbench.report import html as page
from tlsbench.report.charts import CHAR_W, PALETTE, WIDTH, Chart, _legend, _svg, _t, _text
from tlsbench.report.history import CHANGES, HEADER, CaseHistory, History, HPoint, change_text, figure_text, table_rows

WORSE, BETTER = "#C62828", "#2E7D32"


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round steps covering [lo, hi] (a trend is read against its own range, not from 0)."""
    if hi <= lo:
        pad = abs(hi) * 0.05 or 1.0
        lo, hi = lo - pad, hi + pad
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    return [first + i * step for i in range(math.ceil((hi - first) / step - 1e-9) + 1)]


def _tooltip(case: CaseHistory, p: HPoint) -> str:
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(p.created))
    value = metrics.format_value(case.metric, p.median)
    interval = (f" [{metrics.format_value(case.metric, p.low)} .. {metrics.format_value(case.metric, p.high)}]"
                if p.low is not None and p.high is not None else "")
    figure = "" if p.estimator == "median" else f"; its report's figure {figure_text(case, p)}"
    return (f"run {p.run_id}, {when}, commit {p.commit}{'+dirty' if p.dirty else ''}, {p.series}: {value}"
            f"{interval}{figure}; vs previous: {change_text(p)}")


def _is_worse(case: CaseHistory, p: HPoint) -> bool:
    if p.verdict == "slower":
        return True
    if p.verdict == "changed" and p.ratio is not None:
        return (p.ratio > 1) == metrics.lower_is_better(case.metric)
    return False


def _span(runs: list[int], created: dict[int, float]) -> tuple[float, float]:
    times = [created[r] for r in runs]
    return (min(times), max(times)) if times else (0.0, 0.0)


def x_positions(runs: list[int], created: dict[int, float], left: float, plot_w: float) -> dict[int, float]:
    """Each run's x: proportional to its date inside the plot (a margin of
    4% each side keeps the first and last points off the frame). Without
    dates (an older History) or with all runs at one instant, evenly spaced
    in order, the only honest choice left."""
    margin = plot_w * 0.04
    t0, t1 = _span(runs, created) if all(r in created for r in runs) else (0.0, 0.0)
    if t1 <= t0:
        slot = plot_w / max(len(runs), 1)
        return {run: left + slot * (i + 0.5) for i, run in enumerate(runs)}
    return {run: left + margin + (plot_w - 2 * margin) * (created[run] - t0) / (t1 - t0) for run in runs}


def date_ticks(runs: list[int], created: dict[int, float], left: float, plot_w: float,
               count: int = 5) -> list[tuple[str, float]]:
    """Evenly spaced dates along the axis (at most ``count``), each where its
    instant falls; times of day only when the runs span under two days."""
    if not runs or not all(r in created for r in runs):
        return []
    t0, t1 = _span(runs, created)
    fmt = "%Y-%m-%d" if t1 - t0 >= 2 * 86400 else "%m-%d %H:%M"
    margin = plot_w * 0.04
    if t1 <= t0:
        return [(time.strftime(fmt, time.gmtime(t0)), left + plot_w / 2)]
    out: list[tuple[str, float]] = []
    for i in range(count):
        t = t0 + (t1 - t0) * i / (count - 1)
        label = time.strftime(fmt, time.gmtime(t))
        if not out or out[-1][0] != label:
            out.append((label, left + margin + (plot_w - 2 * margin) * i / (count - 1)))
    return out


def trend(case: CaseHistory, runs: list[int], slug: str, created: dict[int, float] | None = None) -> Chart:
    created = created or {}
    names = list(case.series)
    styles = [(PALETTE[i % len(PALETTE)], False) for i in range(len(names))]
    title = f"{case.name} — {case.metric} ({case.unit})"
    body = [_text(10, 18, title, size=14, extra=' font-weight="600"')]
    legend, y = _legend(names, 38, styles=styles)
    body += legend
    values = [v for p in case.points() for v in (p.median, p.low, p.high) if v is not None]
    ticks = _ticks(min(values), max(values))
    tick_labels = [metrics.format_value(case.metric, t) for t in ticks]
    top, right, bottom, plot_h = y + 22, 30, 44, 260
    left = 14 + max(len(t) for t in tick_labels) * CHAR_W  # room for the longest value on the axis
    plot_w = WIDTH - left - right
    height = top + plot_h + bottom
    y_of = lambda v: top + plot_h * (1 - (v - ticks[0]) / (ticks[-1] - ticks[0]))  # noqa: E731
    x_at = x_positions(runs, created, left, plot_w)
    for t, label in zip(ticks, tick_labels, strict=True):
        yy = y_of(t)
        body.append(f'<line x1="{left:.1f}" y1="{yy:.1f}" x2="{WIDTH - right}" y2="{yy:.1f}" stroke="#e3e3e3"/>')
        body.append(_text(left - 6, yy + 3, label, "end", 10, "#555"))
    for when, x in date_ticks(runs, created, left, plot_w):
        body.append(f'<line x1="{x:.1f}" y1="{top + plot_h}" x2="{x:.1f}" y2="{top + plot_h + 4}" stroke="#888"/>')
        body.append(_text(x, top + plot_h + 14, when, "middle", 10, "#555", extra=' data-tick="date"'))
    body.append(_text(left + plot_w / 2, height - 10, "run date (UTC; hover a point for its run and commit)",
                      "middle", 11, "#333"))
    body.append(f'<rect x="{left:.1f}" y="{top}" width="{plot_w:.1f}" height="{plot_h}" fill="none" stroke="#888"/>')
    for si, name in enumerate(names):
        colour = styles[si][0]
        pts = case.series[name]
        xy = [(x_at[p.run_id], y_of(p.median)) for p in pts]
        if len(xy) > 1:
            if case.exact:  # a count holds until the next run changes it: steps
                d = f"M{xy[0][0]:.1f},{xy[0][1]:.1f}" + "".join(f"H{x:.1f}V{yy:.1f}" for x, yy in xy[1:])
            else:
                d = "M" + "L".join(f"{x:.1f},{yy:.1f}" for x, yy in xy)
            body.append(f'<path d="{d}" stroke="{colour}" stroke-width="1.8" fill="none" data-series="{_t(name)}"/>')
        for p, (x, yy) in zip(pts, xy, strict=True):
            if p.low is not None and p.high is not None:
                lo, hi = y_of(p.low), y_of(p.high)
                body.append(f'<path d="M{x:.1f},{lo:.1f}V{hi:.1f}M{x - 3:.1f},{lo:.1f}h6M{x - 3:.1f},{hi:.1f}h6"'
                            f' stroke="{colour}" stroke-width="1" fill="none"/>')
            body.append(f'<circle cx="{x:.1f}" cy="{yy:.1f}" r="3.5" fill="{colour}" data-run="{p.run_id}">'
                        f"<title>{_t(_tooltip(case, p))}</title></circle>")
            if p.verdict in CHANGES:
                mark = WORSE if _is_worse(case, p) else BETTER
                label = f"{(p.ratio - 1) * 100:+.1f}%" if p.ratio is not None else p.verdict
                body.append(f'<circle cx="{x:.1f}" cy="{yy:.1f}" r="8" fill="none" stroke="{mark}" stroke-width="2"'
                            f' data-change="{p.verdict}" data-run="{p.run_id}">'
                            f"<title>{_t(_tooltip(case, p))}</title></circle>")
                body.append(_text(x, yy - 12, f"{label} (run {p.run_id})", "middle", 10, mark,
                                  extra=' font-weight="600"'))
    caption = (f"{case.name}, {case.metric}: the median of each run"
               + ("" if case.exact else " with the 95% bootstrap interval of the median")
               + (" (exact: steps)" if case.exact else "") + f"; {len(case.changes())} change(s) marked.")
    return Chart(slug, title, caption, _svg(WIDTH, height, title, body))


def render(h: History) -> str:
    title = f"tlsbench history: {len(h.cases)} case(s) over {len(h.runs)} run(s)"
    parts = [
        "<!DOCTYPE html>", '<html lang="en" data-report="loading">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{page._e(title)}</title>",
        f"<style>{page.CSS}</style>", f"<script>{page.ERROR_TRAP}</script>", "</head>", "<body>",
        '<pre id="script-errors" role="alert"></pre>', f"<h1>{page._e(title)}</h1>",
        f"<p>Runs: {', '.join(map(str, h.runs))}" + (f" ({page._e(', '.join(h.selection))})" if h.selection else "")
        + ". Each point is a stored run's median (hover for its run, commit and interval); a series is one machine"
        f" and target. A ringed point changed against the previous point of its series by compare's test:"
        f" p &lt; {h.alpha:g} and at least {100 * h.min_effect:g}% with the ratio's 95% interval beyond it; exact"
        " metrics (drawn as steps) by any difference. Red: worse, green: better.</p>",
    ]
    for i, case in enumerate(h.cases):
        chart = trend(case, h.runs, f"history-{i}", h.created)
        parts.append(f'<h2 id="case-{i}">{page._e(case.name)}</h2>')
        parts.append(f'<figure><div class="chart">{chart.svg}</div><figcaption>{page._e(chart.caption)}'
                     "</figcaption></figure>")
        parts.append(page.table(HEADER, table_rows(case)))
    parts += [f"<script>{page.SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"
