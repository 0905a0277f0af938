"""Several emulator sessions at once (``run --jobs N``) for a target whose
counts are exact: a case's counts do not depend on what runs beside it, so
N cases are measured at a time while every outcome is stored by the calling
thread, in plan order, as soon as the ones before it are stored.

Rounds stay in order: round r+1 of the plan starts once round r is stored
(a later round reads the earlier one's samples). A stopped run (Ctrl-C,
SIGTERM) kills the agents still measuring; every round already measured is
stored first, so a resume measures only the rest.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from tlsbench.engine import agent
from tlsbench.engine.case import Case, Measured
from tlsbench.errors import PlanError

Pending = list[tuple[int, Case]]


def default_jobs(exact: bool) -> int:
    """Exact counts: one session per core this process may use; a clock: one case at a time."""
    if not exact:
        return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity call on this system
        return os.cpu_count() or 1


def checked_jobs(jobs: int | None, why_not: str | None) -> int:
    """--jobs as given (None: the default), refused above 1 where cases must run alone (``why_not``:
    the target's reason; None: sessions may run side by side)."""
    if jobs is None:
        return default_jobs(why_not is None)
    if jobs < 1:
        raise PlanError(f"--jobs {jobs}: give a number of sessions of 1 or more")
    if jobs > 1 and why_not is not None:
        raise PlanError(f"--jobs {jobs}: {why_not}; give --jobs 1 or leave it out")
    return jobs


def measure_in_order(pending: Pending, jobs: int, wanted: Callable[[int, Case], bool],
                     known: Callable[[Case, int], Measured | None], measure: Callable[[Case, int], Measured],
                     store: Callable[[Case, int, Measured, float], None], on_done: Callable[[Case], None]) -> None:
    """Measures ``pending`` (round, case), ``jobs`` at a time. ``wanted``: a round
    still needs its turn (an earlier round may have decided the case); ``known``:
    its outcome without measuring (called here, like ``store``, never in a worker);
    ``measure`` runs in a worker thread and never raises for an agent's failure."""
    import time

    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="tlsbench-session") as pool:
        for _rnd, group in itertools.groupby(pending, key=lambda p: p[0]):
            batch = list(group)
            slots: list[tuple[int, Case, float, Future[Measured] | Measured | None]] = []
            for rnd, case in batch:  # every session's work of this round, queued in plan order
                if not wanted(rnd, case):
                    slots.append((rnd, case, 0.0, None))
                    continue
                outcome = known(case, rnd)
                started = time.time()
                slots.append((rnd, case, started, outcome if outcome is not None else pool.submit(measure, case, rnd)))
            stored = 0
            try:
                for rnd, case, started, slot in slots:  # stored in plan order, each once those before it are
                    if slot is not None:
                        store(case, rnd, slot.result() if isinstance(slot, Future) else slot, started)
                    stored += 1
                    on_done(case)
            except BaseException:  # stopped: what was measured is stored, the rest is killed and resumed later
                for *_, slot in slots:
                    if isinstance(slot, Future):
                        slot.cancel()
                agent.stop_all()
                pool.shutdown(wait=True)
                _store_finished(slots[stored:], wanted, store)
                raise
            finally:
                agent.allow_calls()


def _store_finished(slots: list, wanted: Callable[[int, Case], bool],
                    store: Callable[[Case, int, Measured, float], None]) -> None:
    """The rounds of a stopped batch that came out before the stop, in plan order, each once
    (a round its killed agent failed is no result: measured on resume)."""
    for rnd, case, started, slot in slots:
        if not wanted(rnd, case):  # stored already (the stop came just after it)
            continue
        if isinstance(slot, Future):
            if not slot.done() or slot.cancelled() or slot.exception() is not None:
                continue
            slot = slot.result()
        if slot is not None and slot.status != "failed":
            store(case, rnd, slot, started)


__all__ = ["checked_jobs", "default_jobs", "measure_in_order"]
