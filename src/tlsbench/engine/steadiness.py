"""How steady the machine was through a run, from the reference workload
timed around every round of a host case (case_rounds.reference_ns before
the round, reference_after_ns after it): one line a user can read, and the
factor by which the machine's speed moved for a case between two runs
(compare widens its threshold by it)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from tlsbench.engine.pacing import CHAIN_KIND, SLOW_RATIO

STEADY_BAND = 0.03  # p5-p95 of the references within this of their median: the machine was steady


def references(rounds: Iterable[dict]) -> dict[str, list[int]]:
    """Per case: every reference time stored with its rounds (before and after), in round order."""
    out: dict[str, list[int]] = {}
    for r in rounds:
        for key in ("reference_ns", "reference_after_ns"):
            ns = r.get(key)
            if ns:
                out.setdefault(r["name"], []).append(int(ns))
    return out


def line(refs: Sequence[int]) -> str:
    """One line on the machine's speed through the run: its references' p5-p95 band around their median
    when steady, else how far the speed fell below the fastest reference and how often below SLOW_RATIO."""
    if not refs:
        return "machine steadiness: not measured (no reference workload stored with this run's rounds)"
    ns = np.asarray(refs, dtype=float)
    p5, p50, p95 = np.percentile(ns, [5, 50, 95])
    band = max(p50 / p5 - 1, p95 / p50 - 1)  # speed = 1/time: the band in speed around the median
    if band <= STEADY_BAND:
        return f"machine steady: reference within ±{100 * band:.0f}% (p5-p95) over {len(ns)} samples"
    speed = ns.min() / ns
    below = float(np.mean(speed < SLOW_RATIO))
    return (f"machine unsteady: speed moved {speed.min():.2f}-1.00x, p5-p95 ±{100 * band:.0f}%,"
            f" {100 * below:.0f}% of references below {SLOW_RATIO:g} over {len(ns)} samples")


def run_line(rounds: Iterable[dict]) -> str:
    """The line of a run: every reference stored with its rounds, and how many rounds were measured again
    (engine/settling.py: the references of an attempt not kept are not among these)."""
    rounds = list(rounds)
    out = line([ns for refs in references(rounds).values() for ns in refs])
    again = [r for r in rounds if int(r.get("attempts") or 1) > 1]
    if again:
        out += (f"; {len(again)} of {len(rounds)} rounds measured again"
                f" ({sum(int(r['attempts']) - 1 for r in again)} more attempts, the fastest kept)")
    return out


def kind(machine: dict, has_references: bool) -> str:
    """The reference workload a run timed (its machine record says; runs stored before lanes timed the
    single chain), "" for a run without references."""
    return str(machine.get("reference_workload") or CHAIN_KIND) if has_references else ""


def moved(refs_a: Sequence[int], refs_b: Sequence[int], kind_a: str = "", kind_b: str = "") -> float:
    """How far the machine's speed moved across two sets of references (a
    case's rounds in two runs): the ratio of the slowest to the fastest of
    all of them, >= 1; 1.0 when either side has none (nothing to go by).
    References of different workloads are not compared with each other:
    then each run's own movement, the larger of the two."""
    if not refs_a or not refs_b:
        return 1.0
    if kind_a != kind_b:
        return max(max(refs_a) / min(refs_a), max(refs_b) / min(refs_b))
    both = [*refs_a, *refs_b]
    return max(both) / min(both)
