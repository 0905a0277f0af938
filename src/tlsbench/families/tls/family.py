"""The TLS family: handshakes (with a request/response and bulk data) between
two agents in memory, over loopback TCP, or against tools nobody here wrote.
What the agent's TLS cannot do it says itself: no known-answer gate."""

from __future__ import annotations

import datetime
import sys
from collections.abc import Iterable
from pathlib import Path

from tlsbench.engine import metrics, pacing
from tlsbench.engine.case import Case, Measured, split_repeats
from tlsbench.errors import TlsbenchError
from tlsbench.families.base import HANDSHAKES, Context
from tlsbench.families.primitive.checks import CheckResult
from tlsbench.families.tls import callgrind, cells, device, figures, runner, tables
from tlsbench.families.tls import plan as plan_keys
from tlsbench.plans.model import Plan


class TlsFamily:
    name = "tls"
    kinds = ("tls",)
    needs_checks = False
    timed = True
    placed = True  # in memory the timed handshakes are placed; the reference runs in a call of its own
    plan_kinds = ("tls",)
    default_kinds = ()
    plan_section = plan_keys.SECTION  # the [tls] table
    views = (HANDSHAKES,)
    report_views = tables.REPORT_VIEWS  # `report --view tls` and `--view interop`, rendered here
    case_cell = staticmethod(cells.case_cell)  # a TLS case's cell in the cases table
    charts = staticmethod(figures.charts_of)  # its charts: handshakes, interop, post-quantum
    figure_settings = staticmethod(plan_keys.figure_settings)  # batches and capacity window, for compare
    kind_titles: dict[str, str] = {}
    sized_kinds = ()

    def expand(self, plan: Plan) -> list[Case]:
        return runner.expand_tls(plan) if "tls" in plan.kinds else []

    def metrics(self) -> tuple[metrics.Metric, ...]:
        return (*metrics.TLS_SIDED, *metrics.TLS_SHARED)

    def fixed_material(self, plan: Plan) -> bool:
        """Callgrind's per-side counts are a regression check's figures: two runs must count the same
        certificates, keys and clock."""
        return "tls" in plan.kinds and plan.tls.callgrind

    def prepare(self, plan: Plan, keys: dict, now: datetime.datetime | None) -> None:
        """The certificate chains and PSK of its cases, stored with the keys for a resume."""
        if "tls" in plan.kinds:
            runner.prepare_material(plan, keys)
            if plan.tls.callgrind:
                callgrind.tools()  # missing valgrind stops the run before it starts, in one line

    def check(self, agents: dict[str, Path], support: dict[str, set[tuple[str, str, str]]], keys: dict,
              cases: Iterable[Case], timeout: float) -> list[CheckResult]:
        return []

    def measure(self, case: Case, ctx: Context, rnd: int) -> Measured:
        if device.is_device_case(case):  # one side on the device, its peer the host agent of the library
            per_round = split_repeats(ctx.plan.method.repeats, ctx.plan.method.rounds)
            return device.measure(ctx.target, case, ctx.keys, ctx.plan, rnd, sum(per_round[:rnd]), per_round[rnd])
        # a count a handshake's draws move is counted over several connections where they are drawn
        passes = 1 if ctx.target.deterministic else runner.HOST_MEMORY_PASSES
        if runner.paces_itself(case):  # paced: the reference just before and after, in the measuring agent
            return runner.measure_tls(ctx.info.path, case, ctx.keys, ctx.plan, rnd,
                                      ctx.place.fields() if ctx.place else None, ctx.paced, passes)
        # paced over TCP: the reference workload just before and just after, each in an agent of its own
        reference = _reference(ctx, case) if ctx.paced else None
        m = runner.measure_tls(ctx.info.path, case, ctx.keys, ctx.plan, rnd,
                               ctx.place.fields() if ctx.place else None, memory_passes=passes)
        if ctx.paced:
            m.round_info = {**(m.round_info or {}), "reference_ns": reference,
                            "reference_after_ns": _reference(ctx, case)}
        return m


def _reference(ctx: Context, case: Case) -> int | None:
    """One reference workload's time in an agent of its own; None (with a warning) when it failed."""
    try:
        return pacing.reference_ns(ctx.info.path)
    except TlsbenchError as e:
        print(f"warning: {case.name}: reference workload failed ({e})", file=sys.stderr, flush=True)
        return None
