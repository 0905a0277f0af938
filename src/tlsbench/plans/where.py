"""Where a plan runs: the host, a firmware target, or both.

A plan declares it (top-level ``targets``, with ``target_note``: why not the
other kind, and ``target_instead``: the preset that runs there); the check
runs when the plan meets its target, before any firmware is built.
"""

from __future__ import annotations

from typing import Any, NoReturn, Protocol

from tlsbench.errors import PlanError


class Plan(Protocol):  # plans.plan.Plan, without importing it (plan.py reads TARGET_KINDS here)
    name: str
    kinds: list[str]
    sections: tuple[Any, ...]  # plans.model.PlanSection, each asked whether the plan fits firmware
    targets: list[str]
    target_note: str
    target_instead: str

TARGET_KINDS = ("host", "firmware")
_SAID = {"host": "the host", "firmware": "a firmware target"}


def kind_of(runs_firmware: bool) -> str:
    """A target as plans name it: host, or firmware (qemu, serial, labgrid: Target.runs_firmware)."""
    return "firmware" if runs_firmware else "host"


def check(plan: Plan, target_name: str, runs_firmware: bool, what: str = "plan") -> None:
    """Refuses a plan on a kind of target it does not run on, in one line: the
    reason and the preset that runs there; on a device, also a plan (one that
    says nothing of where it runs) whose handshakes need TCP."""
    if kind_of(runs_firmware) not in plan.targets:
        _refuse(plan, target_name, runs_firmware, what)
    if runs_firmware:
        problem = next((p for p in (s.firmware_problem(plan, target_name, what) for s in plan.sections) if p), None)
        if problem:
            raise PlanError(problem)


def _refuse(plan: Plan, target_name: str, runs_firmware: bool, what: str) -> NoReturn:
    only = " and ".join(_SAID[k] for k in plan.targets)
    why = f": {plan.target_note}" if plan.target_note else ""
    line = f"{what} {plan.name} runs on {only} only, not on {target_name}{why}"
    if plan.target_instead:
        where = f" --target {target_name}" if runs_firmware else ""
        line += f"; on {_SAID[kind_of(runs_firmware)]}: tlsbench run --preset {plan.target_instead}{where}"
    raise PlanError(line)


def summary(plan: Plan) -> str:
    """Where a plan runs, in a few words, for `tlsbench list presets`."""
    if set(plan.targets) == set(TARGET_KINDS):
        return "the host and firmware targets"
    other = next(k for k in TARGET_KINDS if k not in plan.targets)
    instead = f"; on {_SAID[other]}: preset {plan.target_instead}" if plan.target_instead else ""
    return f"{_SAID[plan.targets[0]]} only{instead}"
