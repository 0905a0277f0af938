"""The interface every case family meets. The runner knows families only
through it (families.registry lists them): adding a family is one module
with a class like these and one line in the registry."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tlsbench.engine.case import Case, Measured
from tlsbench.engine.layout import Placement
from tlsbench.engine.metrics import Metric
from tlsbench.families.primitive.checks import CheckResult
from tlsbench.plans.model import Plan, PlanSection
from tlsbench.targets.libraries import LibraryInfo
from tlsbench.targets.target import HOST, Target


@dataclass(frozen=True)
class Context:
    """What measuring one case needs besides the case."""

    info: LibraryInfo  # the case's library agent on this target
    keys: dict  # the run's material (keys, chains), stored with the run
    plan: Plan
    place: Placement | None = None  # host primitives: where the timed loop sits (engine.layout)
    paced: bool = False  # host primitives: the reference workload first, in the same agent (engine.pacing)
    target: Target = HOST  # where the agent runs (a family may put part of a case on a device)


# How the reports show a family's cases: each family names the views its cases take, and the
# reports ask the registry (registry.kinds_with) instead of testing a kind's name.
KIND_CHARTS = "kind-charts"  # a chart per kind (time, throughput or instructions per op) and the cases table
HANDSHAKES = "handshakes"  # the handshake charts and the per-side, extras and interop tables (families.tls.names)
FITS = "fits"  # the least RAM each side needs, and the boards it fits (the family's fits_view)


@dataclass(frozen=True)
class ViewTable:
    """One table of a family's report view, with rows: the HTML page's section (its anchor) and the
    Markdown export's."""
    anchor: str
    title: str
    header: list[str]
    body: list[list[str]]
    page_title: str = ""  # the HTML page's title where it says more (a legend); empty: the title
    wrap_last: bool = False  # its last column is prose (a reason), wrapped on the page


@dataclass(frozen=True)
class ReportView:
    """A view of a stored run that a family renders itself and hands the report (report/ asks
    families.registry.report_views and names no family): `tlsbench report --view NAME`, its tables on
    the HTML page and in the Markdown export, and whether a results page (tlsbench docs) shows it.
    The run is report.rundata.RunData, typed loosely so the contract imports no report module."""
    name: str
    text: Callable[[Any, bool], str]  # (run, markdown) -> the view as `report --view NAME` prints it
    tables: Callable[[Any], list[ViewTable]]  # run -> its tables that have rows, in page order
    shown: Callable[[Any], bool]  # run -> whether its results page shows this view


class Family(Protocol):
    name: str
    kinds: tuple[str, ...]  # the case kinds (Case.kind) it owns
    # whose cases are gated by the library's declared support and the
    # known-answer checks (measured only when they pass)
    needs_checks: bool
    # whose rounds are timed, so paced by the reference workload (engine.pacing),
    # and whose measure places its timed loop and runs that workload itself
    # (Context.place, Context.paced; engine.layout)
    timed: bool
    placed: bool
    # its part of a plan: the kinds a plan may select (in the listing's order), those selected when
    # a plan names none, and the section that reads its keys and its `tlsbench run` flags
    # (plans.model.PlanSection; None: none; two families may share one, listed once)
    plan_kinds: tuple[str, ...]
    default_kinds: tuple[str, ...]
    plan_section: PlanSection | None
    # its report views (KIND_CHARTS, HANDSHAKES, FITS), the chart title of each of its kinds, and its
    # kinds whose cost grows with the input (charted as throughput and by input size)
    views: tuple[str, ...]
    kind_titles: dict[str, str]
    sized_kinds: tuple[str, ...]
    # Optional, so not annotated here: `report_views`, a tuple of the views it renders itself
    # (ReportView), read by registry.report_views; a family its cases table and charts show needs none.
    # `case_cell(case, model_error) -> str | None`: a measured case's cell in the cases table where the
    # report's own (time, throughput, instructions) does not say it, None for a case it does not know
    # (registry.case_cell; report.casecell). `charts(run) -> list[report.charts.Chart]`: the charts it draws
    # itself, after the kind charts (registry.charts; report.figures). `fits_view`: with FITS in its views,
    # the module that draws that view (registry.fits_view; families/minram/fits.py).
    # `figure_settings(plan_json) -> dict[str, str]`: a stored run's settings of its plan section that change
    # what its figures mean without changing its cases' names (registry.figure_settings; compare's context).
    # `fixed_material(plan) -> bool`: the plan's figures are exact counts two runs must repeat (the TLS
    # family's callgrind counts), so even a host run takes the seeded material (registry.material).

    def expand(self, plan: Plan) -> list[Case]:
        """The plan's cases of this family, in comparison order."""
        ...

    def metrics(self) -> tuple[Metric, ...]:
        """The metrics its cases store (all in engine.metrics)."""
        ...

    def prepare(self, plan: Plan, keys: dict, now: datetime.datetime | None) -> None:
        """Adds the material its cases need to the run's keys (before the run is stored)."""
        ...

    def check(self, agents: dict[str, Path], support: dict[str, set[tuple[str, str, str]]], keys: dict,
              cases: Iterable[Case], timeout: float) -> list[CheckResult]:
        """Known-answer checks of what its cases use, before anything is measured."""
        ...

    def measure(self, case: Case, ctx: Context, rnd: int) -> Measured:
        """One round of one case in a fresh agent."""
        ...
