"""The round (one agent process) as the replicate of a host timing: rounds
read from batch indexes, and the exact permutation test on round summaries."""

from __future__ import annotations

import random

import pytest

from tlsbench.engine import stats
from tlsbench.report import compare, compare_rounds


def test_rounds_follow_the_batch_index_not_the_count() -> None:
    # 10 repeats over 3 rounds are 4, 3, 3 batches (case.split_repeats); batch 5 of round 2 is missing
    pairs = [(i, float(i)) for i in range(10) if i != 5]
    assert stats.rounds_of(reversed(pairs), [4, 3, 3]) == [[0.0, 1.0, 2.0, 3.0], [4.0, 6.0], [7.0, 8.0, 9.0]]
    assert stats.rounds_of([(0, 1.0), (1, 2.0)], [1, 1, 1]) == [[1.0], [2.0]]  # an empty round is left out
    assert stats.rounds_of([(7, 1.0)], [2, 2]) == []  # beyond the plan's batches: no round


def test_permutation_p_counts_every_split() -> None:
    # 2 and 2 values, every B beyond every A: of the 6 splits only the observed and its mirror are that far
    assert stats.permutation_p([1.0, 2.0], [3.0, 4.0]) == pytest.approx(2 / 6)
    assert stats.permutation_p([1.0, 1.1, 1.05], [2.0, 2.1, 2.2]) == pytest.approx(2 / 20)
    assert stats.permutation_p([5.0, 5.0, 5.0], [5.0, 5.0, 5.0]) == 1.0  # every split as far: no evidence
    # the test is on the logs: scaling both sides alike changes nothing
    a, b = [10.0, 12.0, 11.0, 13.0], [12.5, 14.0, 13.0, 15.5]
    assert stats.permutation_p(a, b) == stats.permutation_p([3 * v for v in a], [3 * v for v in b])


def test_permutation_p_without_a_test() -> None:
    assert stats.permutation_p([1.0], [2.0, 3.0]) is None  # one round: nothing to permute
    assert stats.permutation_p([0.0, 1.0], [2.0, 3.0]) is None  # no log of zero


def test_smallest_permutation_p_says_which_round_counts_can_reach_alpha() -> None:
    assert stats.smallest_permutation_p(3, 3) == pytest.approx(0.1)  # the default plan's 3 rounds: never 0.01
    assert stats.smallest_permutation_p(6, 6) == pytest.approx(2 / 924)
    assert stats.smallest_permutation_p(3, 6) == pytest.approx(1 / 84)  # unequal: no mirror image
    a = [1.0, 1.01, 1.02, 1.03, 1.04, 1.05]
    assert stats.permutation_p(a, [2 * v for v in a]) == pytest.approx(stats.smallest_permutation_p(6, 6))


def test_permutation_p_samples_large_counts_with_a_seed() -> None:
    a = [1.0 + i / 100 for i in range(11)]
    b = [2.0 + i / 100 for i in range(11)]  # C(22, 11) = 705,432 splits: sampled
    p = stats.permutation_p(a, b)
    assert p == pytest.approx(1 / (stats.PERMUTATION_SAMPLES + 1))  # never 0: the observed split counts
    assert stats.permutation_p(a, b) == p


# ---- the rule: report/compare_rounds.py, on seeded synthetic rounds (no timing) ----


def _rounds(seed: int, n_rounds: int, offset_sd: float, scale: float = 1.0, per_round: int = 5) -> list[list[float]]:
    """Rounds of one case: each process slower or faster by its own offset (log-normal), its samples
    within 1% of that."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_rounds):
        offset = rng.lognormvariate(0, offset_sd)
        out.append([round(1000 * scale * offset * (1 + abs(rng.gauss(0, 0.01))), 1) for _ in range(per_round)])
    return out


def _flat(rounds: list[list[float]]) -> list[float]:
    return [v for r in rounds for v in r]


def test_no_change_between_processes_of_one_distribution() -> None:
    # both runs' rounds drawn alike, each process off by up to ~10%: B's medians happen to be 15% lower
    a, b = _rounds(1, 6, 0.1), _rounds(101, 6, 0.1)
    v = compare_rounds.round_verdict(a, b, compare.ALPHA, compare.MIN_EFFECT)
    assert (v.verdict, v.note) == ("inconclusive", "6 rounds vs 6 rounds: p = 0.0325")
    assert v.p_value == pytest.approx(30 / 924)
    # the all-samples rule takes the 30 samples as independent and calls this a change
    assert compare.statistical_row("c", _flat(a), _flat(b), compare.ALPHA, compare.MIN_EFFECT, True,
                                    "ns").verdict == "faster"
    assert compare_rounds.round_verdict(a, b, compare.ALPHA, compare.MIN_EFFECT, "median").verdict == "inconclusive"


def test_slower_when_every_round_of_b_is_20_percent_slower() -> None:
    a, b = _rounds(3, 6, 0.05), _rounds(103, 6, 0.05, scale=1.2)
    v = compare_rounds.round_verdict(a, b, compare.ALPHA, compare.MIN_EFFECT)
    assert (v.verdict, v.note) == ("slower", "6 rounds vs 6 rounds")
    assert v.p_value == pytest.approx(2 / 924) and v.ratio == pytest.approx(1.2, abs=0.01)
    faster = compare_rounds.round_verdict(b, a, compare.ALPHA, compare.MIN_EFFECT)
    assert faster.verdict == "faster"
    # the same shift, but the machine's speed moved by 30% around the case: that much can be the machine
    widened = compare_rounds.round_verdict(a, b, compare.ALPHA, compare.MIN_EFFECT, machine=1.3)
    assert (widened.verdict, widened.note) == ("inconclusive",
                                               "6 rounds vs 6 rounds: B/A 1.199 within the minimum effect")


def test_inconclusive_when_the_rounds_are_too_few() -> None:
    a, b = _rounds(3, 3, 0.05), _rounds(103, 3, 0.05, scale=2.0)  # twice as slow, but 3 processes a side
    v = compare_rounds.round_verdict(a, b, compare.ALPHA, compare.MIN_EFFECT)
    assert (v.verdict, v.p_value) == ("inconclusive", None)
    assert v.note == "3 rounds vs 3 rounds cannot reach p < 0.01 with the round as the unit: measure more rounds"
    one = compare_rounds.round_verdict(a[:1], b, compare.ALPHA, compare.MIN_EFFECT)
    assert (one.verdict, one.note) == ("inconclusive", "1 round vs 3 rounds: a test needs 2 rounds a side at least")
