"""A host timing's verdict with the round as the replicate.

On the host each round of a case runs in an agent process of its own, and
what moves a timing between runs is the process (its layout, its caches, the
machine's phase while it ran), not the sample: the samples of one round are
not independent replicates of that variation. Here each round is summarised
by one figure (its minimum or its median), the two runs' round summaries are
compared by an exact permutation test on their logs (stats.permutation_p),
and the effect is the ratio of the runs' medians of round summaries.

Evaluated on stored pairs of unchanged code (docs/method.md, "The round as
the replicate"); not compare's rule: with the default plan's 3 rounds the
test cannot reach alpha at all, and with 6 it still called 2 false changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tlsbench.engine.stats import median, permutation_p, smallest_permutation_p

SUMMARIES: dict[str, Callable[[list[float]], float]] = {"min": min, "median": median}


def _rounds(n: int) -> str:
    return f"{n} round" if n == 1 else f"{n} rounds"


@dataclass(frozen=True)
class RoundVerdict:
    verdict: str  # faster | slower | inconclusive (lower is better: a time)
    ratio: float | None  # B / A of the medians of round summaries
    p_value: float | None
    note: str


def round_verdict(rounds_a: list[list[float]], rounds_b: list[list[float]], alpha: float, min_effect: float,
                  summary: str = "min", machine: float = 1.0) -> RoundVerdict:
    """A change only when the permutation test on the round summaries gives p < alpha and their
    medians' ratio lies beyond the minimum effect (widened by ``machine``, steadiness.moved, >= 1);
    inconclusive, with the reason, when the rounds are too few for the test to reach alpha."""
    stat = SUMMARIES[summary]
    sa, sb = [stat(r) for r in rounds_a if r], [stat(r) for r in rounds_b if r]
    units = f"{_rounds(len(sa))} vs {_rounds(len(sb))}"
    if len(sa) < 2 or len(sb) < 2:
        return RoundVerdict("inconclusive", None, None, f"{units}: a test needs 2 rounds a side at least")
    if min(*sa, *sb) <= 0:
        return RoundVerdict("inconclusive", None, None, f"{units}: a round's {summary} is not positive")
    ratio = median(sb) / median(sa)
    if smallest_permutation_p(len(sa), len(sb)) >= alpha:
        return RoundVerdict("inconclusive", ratio, None,
                            f"{units} cannot reach p < {alpha:g} with the round as the unit: measure more rounds")
    p = permutation_p(sa, sb)
    assert p is not None
    low, high = (1 - min_effect) / machine, (1 + min_effect) * machine
    if p < alpha and ratio >= high:
        return RoundVerdict("slower", ratio, p, units)
    if p < alpha and ratio <= low:
        return RoundVerdict("faster", ratio, p, units)
    why = f"p = {p:.3g}" if not p < alpha else f"B/A {ratio:.3f} within the minimum effect"
    return RoundVerdict("inconclusive", ratio, p, f"{units}: {why}")
