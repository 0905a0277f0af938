"""A stored result holds the stats.Summary it came from, and reads and
prints as it did when it repeated the Summary's fields."""

from __future__ import annotations

from tlsbench.engine.case import Result
from tlsbench.engine.stats import OutlierPolicy, summarize


def test_a_result_holds_its_summary_and_reads_through_it() -> None:
    s = summarize([3.0, 1.0, 2.0, 10.0], OutlierPolicy("none"))
    r = Result("wall_ns", "ns/op", s)
    assert r.summary is s
    assert (r.n, r.removed, r.median, r.mean, r.min, r.max) == (4, 0, 2.5, 4.0, 1.0, 10.0)
    assert r.stdev == s.stdev and (r.ci95_low, r.ci95_high) == (s.ci95_low, s.ci95_high)
    assert Result.of("wall_ns", "ns/op", 4, 0, 2.5, 4.0, s.stdev, 1.0, 10.0, s.ci95_low, s.ci95_high) == r


def test_the_json_lines_keep_their_keys_and_order() -> None:
    flat = Result.exact("c2s_bytes", "bytes", 292).flat()
    assert list(flat) == ["metric", "unit", "n", "removed", "median", "mean", "stdev", "min", "max", "ci95_low",
                          "ci95_high"]
    assert flat["median"] == 292 and flat["stdev"] is None and flat["n"] == 1
