"""Summary statistics with an explicit outlier policy.

Policies:
  none      keep every sample;
  trim:K    drop the K samples farthest from the median (the published
            embedded studies' "10 runs, 2 outliers tossed");
  tukey     drop samples outside Tukey's fences, [Q1 - 1.5 IQR, Q3 + 1.5 IQR].
The 95% confidence interval is Student's t interval for the mean of the kept
samples; with one sample there is none (reported as missing, not as zero).
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from tlsbench.errors import PlanError

# Two-sided 95% quantiles of Student's t, by degrees of freedom.
_T975 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
    9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
    16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074,
    23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045,
    30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980,
}


def t975(df: int) -> float:
    """95% two-sided Student t quantile (table, linear in 1/df between rows)."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if df in _T975:
        return _T975[df]
    if df > 120:
        lo, hi = 120, math.inf
        t_lo, t_hi = _T975[120], 1.960
    else:
        lo = max(k for k in _T975 if k < df)
        hi = min(k for k in _T975 if k > df)
        t_lo, t_hi = _T975[lo], _T975[hi]
    # interpolate in 1/df, which is how the quantile behaves
    x, x_lo, x_hi = 1 / df, 1 / lo, (0.0 if hi == math.inf else 1 / hi)
    return t_hi + (t_lo - t_hi) * (x - x_hi) / (x_lo - x_hi)


@dataclass(frozen=True)
class OutlierPolicy:
    name: str  # "none", "trim", "tukey"
    k: int = 0

    def __str__(self) -> str:
        return f"trim:{self.k}" if self.name == "trim" else self.name


POLICY_HELP = "none, tukey or trim:K (K a non-negative integer)"


def parse_policy(text: str) -> OutlierPolicy:
    text = text.strip()
    if text in ("none", "tukey"):
        return OutlierPolicy(text)
    m = re.fullmatch(r"trim:(\d+)", text)
    if m:
        return OutlierPolicy("trim", int(m.group(1)))
    raise PlanError(f"unknown outlier policy {text!r}; allowed: {POLICY_HELP}")


def _quantile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def apply_policy(values: list[float], policy: OutlierPolicy) -> tuple[list[float], list[float]]:
    """Returns (kept, removed), each in the original order."""
    if policy.name == "none" or len(values) < 3:
        return list(values), []
    if policy.name == "trim":
        k = min(policy.k, len(values) - 1)
        med = statistics.median(values)
        by_distance = sorted(range(len(values)), key=lambda i: (abs(values[i] - med), i))
        drop = set(by_distance[len(values) - k :]) if k else set()
    else:
        s = sorted(values)
        q1, q3 = _quantile(s, 0.25), _quantile(s, 0.75)
        iqr = q3 - q1
        lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
        drop = {i for i, v in enumerate(values) if v < lo or v > hi}
    kept = [v for i, v in enumerate(values) if i not in drop]
    removed = [v for i, v in enumerate(values) if i in drop]
    return kept, removed


@dataclass(frozen=True)
class Summary:
    n: int
    removed: int
    median: float
    mean: float
    stdev: float | None
    min: float
    max: float
    ci95_low: float | None
    ci95_high: float | None


def summarize(values: list[float], policy: OutlierPolicy) -> Summary:
    if not values:
        raise ValueError("no samples to summarize")
    kept, removed = apply_policy(values, policy)
    n = len(kept)
    mean = statistics.fmean(kept)
    stdev = statistics.stdev(kept) if n > 1 else None
    if stdev is not None:
        half = t975(n - 1) * stdev / math.sqrt(n)
        ci = (mean - half, mean + half)
    else:
        ci = (None, None)
    return Summary(
        n=n,
        removed=len(removed),
        median=statistics.median(kept),
        mean=mean,
        stdev=stdev,
        min=min(kept),
        max=max(kept),
        ci95_low=ci[0],
        ci95_high=ci[1],
    )


# ---- two runs' samples: the tests compare uses ----

# A noisy metric whose standard deviation exceeds this share of its median is
# flagged in every report (pyperf's rule of thumb: stdev >= 10% of the value).
NOISE_LIMIT = 0.10
NOISE_ADVICE = ("for a stable figure: more rounds (--rounds) and repeats, a quieter machine (no other load,"
                " a fixed CPU frequency), then compare the runs")


# Rounds run in fresh agents spread over the run (the runner's round-major
# order); a case whose rounds' medians differ by more than this share of its
# overall median drifted with the machine during the run (another load, a
# frequency change), which the within-round spread does not show. Flagged in
# every report, like noise.
DRIFT_LIMIT = 0.10


def round_drift(values: list[float], per_round: list[int]) -> float | None:
    """(largest - smallest round median) / the median of all values, the rounds
    being consecutive runs of per_round values; None with fewer than two
    rounds, when the values are not exactly the rounds' or the median is 0."""
    if len([n for n in per_round if n]) < 2 or len(values) != sum(per_round):
        return None
    medians, at = [], 0
    for n in per_round:
        if n:
            medians.append(statistics.median(values[at:at + n]))
        at += n
    whole = statistics.median(values)
    return None if whole == 0 else (max(medians) - min(medians)) / abs(whole)


def spread(median_value: float | None, stdev: float | None) -> float | None:
    """stdev / median, the spread a report prints as ±; None without both."""
    if median_value is None or stdev is None or median_value == 0:
        return None
    return stdev / abs(median_value)


def is_noisy(median_value: float | None, stdev: float | None) -> bool:
    s = spread(median_value, stdev)
    return s is not None and s > NOISE_LIMIT


BOOTSTRAP_ROUNDS = 2000
BOOTSTRAP_SEED = 20240601


def mann_whitney_p(a: list[float], b: list[float]) -> float | None:
    """Two-sided p-value of the Mann-Whitney U test (normal approximation
    with tie correction and continuity correction); None below 3 samples."""
    n1, n2 = len(a), len(b)
    if n1 < 3 or n2 < 3:
        return None
    values = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(values)
    ties = 0.0
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1][0] == values[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t**3 - t
        i = j + 1
    r1 = sum(r for r, (_, side) in zip(ranks, values, strict=True) if side == 0)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    mean = n1 * n2 / 2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - mean) - 0.5) / math.sqrt(var)
    return max(0.0, min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2))))


def bootstrap_ratio_ci(a: list[float], b: list[float], rounds: int = BOOTSTRAP_ROUNDS,
                       seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """95% percentile interval of median(B*)/median(A*) over resamples of the
    raw samples; None below 3 samples a side or with a zero median."""
    if len(a) < 3 or len(b) < 3:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(rounds):
        ma = median(rng.choices(a, k=len(a)))
        mb = median(rng.choices(b, k=len(b)))
        if ma == 0:
            return None
        ratios.append(mb / ma)
    ratios.sort()
    return ratios[int(0.025 * (rounds - 1))], ratios[int(math.ceil(0.975 * (rounds - 1)))]


def smallest_p(n1: int, n2: int) -> float:
    """The smallest p-value mann_whitney_p can give with these sample counts
    (every B sample beyond every A sample)."""
    n = n1 + n2
    z = (n1 * n2 / 2 - 0.5) / math.sqrt(n1 * n2 * (n + 1) / 12)
    return math.erfc(z / math.sqrt(2))


def median(values: list[float]) -> float:
    """The median (statistics.median without its type juggling)."""
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


# ---- rounds as the replicates: one agent process per round ----

# above this many splits of the pooled rounds the permutation test samples
# them (seeded) instead of visiting every one
EXACT_SPLITS = 200_000
PERMUTATION_SAMPLES = 20_000


def rounds_of(samples: Iterable[tuple[int, float]], per_round: list[int]) -> list[list[float]]:
    """Each round's values from (batch index, value) pairs: a case's batches are
    numbered across its rounds, per_round[r] of them in round r
    (case.split_repeats); a round with no value (a failed group) is left out."""
    ends = list(itertools.accumulate(per_round))
    out: list[list[float]] = [[] for _ in per_round]
    for idx, value in sorted(samples):
        r = bisect.bisect_right(ends, idx)
        if r < len(out):
            out[r].append(value)
    return [values for values in out if values]


def process_spread(*runs: list[list[float]]) -> float:
    """How far a figure's agent processes lie apart within a run: the largest, over the runs given (each
    its rounds' values, rounds_of), of its slowest round's median over its fastest round's; 1 where no
    run has two rounds with positive medians. Two runs of unchanged code can differ by that much: the
    process, not the code, sets the level."""
    spreads = [max(m) / min(m) for m in ([median(r) for r in rounds if r] for rounds in runs)
               if len(m) >= 2 and min(m) > 0]
    return max(spreads, default=1.0)


def permutation_p(a: list[float], b: list[float], seed: int = BOOTSTRAP_SEED) -> float | None:
    """Two-sided p of a permutation test of the difference of the means of
    log(a) and log(b) (a ratio, whatever the scale): the share of the splits
    of the pooled values into groups of len(a) and len(b) at least as far
    apart as the observed one. Exact (every split) up to EXACT_SPLITS splits,
    beyond that PERMUTATION_SAMPLES seeded ones; None below 2 values a side
    or with a value <= 0."""
    n1, n = len(a), len(a) + len(b)
    if n1 < 2 or len(b) < 2 or min(*a, *b) <= 0:
        return None
    logs = [math.log(v) for v in (*a, *b)]
    total = math.fsum(logs)

    def distance(sum_a: float) -> float:
        return abs(sum_a / n1 - (total - sum_a) / (n - n1))

    observed = distance(math.fsum(logs[:n1])) * (1 - 1e-12)  # ties with the observed split count as extreme
    exact = math.comb(n, n1) <= EXACT_SPLITS
    if exact:
        splits: Iterable[tuple[int, ...]] = itertools.combinations(range(n), n1)
    else:
        rng = random.Random(seed)
        splits = [tuple(rng.sample(range(n), n1)) for _ in range(PERMUTATION_SAMPLES)]
    hits = count = 0
    for split in splits:
        count += 1
        hits += distance(math.fsum(logs[i] for i in split)) >= observed
    # sampled splits: the observed one counted in, so p is never 0 (Phipson and Smyth 2010)
    return hits / count if exact else (hits + 1) / (count + 1)


def smallest_permutation_p(n1: int, n2: int) -> float:
    """The smallest p permutation_p can give with n1 and n2 values: the
    observed split alone (and its mirror image when n1 == n2) as extreme."""
    return (2 if n1 == n2 else 1) / math.comb(n1 + n2, n1)
