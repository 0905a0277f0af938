"""Statistics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from tlsbench.engine.stats import OutlierPolicy, apply_policy, parse_policy, summarize, t975
from tlsbench.errors import PlanError


def test_summary_of_one_to_ten() -> None:
    s = summarize([float(v) for v in range(1, 11)], OutlierPolicy("none"))
    assert s.n == 10 and s.removed == 0
    assert s.median == 5.5 and s.mean == 5.5 and s.min == 1 and s.max == 10
    assert s.stdev == pytest.approx(math.sqrt(55 / 6))  # sample variance of 1..10 is 55/6
    half = 2.262 * math.sqrt(55 / 6) / math.sqrt(10)
    assert s.ci95_low == pytest.approx(5.5 - half) and s.ci95_high == pytest.approx(5.5 + half)


def test_single_sample_has_no_spread_and_no_interval() -> None:
    s = summarize([3.0], OutlierPolicy("none"))
    assert s.stdev is None and s.ci95_low is None and s.ci95_high is None


def test_tukey_drops_the_far_value_only() -> None:
    values = [10.0, 11, 10, 12, 11, 10, 100]
    kept, removed = apply_policy(values, OutlierPolicy("tukey"))
    assert removed == [100] and kept == [10, 11, 10, 12, 11, 10]


def test_trim_drops_the_k_farthest_from_the_median() -> None:
    kept, removed = apply_policy([5.0, 1, 5, 5, 9.5, 5, 5], OutlierPolicy("trim", 2))
    assert sorted(removed) == [1, 9.5] and kept == [5, 5, 5, 5, 5]
    s = summarize([5.0, 1, 5, 5, 9.5, 5, 5], OutlierPolicy("trim", 2))
    assert s.n == 5 and s.removed == 2 and s.stdev == 0


def test_t_quantiles() -> None:
    assert t975(1) == 12.706 and t975(9) == 2.262
    assert t975(50) == pytest.approx(2.009, abs=0.002)  # table value 2.0086
    assert t975(10_000) == pytest.approx(1.960, abs=0.001)


@pytest.mark.parametrize("text", ["tukey", "none", "trim:0", "trim:3"])
def test_policies_parse(text: str) -> None:
    assert str(parse_policy(text)) == text


@pytest.mark.parametrize("text", ["trim", "trim:-1", "iqr", ""])
def test_bad_policies_say_what_is_allowed(text: str) -> None:
    with pytest.raises(PlanError, match="allowed: none, tukey or trim:K"):
        parse_policy(text)
