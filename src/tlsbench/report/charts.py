"""Charts as inline SVG, drawn from given values only (no dependency).

Each function takes the figures to draw and returns one self-contained
``<svg>`` element (system sans-serif font, no external reference). A value
that was not measured is a ``Point`` without a value and a note ("failed",
"n/m", ...): it is drawn as its note, never as a zero-length bar.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

# Okabe-Ito: told apart by colour-blind readers too
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
WIDTH = 900
FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"'
CHAR_W = 6.6  # generous average width of a character at 11 px, for laying out labels
Fmt = Callable[[float], str]


@dataclass(frozen=True)
class Point:
    value: float | None
    low: float | None = None  # whisker (e.g. the 95% CI), when known
    high: float | None = None
    note: str = ""  # why there is no value
    flag: str = ""  # the figure's marks, e.g. "(noisy) (drift)": drawn beside its value


# what each mark means, in a line under any chart that shows one (the report's text says the same)
FLAG_MEANINGS = {"(noisy)": "spread (stdev/median) over 10%", "(drift)": "the rounds' medians differ by over 10%",
                 "(slow phase)": "a round ran while the machine was slow",
                 "(varies)": "an exact count whose repeats differ (bar: their median)"}


def _flags_note(flags: Sequence[str], y: float) -> list[str]:
    """One line naming the marks used in this chart, so an exported SVG or
    PNG explains them without the report around it."""
    used = [f for f in FLAG_MEANINGS if any(f in x for x in flags)]
    if not used:
        return []
    text = "flagged: " + "; ".join(f"{f} {FLAG_MEANINGS[f]}" for f in used) + " (see the report's notes)"
    return [_text(10, y, text, size=10, fill="#a40000", extra=' data-flags="1"')]


def _with_flag(text: str, flag: str) -> str:
    return f"{text} {flag}" if flag else text


@dataclass(frozen=True)
class Chart:
    slug: str  # file name stem when written on its own
    title: str
    caption: str
    svg: str


def _t(text: str) -> str:
    return escape(str(text), {'"': "&quot;"})


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}"'
            f' height="{height:.0f}" role="img" aria-label="{_t(title)}" {FONT} font-size="11">'
            f'<title>{_t(title)}</title><rect width="100%" height="100%" fill="#fff"/>' + "".join(body) + "</svg>")


def _text(x: float, y: float, s: str, anchor: str = "start", size: int = 11, fill: str = "#222",
          extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" fill="{fill}"{extra}>'
            f"{_t(s)}</text>")


def _clip(label: str, chars: int) -> str:
    """A label cut in its middle: a case name's start (library, suite) and end
    (variant, side, verdict) are what tell two rows apart."""
    if len(label) <= chars:
        return label
    head = (chars - 1) * 2 // 5
    return label[:head] + "…" + label[len(label) - (chars - 1 - head):]


def nice_ticks(hi: float, count: int = 5) -> list[float]:
    """0 and round steps up to at least ``hi``."""
    if hi <= 0:
        return [0.0, 1.0]
    raw = hi / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    n = math.ceil(hi / step - 1e-9)
    return [i * step for i in range(n + 1)]


def log_ticks(lo: float, hi: float) -> list[float]:
    """Decades covering [lo, hi] (with 2 and 5 between when that is few)."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if b == a:
        b += 1
    ticks = [10.0**e for e in range(a, b + 1)]
    if b - a <= 2:
        ticks = sorted(t * m for t in ticks for m in (1, 2, 5) if t * m <= 10.0**b)
    return ticks


def _legend(names: Sequence[str], y: float, x0: float = 10,
            styles: Sequence[tuple[str, bool]] | None = None) -> tuple[list[str], float]:
    """Colour boxes (or line samples, solid or dashed, when ``styles`` gives them)."""
    out, x = [], x0
    for i, name in enumerate(names):
        w = 34 + len(name) * CHAR_W
        if x + w > WIDTH - 10 and x > x0:
            x, y = x0, y + 16
        if styles is None:
            out.append(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="12" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>')
            out.append(_text(x + 16, y, name))
        else:
            colour, dashed = styles[i]
            dash = ' stroke-dasharray="5,3"' if dashed else ""
            out.append(f'<path d="M{x:.1f},{y - 4:.1f}h22" stroke="{colour}" stroke-width="2.2"{dash}/>')
            out.append(_text(x + 26, y, name))
            w += 10
        x += w
    return out, y + 8


def bars(slug: str, title: str, caption: str, categories: Sequence[str], series: dict[str, Sequence[Point]],
         fmt: Fmt) -> Chart:
    """Horizontal grouped bars: a group per category, a bar per series, whiskers from low to high."""
    names = list(series)
    label_chars = min(62, max([len(c) for c in categories] + [4]))
    left = 12 + label_chars * CHAR_W
    # room right of the longest bar for its value and its marks
    right = 92 + max([len(p.flag) + 1 for pts in series.values() for p in pts if p.flag] + [0]) * 5.6
    body = [_text(10, 18, title, size=14, extra=' font-weight="600"')]
    legend, y = _legend(names, 38)
    body += legend
    top = y + 22
    bar_h, gap = 11, 9
    group_h = len(names) * bar_h + gap
    values = [v for pts in series.values() for p in pts for v in (p.value, p.high) if v is not None]
    ticks = nice_ticks(max(values) if values else 1.0)
    span = ticks[-1]
    plot_w = WIDTH - left - right
    x_of = lambda v: left + plot_w * v / span  # noqa: E731
    height = top + group_h * len(categories) + 30
    flags = [p.flag for pts in series.values() for p in pts if p.flag]
    note = _flags_note(flags, height + 4)
    for t in ticks:
        x = x_of(t)
        body.append(f'<line x1="{x:.1f}" y1="{top - 6:.1f}" x2="{x:.1f}" y2="{height - 28:.1f}" stroke="#e3e3e3"/>')
        body.append(_text(x, height - 14, fmt(t) if t else "0", "middle", 10, "#555"))
    for ci, cat in enumerate(categories):
        gy = top + ci * group_h
        body.append(_text(left - 6, gy + group_h / 2 - 1, _clip(cat, label_chars), "end",
                          extra=f' data-category="{_t(cat)}"'))
        for si, name in enumerate(names):
            p = series[name][ci]
            y0 = gy + si * bar_h
            colour = PALETTE[si % len(PALETTE)]
            if p.value is None:
                body.append(_text(left + 4, y0 + bar_h - 2, f"{name}: {p.note or 'not measured'}", size=10,
                                  fill="#888", extra=' font-style="italic"'))
                continue
            w = max(x_of(p.value) - left, 0.5)
            body.append(f'<rect x="{left:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{bar_h - 2}" fill="{colour}">'
                        f"<title>{_t(f'{cat} — {name}: {fmt(p.value)}')}</title></rect>")
            end = x_of(p.value)
            if p.low is not None and p.high is not None:
                lo, hi = x_of(max(p.low, 0.0)), x_of(p.high)
                mid = y0 + (bar_h - 2) / 2
                body.append(f'<path d="M{lo:.1f},{mid:.1f}H{hi:.1f}M{lo:.1f},{mid - 3:.1f}V{mid + 3:.1f}'
                            f'M{hi:.1f},{mid - 3:.1f}V{mid + 3:.1f}" stroke="#222" stroke-width="1" fill="none"/>')
                end = max(end, hi)
            body.append(_text(end + 4, y0 + bar_h - 2, _with_flag(fmt(p.value), p.flag), size=10,
                              fill="#a40000" if p.flag else "#333"))
    body.append(f'<line x1="{left:.1f}" y1="{top - 6:.1f}" x2="{left:.1f}" y2="{height - 28:.1f}" stroke="#888"/>')
    body += note
    return Chart(slug, title, caption, _svg(WIDTH, height + (14 if note else 0), title, body))


def lines(slug: str, title: str, caption: str, xs: Sequence[float], series: dict[str, Sequence[Point]],
          x_label: str, fmt_x: Fmt, fmt_y: Fmt, groups: Sequence[int] | None = None,
          dashed: Sequence[bool] | None = None) -> Chart:
    """Lines on log-log axes: a line per series through its measured points
    (a gap where a point was not measured). ``groups`` gives each series'
    colour index (e.g. its library), ``dashed`` a dashed line (e.g. decrypt)."""
    names = list(series)
    groups = list(groups) if groups is not None else list(range(len(names)))
    dashed = list(dashed) if dashed is not None else [False] * len(names)
    styles = [(PALETTE[g % len(PALETTE)], d) for g, d in zip(groups, dashed, strict=True)]
    body = [_text(10, 18, title, size=14, extra=' font-weight="600"')]
    legend, y = _legend(names, 38, styles=styles)
    body += legend
    top, left, right, bottom = y + 16, 78, 44, 48
    height = top + 300 + bottom
    plot_w, plot_h = WIDTH - left - right, 300
    ys = [v for pts in series.values() for p in pts for v in (p.value, p.low, p.high) if v is not None and v > 0]
    if not ys or not xs:
        body.append(_text(WIDTH / 2, top + 150, "nothing was measured", "middle", 12, "#888"))
        return Chart(slug, title, caption, _svg(WIDTH, height, title, body))
    yt = log_ticks(min(ys), max(ys))
    ly0, ly1 = math.log10(yt[0]), math.log10(yt[-1])
    lx0, lx1 = math.log10(min(xs)), math.log10(max(xs))
    if lx1 == lx0:
        lx0, lx1 = lx0 - 0.5, lx1 + 0.5
    x_of = lambda v: left + plot_w * (math.log10(v) - lx0) / (lx1 - lx0)  # noqa: E731
    y_of = lambda v: top + plot_h * (1 - (math.log10(v) - ly0) / (ly1 - ly0))  # noqa: E731
    for t in yt:
        yy = y_of(t)
        body.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{WIDTH - right}" y2="{yy:.1f}" stroke="#e3e3e3"/>')
        body.append(_text(left - 6, yy + 3, fmt_y(t), "end", 10, "#555"))
    for x in xs:
        xx = x_of(x)
        body.append(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{top + plot_h}" stroke="#f0f0f0"/>')
        body.append(_text(xx, top + plot_h + 14, fmt_x(x), "middle", 10, "#555"))
    body.append(_text(left + plot_w / 2, height - 10, x_label, "middle", 11, "#333"))
    body.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#888"/>')
    for si, name in enumerate(names):
        colour, is_dashed = styles[si]
        dash = ' stroke-dasharray="6,4"' if is_dashed else ""
        segments: list[list[tuple[float, float]]] = [[]]
        for x, p in zip(xs, series[name], strict=True):
            if p.value is None or p.value <= 0:
                segments.append([])
                continue
            segments[-1].append((x_of(x), y_of(p.value)))
            body.append(f'<circle cx="{x_of(x):.1f}" cy="{y_of(p.value):.1f}" r="3" fill="{colour}">'
                        f"<title>{_t(_with_flag(f'{name}, {fmt_x(x)}: {fmt_y(p.value)}', p.flag))}</title></circle>")
            if p.flag:  # a ring around the point and its marks beside it
                body.append(f'<circle cx="{x_of(x):.1f}" cy="{y_of(p.value):.1f}" r="6" fill="none"'
                            ' stroke="#a40000" stroke-width="1.2"/>')
                near_right = x_of(x) + 8 + len(p.flag) * 5.5 > WIDTH - 4  # keep the marks inside the chart
                body.append(_text(x_of(x) - 8 if near_right else x_of(x) + 8, y_of(p.value) - 6, p.flag,
                                  "end" if near_right else "start", size=9, fill="#a40000"))
        for seg in segments:
            if len(seg) > 1:
                d = "M" + "L".join(f"{a:.1f},{b:.1f}" for a, b in seg)
                body.append(f'<path d="{d}" stroke="{colour}" stroke-width="1.8" fill="none"{dash}/>')
    note = _flags_note([p.flag for pts in series.values() for p in pts if p.flag], height + 4)
    body += note
    return Chart(slug, title, caption, _svg(WIDTH, height + (14 if note else 0), title, body))


def stacked(slug: str, title: str, caption: str, categories: Sequence[str], parts: Sequence[str],
            values: Sequence[Sequence[Point]], fmt: Fmt) -> Chart:
    """Horizontal stacked bars: a bar per category, a segment per part (e.g.
    client and server); a part not measured is named beside the bar."""
    label_chars = min(70, max([len(c) for c in categories] + [4]))
    left = 12 + label_chars * CHAR_W
    right = 150 + max([len(p.flag) + 1 for row in values for p in row if p.flag] + [0]) * 5.6
    body = [_text(10, 18, title, size=14, extra=' font-weight="600"')]
    legend, y = _legend(list(parts), 38)
    body += legend
    top, bar_h = y + 22, 16
    totals = [sum(p.value for p in row if p.value is not None) for row in values]
    ticks = nice_ticks(max(totals) if totals else 1.0)
    plot_w = WIDTH - left - right
    x_of = lambda v: left + plot_w * v / ticks[-1]  # noqa: E731
    height = top + bar_h * len(categories) + 30
    for t in ticks:
        x = x_of(t)
        body.append(f'<line x1="{x:.1f}" y1="{top - 6:.1f}" x2="{x:.1f}" y2="{height - 28:.1f}" stroke="#e3e3e3"/>')
        body.append(_text(x, height - 14, fmt(t) if t else "0", "middle", 10, "#555"))
    for ci, (cat, row) in enumerate(zip(categories, values, strict=True)):
        y0 = top + ci * bar_h
        body.append(_text(left - 6, y0 + bar_h - 5, _clip(cat, label_chars), "end"))
        x = left
        missing = []
        for pi, (part, p) in enumerate(zip(parts, row, strict=True)):
            if p.value is None:
                missing.append(f"{part} {p.note or 'not measured'}")
                continue
            w = x_of(p.value) - left
            body.append(f'<rect x="{x:.1f}" y="{y0 + 1:.1f}" width="{max(w, 0.5):.1f}" height="{bar_h - 3}"'
                        f' fill="{PALETTE[pi % len(PALETTE)]}"><title>{_t(f"{cat} — {part}: {fmt(p.value)}")}'
                        "</title></rect>")
            x += w
        note = fmt(totals[ci]) if len(missing) < len(parts) else ""
        flag = " ".join(f for f in FLAG_MEANINGS if any(f in p.flag for p in row))  # both sides' marks, once
        note = _with_flag(note, flag)
        if missing:
            note += (" — " if note else "") + ", ".join(missing)
        body.append(_text(x + 4, y0 + bar_h - 5, note, size=10,
                          fill="#a40000" if flag else "#555" if not missing else "#888"))
    flags_note = _flags_note([p.flag for row in values for p in row if p.flag], height + 4)
    body += flags_note
    return Chart(slug, title, caption, _svg(WIDTH, height + (14 if flags_note else 0), title, body))


GRID_COLOURS = {"ok": "#cdebd3", "fails": "#f6c9c4", "unsupported": "#e4e4e4", "none": "#ffffff"}


def grid(slug: str, title: str, caption: str, rows: Sequence[str], cols: Sequence[str],
         cells: dict[tuple[str, str], tuple[str, str]]) -> Chart:
    """A coloured matrix: cells[(row, col)] = (text, state), state one of
    ok, fails, unsupported; a missing cell was not run."""
    label_chars = min(80, max([len(r) for r in rows] + [4]))
    left = 12 + label_chars * CHAR_W
    cell_w = max(90.0, min(170.0, (WIDTH - left - 10) / max(len(cols), 1)))
    width = max(WIDTH, left + cell_w * len(cols) + 10)
    top, cell_h = 64, 20
    height = top + cell_h * len(rows) + 30
    body = [_text(10, 18, title, size=14, extra=' font-weight="600"')]
    x = 10
    for state, colour in GRID_COLOURS.items():
        name = {"none": "not run", "fails": "fails"}.get(state, state)
        body.append(f'<rect x="{x}" y="29" width="12" height="10" fill="{colour}" stroke="#999"/>')
        body.append(_text(x + 16, 38, name))
        x += 30 + len(name) * CHAR_W
    for ci, col in enumerate(cols):
        body.append(_text(left + ci * cell_w + cell_w / 2, top - 8, _clip(col, int(cell_w / CHAR_W)), "middle",
                          extra=' font-weight="600"'))
    for ri, row in enumerate(rows):
        y0 = top + ri * cell_h
        body.append(_text(left - 6, y0 + 14, _clip(row, label_chars), "end"))
        for ci, col in enumerate(cols):
            text, state = cells.get((row, col), ("-", "none"))
            x0 = left + ci * cell_w
            body.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{cell_w:.1f}" height="{cell_h}"'
                        f' fill="{GRID_COLOURS.get(state, "#fff")}" stroke="#fff" data-state="{state}">'
                        f"<title>{_t(f'{row} / {col}: {text}')}</title></rect>")
            body.append(_text(x0 + 4, y0 + 14, _clip(text, int((cell_w - 8) / (CHAR_W - 0.4))), size=10))
    return Chart(slug, title, caption, _svg(width, height, title, body))
