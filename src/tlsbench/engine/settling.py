"""Measuring again, at the end of a host run, the cases that had no steady
round: a round is steady when the reference workload just before it and just
after it both ran at STEADY_SPEED of the run's best or faster.

Why at the end and not at once: on a shared virtual machine the slow phases
(a neighbour on the same physical core) last tenths of a second to seconds,
longer than an immediate second attempt waits, so measuring a slow round again
right away mostly met the same phase (docs/method.md, "Settling: deferred,
gated attempts and a phase-ordered run"). Here a case waits its turn after
the whole plan, and is measured only once a reference timed just before
says the machine is fast again (at most POLLS references, each about 5 ms). On two runs of unchanged code the
minimum over steady rounds agreed far more often than the minimum over all
rounds (docs/data/steady-rounds-2026-11-29.txt), so every case should have
one. The work is capped: at most SHARE of the time the run spent measuring
before, and at most PASSES attempts per case; a case still without a steady
round keeps what it has, and its slow rounds stay flagged. During the run,
phase_order() gives the fast phases to the cases that still need a steady
round.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from tlsbench.engine import pacing

T = TypeVar("T")

# both references around a round at least this fast (x the run's best): a steady round, the same bound below
# which a round is flagged slow. On the 2026-11-29 tls pair the rounds within 1.1x agreed within 5% as often
# as those within 1.05x (76-80% against 79-80%) and half as many more cases had one
STEADY_SPEED = pacing.SLOW_RATIO
SHARE = 0.3  # settling may take this share of the time the run measured before it
PASSES = 3  # attempts per case at most
POLLS = 20  # references timed (about 5 ms each), waiting for a fast phase, before each attempt at most

clock: Callable[[], float] = time.monotonic  # tests replace it


def round_speed(before: int | None, after: int | None, best: int) -> float:
    """A round's speed: the slower of the references around it against the run's best (0.0: none timed)."""
    known = [ns for ns in (before, after) if ns]
    return best / max(known) if known and best > 0 else 0.0


def is_steady(rounds: Iterable[Mapping], best: int) -> bool:
    """Whether any of a case's stored rounds (case_rounds rows) is steady."""
    return any(round_speed(r.get("reference_ns"), r.get("reference_after_ns"), best) >= STEADY_SPEED
               for r in rounds)


def wait_fast(pace: pacing.Pace, timed: Callable[[], int], polls: int) -> int:
    """References timed (each noted in ``pace``) until one runs at STEADY_SPEED of the best, at most
    ``polls``: the last one's time."""
    for _ in range(polls):
        ns = timed()
        pace.note(ns)
        if pace.speed(ns) >= STEADY_SPEED:
            break
    return ns


def slowest_round(rounds: Iterable[Mapping], best: int) -> Mapping:
    """The round to measure again: the one whose references were slowest (the first of equals)."""
    return min(rounds, key=lambda r: (round_speed(r.get("reference_ns"), r.get("reference_after_ns"), best),
                                      r["round"]))


@dataclass
class Budget:
    """The time settling may take: SHARE of ``measured_s``, from now."""

    measured_s: float
    started: float = 0.0

    def __post_init__(self) -> None:
        self.started = clock()

    def left(self) -> bool:
        return clock() - self.started < SHARE * self.measured_s


@dataclass
class Outcome:
    """What settling did, for the run's log and its notes."""

    lacking: int = 0  # cases without a steady round when settling began
    settled: int = 0  # of them, those with one when it ended
    attempts: int = 0  # rounds measured again
    kept: int = 0  # of them, the ones that replaced a slower round
    polls: int = 0  # references timed while waiting for a fast phase
    out_of_budget: bool = False

    def line(self, seconds: float) -> str:
        if not self.lacking:
            return "settling: every case had a steady round"
        budget = "; stopped by its time budget" if self.out_of_budget else ""
        return (f"settling: {self.lacking} case(s) had no steady round (both references at {STEADY_SPEED:g}"
                f" of the run's best): {self.settled} now have one after {self.attempts} round(s) measured again"
                f" ({self.kept} kept), {self.polls} reference(s) timed waiting for a fast phase,"
                f" {seconds:.0f} s{budget}")


def phase_order(pending: list[tuple[int, T]], name_of: Callable[[T], str], lacks: Callable[[T], bool],
                fast_now: Callable[[], bool]) -> Iterator[tuple[int, T]]:
    """The pending rounds (round, case) in plan order, except that the
    machine's phase picks the next one: while it is fast (the last
    reference says so) the first round of a case that ``lacks`` a steady
    round goes first, while it is slow the first round of a case that has one
    already; a case's own rounds keep their order. So the fast phases, often a
    fifth of the time on a shared machine, serve the cases that need one, and
    the run measures no more rounds than before. ``pending`` is consumed."""
    while pending:
        want_lacking = fast_now()
        chosen = 0
        earlier: set[str] = set()  # cases with an earlier round still pending
        for i, (_, case) in enumerate(pending):
            name = name_of(case)
            if name in earlier:
                continue
            earlier.add(name)
            if lacks(case) == want_lacking:
                chosen = i
                break
        yield pending.pop(chosen)
