"""A case's results from its stored batches: one summary per metric (and a
throughput for sized operations), the same whether a round was measured in
order or measured again while settling."""

from __future__ import annotations

from tlsbench.engine import metrics
from tlsbench.engine.case import Result, Sample
from tlsbench.engine.stats import OutlierPolicy, Summary, parse_policy, summarize

NO_OUTLIERS = OutlierPolicy("none")


def _result(metric: str, s: Summary) -> Result:
    return Result(metric, metrics.unit(metric), s)


def summarize_samples(samples: list[Sample], size: int | None, outliers: str) -> list[Result]:
    """A case's results, one per metric, from its stored batches of every round."""
    policy = parse_policy(outliers)
    measured = sorted((s.idx, s.iters, s.counter, s.total) for s in samples if not s.warmup)
    by_counter: dict[str, list[tuple[int, int]]] = {}
    for _idx, iters, counter, total in measured:
        by_counter.setdefault(counter, []).append((iters, total))
    results = []
    for counter, rows in by_counter.items():
        # exact counts (bytes, instructions, memory) are not noisy times: no value is dropped from them
        s = summarize([total / iters for iters, total in rows], NO_OUTLIERS if metrics.is_exact(counter) else policy)
        results.append(_result(counter, s))
    wall = by_counter.get("wall_ns", [])
    if size and wall and all(total for _, total in wall):
        s = summarize([size * iters * 1e9 / total for iters, total in wall], policy)
        results.append(_result("throughput", s))
    return results
