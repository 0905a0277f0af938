"""A stored run's charts as files: SVG (as drawn), PNG (SVG rendered by
headless Chromium) or Markdown (the tables, with the SVG charts linked)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from tlsbench import outfile
from tlsbench.engine import metrics
from tlsbench.errors import TlsbenchError
from tlsbench.families import registry
from tlsbench.outfile import write_whole
from tlsbench.report import chromium, figures
from tlsbench.report import tables as report
from tlsbench.report.charts import Chart
from tlsbench.report.marks import cases_heading
from tlsbench.report.tables import RunData

FORMATS = ("svg", "png", "md")
SIZE = re.compile(r'<svg [^>]*?width="(\d+)" height="(\d+)"')


def _folder(out: str | None, fmt: str) -> Path:
    if not out:
        raise TlsbenchError(f"--format {fmt} writes several files: give a folder with -o FOLDER")
    return outfile.folder(out, "-o", why=f"--format {fmt} writes several files, and this ")


def write_svg(charts: list[Chart], folder: Path) -> list[Path]:
    paths = []
    for c in charts:
        path = folder / f"{c.slug}.svg"
        write_whole(path, '<?xml version="1.0" encoding="utf-8"?>\n' + c.svg + "\n")
        paths.append(path)
    return paths


def write_png(charts: list[Chart], folder: Path) -> list[Path]:
    paths = []
    with tempfile.TemporaryDirectory(prefix="tlsbench-png-") as tmp:
        for c in charts:
            m = SIZE.search(c.svg)
            if m is None:
                raise TlsbenchError(f"chart {c.slug} has no size")
            width, height = int(m.group(1)), int(m.group(2))
            page = Path(tmp) / f"{c.slug}.html"
            page.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"><style>html,body{margin:0;'
                            f'background:#fff}}svg{{display:block}}</style></head><body>{c.svg}</body></html>')
            paths.append(chromium.screenshot(page, folder / f"{c.slug}.png", width, height))
    return paths


def markdown(data: RunData, charts: list[Chart], image_ext: str = "svg") -> str:
    out = ["\n".join(report.context_lines(data, md=True)), ""]
    out += [f"- **{line}**\n" for line in report.noise_lines(data)]
    if report.clockless(data.cases):
        out.append(f"- {metrics.INSTRUCTIONS_NOTE}\n")
    if charts:
        out.append("### Charts\n")
        for c in charts:
            out.append(f"![{c.title}]({c.slug}.{image_ext})\n\n{c.caption}\n")
    primitive = [c for c in data.cases if not report.is_handshake(c)]
    if primitive:
        sub = RunData(data.run, data.libraries, data.checks, primitive)
        what = cases_heading(data)
        out.append(f"### Cases: {what} per library\n")
        out.append(report.markdown(*report.pivot(sub)) + "\n")
    for table in (t for view in registry.report_views() for t in view.tables(data)):  # the families' own
        out.append(f"### {table.title}\n")
        out.append(report.markdown(table.header, table.body) + "\n")
    if data.code_sizes:
        out.append(f"### Code size of each firmware image (from its linker map; {report.CODE_SIZE_NOTE})\n")
        out.append(report.markdown(*report.code_size_table(data)) + "\n")
    return "\n".join(out)


def export(data: RunData, fmt: str, out: str | None) -> list[Path]:
    """Writes the run's charts (and for md its tables) into the folder ``out``."""
    folder = _folder(out, fmt)
    charts = figures.figures(data)
    if fmt == "svg":
        return write_svg(charts, folder)
    if fmt == "png":
        return write_png(charts, folder)
    if fmt == "md":
        written = write_svg(charts, folder)
        index = folder / "report.md"
        write_whole(index, markdown(data, charts))
        return [index, *written]
    raise TlsbenchError(f"unknown export format {fmt!r}")
