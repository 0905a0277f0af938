"""The minimum-RAM search itself, apart from any agent: the smallest heap
limit a probe passes with, found by narrowing an interval whose low end is
known to fail and whose high end is known to pass, then confirmed.

A probe takes limits and says for each whether the handshake completed (and
its session checked out) under it. Several limits per probe let one agent
start answer them all (a firmware boot is the costly part); with one limit
per probe this is plain bisection.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Probe = Callable[[list[int]], list[bool]]


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


def min_limit(probe: Probe, start: int, ways: int = 1, grow: int = 4, confirm: Probe | None = None) -> SearchResult:
    """The smallest limit in [0, start * 2**grow] the probe passes with, as
    bisection sees it: between 0 and ``start`` (the unlimited peak, which
    should pass; doubled up to ``grow`` times when it does not), and then
    confirmed: the limit passes and the limit minus one fails, probed again
    together (with ``confirm`` when given: a probe that also measures)."""
    if start < 0 or ways < 1:
        raise ValueError("start must be >= 0 and ways >= 1")
    calls = probes = 0

    def ask(limits: list[int], how: Probe = probe) -> list[bool]:
        nonlocal calls, probes
        calls += 1
        probes += len(limits)
        got = how(limits)
        if len(got) != len(limits):
            raise SearchError(f"the probe answered {len(got)} of {len(limits)} limits")
        return got

    hi = start
    for attempt in range(grow + 1):
        if ask([hi])[0]:
            break
        if attempt == grow:
            raise SearchError(f"no pass even at {hi} bytes (the unlimited peak was {start})")
        hi = max(1, hi * 2)
    lo = -1  # 0 itself may pass
    while hi - lo > 1:
        pts = _points(lo, hi, ways)
        got = ask(pts)
        passing = [p for p, ok in zip(pts, got, strict=True) if ok]
        if passing:
            hi = passing[0]
        lo = max([p for p, ok in zip(pts, got, strict=True) if not ok and p < hi], default=lo)
    limits = [hi] if hi == 0 else [hi, hi - 1]
    got = ask(limits, confirm or probe)
    if not got[0]:
        raise SearchError(f"the minimum {hi} did not pass again when confirmed")
    if len(got) > 1 and got[1]:
        raise SearchError(f"{hi - 1} bytes passed when confirmed, after failing in the search")
    return SearchResult(hi, probes, calls)
