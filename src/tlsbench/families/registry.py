"""Every case family, in the order their cases run. The one place a family is named."""

from __future__ import annotations

from typing import Any

from tlsbench import paths
from tlsbench.engine import metrics
from tlsbench.errors import TlsbenchError
from tlsbench.families.base import FITS, KIND_CHARTS, Family, ReportView
from tlsbench.families.minram.family import MinRamFamily
from tlsbench.families.primitive import keys
from tlsbench.families.primitive.family import PrimitiveFamily
from tlsbench.families.size.family import SizeFamily
from tlsbench.families.tls.family import TlsFamily
from tlsbench.plans.model import Plan, PlanSection

FAMILIES: tuple[Family, ...] = (
    PrimitiveFamily(),
    TlsFamily(),
    SizeFamily(),
    MinRamFamily(),
)

_BY_KIND = {kind: f for f in FAMILIES for kind in f.kinds}
assert len(_BY_KIND) == sum(len(f.kinds) for f in FAMILIES), "a case kind belongs to one family"
for _family in FAMILIES:
    for _metric in _family.metrics():
        assert metrics.REGISTRY.get(_metric.name) is _metric, f"{_family.name}: {_metric.name} is not registered"


def plan_sections() -> tuple[PlanSection, ...]:
    """The families' parts of a plan (keys, checks, run flags), in the families' order, each once
    (the TLS and min-ram families share the [tls] table)."""
    return tuple({id(f.plan_section): f.plan_section for f in FAMILIES if f.plan_section}.values())


def kinds_with(view: str) -> tuple[str, ...]:
    """The case kinds whose family's cases take this report view (families.base: KIND_CHARTS, ...)."""
    return tuple(k for f in FAMILIES if view in f.views for k in f.kinds)


def report_views() -> tuple[ReportView, ...]:
    """The views the families render themselves (`tlsbench report --view NAME`), in the families' order."""
    return tuple(v for f in FAMILIES for v in getattr(f, "report_views", ()))


def report_view(name: str) -> ReportView | None:
    return next((v for v in report_views() if v.name == name), None)


def case_cell(case: dict, model_error: str) -> str | None:
    """A measured case's cell in the cases table as a family writes it (the first family whose `case_cell`
    knows the case's figures), or None: the report's own cell."""
    for family in FAMILIES:
        write = getattr(family, "case_cell", None)
        if write is not None and (text := write(case, model_error)) is not None:
            return text
    return None


def figure_settings(plan: dict) -> dict[str, str]:
    """A stored run's settings that change what its figures mean where its cases' names do not say it
    (compare lists them with the run's context), from each family that has such settings."""
    return {key: value for family in FAMILIES if (read := getattr(family, "figure_settings", None))
            for key, value in read(plan).items()}


def charts(data: Any) -> list:
    """The charts the families draw themselves (`charts(run) -> [report.charts.Chart]`), in the families'
    order; the run is report.rundata.RunData, typed loosely as in base.ReportView."""
    return [chart for family in FAMILIES if (draw := getattr(family, "charts", None)) for chart in draw(data)]


def fits_view() -> Any:
    """The module that draws the FITS view (fits(), size_table(), board_table(), notes(), render()): the
    family's whose views hold FITS (families/minram/fits.py), or None."""
    return next((f.fits_view for f in FAMILIES if FITS in f.views and hasattr(f, "fits_view")), None)


def views_of(kind: str) -> tuple[str, ...]:
    """A kind's report views; a kind no family measures (an older store's) takes the kind charts and table."""
    family = _BY_KIND.get(kind)
    return family.views if family is not None else (KIND_CHARTS,)


def kind_title(kind: str) -> str:
    """The title of a kind's charts."""
    family = _BY_KIND.get(kind)
    return family.kind_titles[kind] if family is not None and kind in family.kind_titles else kind


def sized(kind: str) -> bool:
    """Whether a kind's cost grows with its input (charted as throughput, and by input size)."""
    family = _BY_KIND.get(kind)
    return family is not None and kind in family.sized_kinds


def family_of(kind: str) -> Family:
    try:
        return _BY_KIND[kind]
    except KeyError:
        raise TlsbenchError(f"no case family measures kind {kind!r}; kinds: {', '.join(_BY_KIND)}") from None


def material(plan: Plan, deterministic: bool) -> dict:
    """A new run's key material with what each family adds (e.g. certificate chains), stored with the run
    (a resume reads it back). ``deterministic``: the target's counts are exact, so the material is the same
    every time (seeded, cached with the families' additions for the next run), else fresh; a plan whose
    family asks for exact counts that repeat (``fixed_material``) takes the seeded material on any target."""
    if not deterministic and not any(getattr(f, "fixed_material", lambda _: False)(plan) for f in FAMILIES):
        fresh = keys.generate()
        for family in FAMILIES:
            family.prepare(plan, fresh, None)
        return fresh
    cached = paths.data_dir() / "firmware-material.json"
    seeded = keys.seeded(cached)
    for family in FAMILIES:
        family.prepare(plan, seeded, keys.clock_of(seeded))
    keys.save_reusable(cached, seeded)
    return seeded


def material_environment(material: dict) -> dict[str, str]:
    """What a run's agents need in their environment for its material: the frozen clock, inside the
    seeded material's validity, for the firmware (through its bridge) and for host agents (none for fresh
    material, whose certificates are valid from the run's start)."""
    if "clock_unix" not in material:
        return {}
    clock = str(material["clock_unix"])
    return {keys.FIRMWARE_CLOCK_ENV: clock, keys.HOST_CLOCK_ENV: clock}
