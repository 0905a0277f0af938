"""The TLS family: handshakes (with a request/response and bulk data) between
two agents in memory, over loopback TCP, or against tools nobody here wrote.
What the agent's TLS cannot do it says itself: no known-answer gate."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path

from tlsbench.engine import metrics
from tlsbench.engine.case import Case, Measured
from tlsbench.families.base import Context
from tlsbench.families.primitive.checks import CheckResult
from tlsbench.families.tls import runner
from tlsbench.plans.plan import Plan


class TlsFamily:
    name = "tls"
    kinds = ("tls",)
    needs_checks = False
    timed = True
    placed = False  # handshakes are not placed; their reference runs in a call of its own

    def expand(self, plan: Plan) -> list[Case]:
        return runner.expand_tls(plan) if "tls" in plan.kinds else []

    def metrics(self) -> tuple[metrics.Metric, ...]:
        return (*metrics.TLS_SIDED, *metrics.TLS_SHARED)

    def prepare(self, plan: Plan, keys: dict, now: datetime.datetime | None) -> None:
        """The certificate chains and PSK of its cases, stored with the keys for a resume."""
        if "tls" in plan.kinds:
            runner.prepare_material(plan, keys, now=now)

    def check(self, agents: dict[str, Path], support: dict[str, set[tuple[str, str, str]]], keys: dict,
              cases: Iterable[Case], timeout: float) -> list[CheckResult]:
        return []

    def measure(self, case: Case, ctx: Context, rnd: int) -> Measured:
        return runner.measure_tls(ctx.info.path, case, ctx.keys, ctx.plan, rnd)
