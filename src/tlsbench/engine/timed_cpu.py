"""One CPU for a timed host run: the run (and so every agent, peer and
client tool it starts) is confined to it while it measures.

Why: with two processes in a case (a TLS client and server over loopback
TCP) the kernel places them on one CPU or on two, and moves them; on a
virtual machine a wake-up across CPUs costs a varying amount. On the
2-core VM of 2026-11-29 (docs/method.md, "One CPU for a timed run") five
runs of the same ten wolfSSL TCP handshakes differed by up to 1.68x per
side's CPU time where the kernel placed them, and ten by at most 1.06x with the
run on one CPU. The reference workload then also runs on the CPU the cases
run on, so it tells that CPU's speed. Processes that measure the machine's
throughput with several processes at once (transactions per second with
several clients) run on the run's whole set (``unconfined``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from tlsbench.errors import PlanError, TlsbenchError

AUTO, NONE = "auto", "none"
KEY = "timed_cpu"  # in the run's stored machine
HELP = ('"auto" (a timed host run on one CPU: the last one it may use), "none" (where the kernel puts it) or a'
        " CPU number")

_before: set[int] | None = None  # the run's set before it was confined (None: not confined)


def allowed() -> set[int]:
    return set(os.sched_getaffinity(0))


def setting_problem(value: object) -> str | None:
    """Why a [method] cpu value is not allowed (None when it is)."""
    if value in (AUTO, NONE) or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 4096):
        return None
    return f"must be {HELP}, got {value!r}"


def choose(setting: str, timed: bool) -> int | None:
    """The CPU a run with this setting is confined to (None: not confined). Only timed runs are: exact
    counts do not depend on where they ran, and an emulated run may use every core."""
    if not timed or setting == NONE:
        return None
    cpus = allowed()
    if setting == AUTO:
        return max(cpus)  # the first CPUs usually take more of the machine's interrupts
    cpu = int(setting)
    if cpu not in cpus:
        raise PlanError(f"[method] cpu = {cpu}: this run may use CPUs {', '.join(map(str, sorted(cpus)))} only")
    return cpu


def record(cpu: int | None) -> dict[str, int]:
    """What a run stores with its machine: the CPU it is confined to, if any."""
    return {} if cpu is None else {KEY: cpu}


def of_run(machine: dict, run_id: int) -> int | None:
    """The CPU a stored run was measured on, to resume it there (a run stored before: not confined)."""
    cpu = machine.get(KEY)
    if cpu is not None and cpu not in allowed():
        raise TlsbenchError(f"run {run_id} was measured on CPU {cpu}, which this process may not use")
    return cpu


@contextmanager
def confined(cpu: int | None) -> Iterator[None]:
    """This process (and what it starts) on ``cpu`` until the block ends; nothing changes for None."""
    global _before
    if cpu is None:
        yield
        return
    before = allowed()
    os.sched_setaffinity(0, {cpu})
    _before = before
    try:
        yield
    finally:
        _before = None
        os.sched_setaffinity(0, before)


@contextmanager
def unconfined() -> Iterator[None]:
    """The run's whole set of CPUs back for the block, and for what it starts (a throughput measurement with
    several processes at once); nothing changes when the run is not confined."""
    if _before is None:
        yield
        return
    confined_to = allowed()
    os.sched_setaffinity(0, _before)
    try:
        yield
    finally:
        os.sched_setaffinity(0, confined_to)
