"""How big a plan is, told before it is expanded: its case count without
building every case, and the least time its sampling takes.

A plan's long lists are those its families' sections name (the message
sizes, the TLS capacity client counts; every other list is bounded by a
catalog); each is an innermost loop of its family, so the count grows by the same number of cases per value: two
small expansions give it. A plan past a limit is refused with its size, before
anything is built or stored (a TOML plan of a million sizes expanded in full
held 322 MB)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tlsbench.plans.model import Plan

# far above every preset (the largest, interop, has 1,288 cases): a larger plan is most likely a mistake
DEFAULT_MAX_CASES = 20_000


@dataclass(frozen=True)
class PlanSize:
    cases: int
    sampling_s: float | None  # the least time its timed samples take on the host (None: on firmware)

    def describe(self) -> str:
        if self.sampling_s is None:
            return f"{self.cases:,} cases"
        return f"{self.cases:,} cases, at least {_duration(self.sampling_s)} of sampling"


def _duration(seconds: float) -> str:
    for unit, length in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * length:
            return f"{seconds / length:,.0f} {unit}"
    return f"{seconds:,.0f} s"


def case_count(plan: Plan, expand: Callable[[Plan], list]) -> int:
    """The number of cases ``expand(plan)`` returns, from expansions of the plan with its long
    lists (each family's section names them) cut to one or two values."""
    lengths = plan.long_lists()
    base = len(expand(plan.cut({})))
    total = base
    for name, n in lengths.items():
        if n > 1:
            total += (n - 1) * (len(expand(plan.cut({name: 2}))) - base)
    return total


def size_of(plan: Plan, expand: Callable[[Plan], list], host: bool = True) -> PlanSize:
    m = plan.method
    cases = case_count(plan, expand)
    return PlanSize(cases, cases * m.rounds * (m.warmup + m.repeats) * m.min_sample_ms / 1000 if host else None)
