"""A case's results from its stored batches: one summary per metric (and a
throughput for sized operations), the same whether a round was measured in
order or measured again while settling."""

from __future__ import annotations

from dataclasses import replace

from tlsbench.engine import metrics
from tlsbench.engine.case import Result, Sample
from tlsbench.engine.stats import OutlierPolicy, Summary, parse_policy, summarize

NO_OUTLIERS = OutlierPolicy("none")


def _result(metric: str, s: Summary) -> Result:
    return Result(metric, metrics.unit(metric), s)


def with_fastest(metric: str, values: list[float], s: Summary) -> Summary:
    """``s`` with its fastest end (the least time, the highest rate) taken over every sample: noise only
    ever slows a timing, so a fast sample is never an outlier, and the fastest is a host timing's figure
    ("min of N samples"). When most rounds met a slow phase, the outlier policy's fences would otherwise
    drop the very rounds that ran at the machine's speed."""
    if metrics.lower_is_better(metric):
        return replace(s, min=min(values))
    return replace(s, max=max(values))


def summarize_samples(samples: list[Sample], size: int | None, outliers: str) -> list[Result]:
    """A case's results, one per metric, from its stored batches of every round."""
    policy = parse_policy(outliers)
    measured = sorted((s.idx, s.iters, s.counter, s.total) for s in samples if not s.warmup)
    by_counter: dict[str, list[tuple[int, int]]] = {}
    for _idx, iters, counter, total in measured:
        by_counter.setdefault(counter, []).append((iters, total))
    results = []
    for counter, rows in by_counter.items():
        values = [total / iters for iters, total in rows]
        if metrics.is_exact(counter):  # exact counts (bytes, instructions, memory): no value is dropped from them
            results.append(_result(counter, summarize(values, NO_OUTLIERS)))
        else:
            results.append(_result(counter, with_fastest(counter, values, summarize(values, policy))))
    wall = by_counter.get("wall_ns", [])
    if size and wall and all(total for _, total in wall):
        values = [size * iters * 1e9 / total for iters, total in wall]
        results.append(_result("throughput", with_fastest("throughput", values, summarize(values, policy))))
    return results
