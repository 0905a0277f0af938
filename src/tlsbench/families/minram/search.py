"""The minimum-RAM search itself, apart from any agent: the smallest heap
limit a probe passes with, found by narrowing an interval whose low end is
known to fail and whose high end is known to pass, then confirmed.

A probe takes limits and says for each whether the handshake completed (and
its session checked out) under it, and may add a bound that a deterministic
probe proves: a pass at L whose heap peaked at P passes at P too (every
block admitted at L is admitted at P, every one refused is refused), so P
becomes the high end; a failure after a single refused block, which needed
N, fails at every limit from L to N - 1 (the same block alone is refused),
so N - 1 becomes the low end. Without bounds this is
plain bisection (or k-ary, with several limits per probe call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    ok: bool
    # ok: the heap peak reached (passes down to it); not ok: the need of the
    # first refused block (fails below it); None when the probe cannot say
    bound: int | None = None


Probe = Callable[[list[int]], list[Outcome]]


class SearchError(Exception):
    """The search could not bracket or confirm a minimum."""


@dataclass(frozen=True)
class SearchResult:
    limit: int  # the smallest limit found passing; limit - 1 fails (unless limit is 0)
    probes: int  # limits tried, the confirmation included
    calls: int  # probe calls made


def _points(lo: int, hi: int, ways: int) -> list[int]:
    """Up to `ways` limits strictly between lo and hi, evenly spread."""
    span = hi - lo
    n = min(ways, span - 1)
    return sorted({lo + (span * (k + 1)) // (n + 1) for k in range(n)} - {lo, hi})


def min_limit(probe: Probe, start: int, ways: int = 1, grow: int = 4) -> SearchResult:
    """The smallest limit the probe passes with: between 0 and ``start`` (the
    uncapped peak, which should pass; doubled up to ``grow`` times when it
    does not), narrowed by bisection and the probes' bounds, then confirmed:
    the limit passes and the limit minus one fails, probed again together."""
    if start < 0 or ways < 1:
        raise ValueError("start must be >= 0 and ways >= 1")
    calls = probes = 0

    def ask(limits: list[int]) -> list[Outcome]:
        nonlocal calls, probes
        calls += 1
        probes += len(limits)
        got = probe(limits)
        if len(got) != len(limits):
            raise SearchError(f"the probe answered {len(got)} of {len(limits)} limits")
        return got

    hi = start
    for attempt in range(grow + 1):
        first = ask([hi])[0]
        if first.ok:
            hi = min(hi, first.bound) if first.bound is not None else hi
            break
        if attempt == grow:
            raise SearchError(f"no pass even at {hi} bytes (the unlimited peak was {start})")
        hi = max(1, hi * 2)
    lo = -1  # 0 itself may pass
    while hi - lo > 1:
        pts = _points(lo, hi, ways)
        got = ask(pts)
        for p, o in zip(pts, got, strict=True):
            if o.ok and p < hi:
                hi = min(p, o.bound) if o.bound is not None else p
        for p, o in zip(pts, got, strict=True):
            if not o.ok and p < hi:
                lo = max(lo, p, o.bound - 1 if o.bound is not None else p)
        lo = min(lo, hi - 1)  # a bound past a pass (a probe that is not deterministic) is not trusted
    limits = [hi] if hi == 0 else [hi, hi - 1]
    got = ask(limits)
    if not got[0].ok:
        raise SearchError(f"the minimum {hi} did not pass again when confirmed")
    if len(got) > 1 and got[1].ok:
        raise SearchError(f"{hi - 1} bytes passed when confirmed, after failing in the search")
    return SearchResult(hi, probes, calls)
