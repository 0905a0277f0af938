"""The hand-written statistics (kept so the tool needs no numeric stack at
run time) against scipy.stats: Student's t quantile and interval, the
Mann-Whitney U test, the percentile bootstrap of a ratio of medians,
Tukey's quartiles, and the exact permutation test on round summaries."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest
from scipy import stats as ss

from tlsbench.engine import stats


def test_t_quantile_within_half_a_thousandth() -> None:
    # the table holds three decimals; between its rows it interpolates in 1/df
    for df in range(1, 500):
        assert stats.t975(df) == pytest.approx(ss.t.ppf(0.975, df), abs=5e-4), df


@pytest.mark.parametrize("n", [2, 3, 7, 25, 31, 64, 200])
def test_mean_interval_is_students(n: int) -> None:
    rng = random.Random(n)
    values = [1000 + rng.gauss(0, 30) for _ in range(n)]
    s = stats.summarize(values, stats.OutlierPolicy("none"))
    mean = statistics.fmean(values)
    low, high = ss.t.interval(0.95, n - 1, loc=mean, scale=ss.sem(values))
    # the half-width carries the table's three decimals of t: relative 3e-4 at most
    assert s.mean == pytest.approx(mean, rel=1e-12)
    assert s.ci95_high - s.mean == pytest.approx(high - mean, rel=3e-4)
    assert s.mean - s.ci95_low == pytest.approx(mean - low, rel=3e-4)


def test_mann_whitney_matches_scipy_with_ties() -> None:
    rng = random.Random(1)
    for _ in range(200):
        a = [rng.randint(0, 20) for _ in range(rng.randint(3, 30))]
        b = [rng.randint(0, 25) for _ in range(rng.randint(3, 30))]
        ref = ss.mannwhitneyu(a, b, use_continuity=True, alternative="two-sided", method="asymptotic").pvalue
        assert stats.mann_whitney_p(a, b) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize(("n1", "n2"), [(3, 3), (5, 5), (10, 10), (4, 9)])
def test_smallest_p_is_the_p_of_fully_separated_samples(n1: int, n2: int) -> None:
    ref = ss.mannwhitneyu(range(n1), range(n1, n1 + n2), alternative="two-sided", method="asymptotic").pvalue
    assert stats.smallest_p(n1, n2) == pytest.approx(ref, rel=1e-9)


def test_bootstrap_interval_agrees_with_scipy() -> None:
    """Both resample at random (different generators): the endpoints agree
    within a fraction of the interval's width."""
    rng = random.Random(3)
    a = [100 + rng.gauss(0, 2) for _ in range(40)]
    b = [103 + rng.gauss(0, 2) for _ in range(40)]
    low, high = stats.bootstrap_ratio_ci(a, b)
    ref = ss.bootstrap((a, b), lambda x, y: np.median(y) / np.median(x), vectorized=False, method="percentile",
                       n_resamples=stats.BOOTSTRAP_ROUNDS, rng=np.random.default_rng(7)).confidence_interval
    width = ref.high - ref.low
    assert abs(low - ref.low) < 0.15 * width and abs(high - ref.high) < 0.15 * width
    assert low < 1.03 < high  # the true ratio of the medians is inside


def test_tukey_quartiles_are_numpys() -> None:
    rng = random.Random(5)
    for n in (3, 4, 10, 33):
        s = sorted(rng.random() for _ in range(n))
        for q in (0.25, 0.75):
            assert stats._quantile(s, q) == pytest.approx(float(np.percentile(s, 100 * q)), abs=1e-12)


def test_median_is_the_median() -> None:
    for n in (1, 2, 5, 8):
        values = [math.sin(i) for i in range(n)]
        assert stats.median(values) == float(np.median(values))


@pytest.mark.parametrize("seed", range(5))
def test_round_permutation_test_is_scipys_exact_one(seed: int) -> None:
    # equal round counts: the permutation distribution is symmetric, so scipy's two-sided p (twice the
    # smaller tail) equals ours (|difference| at least the observed one)
    rng = random.Random(seed)
    a = [1000 * rng.lognormvariate(0, 0.1) for _ in range(5)]
    b = [1000 * rng.lognormvariate(0.1, 0.1) for _ in range(5)]
    theirs = ss.permutation_test((np.log(a), np.log(b)), lambda x, y: np.mean(x) - np.mean(y),
                                 permutation_type="independent", n_resamples=np.inf, alternative="two-sided")
    assert stats.permutation_p(a, b) == pytest.approx(theirs.pvalue, rel=1e-9)
