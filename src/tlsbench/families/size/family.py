"""The size family: flash and static RAM per library and primitive, from
minimal firmware images (families.size.images). Its cases are made by
`tlsbench sizes` (families.size.probes), which builds the images, not by a
plan: a plan expands to none of them. Each is measured here, through the
runner, and its metrics and reports come from the registry like any other
family's."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path

from tlsbench.engine import metrics
from tlsbench.engine.case import Case, Measured
from tlsbench.families.base import KIND_CHARTS, Context
from tlsbench.families.primitive.checks import CheckResult
from tlsbench.families.size import images
from tlsbench.plans.model import Plan

KIND = "size"
OP = "image"  # a case's op: the probe's image


class SizeFamily:
    name = "size"
    kinds = (KIND,)
    needs_checks = False
    timed = False
    placed = False
    plan_kinds = ()  # made by `tlsbench sizes`, not selected by a plan
    default_kinds = ()
    plan_section = None
    views = (KIND_CHARTS,)  # its cases are rows of the cases table (flash and RAM per library)
    kind_titles: dict[str, str] = {}
    sized_kinds = ()

    def expand(self, plan: Plan) -> list[Case]:
        return []

    def metrics(self) -> tuple[metrics.Metric, ...]:
        return metrics.SIZE

    def prepare(self, plan: Plan, keys: dict, now: datetime.datetime | None) -> None:
        """Images need no keys."""

    def check(self, agents: dict[str, Path], support: dict[str, set[tuple[str, str, str]]], keys: dict,
              cases: Iterable[Case], timeout: float) -> list[CheckResult]:
        return []

    def measure(self, case: Case, ctx: Context, rnd: int) -> Measured:
        """The probe's image (case.alg) of the case's library on the target's build, minus its empty image."""
        return images.measure_case(ctx.target, case.library, case.alg)
