"""Comparing two runs: hand-computed test statistics and every verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import compare
from tlsbench.store import Store


def test_mann_whitney_against_a_hand_computed_value() -> None:
    # U = 0, mean 4.5, variance 3*3*7/12 = 5.25: z = (4.5 - 0.5) / sqrt(5.25) = 1.7457, p = 0.0809
    assert compare.mann_whitney_p([1, 2, 3], [4, 5, 6]) == pytest.approx(0.0809, abs=1e-3)
    assert compare.mann_whitney_p([1, 2], [3, 4]) is None  # too few: no test, never "significant"
    assert compare.mann_whitney_p([5.0] * 5, [5.0] * 5) == 1.0


def _run(store: Store, cases: dict[str, tuple[str, list[int]]], version: str = "1") -> int:
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={"method": {}},
                           machine={"cpu_model": "cpu"}, version=version, keys={})
    for name, (status, totals) in cases.items():
        store.put_case(run, name=name, library="l", kind="hash", alg="a", op="hash", size=None, params={},
                       status=status, reason="", iters=10, started=0, transcript="",
                       samples=[(i, 0, 10, "wall_ns", t) for i, t in enumerate(totals)])
    return run


def test_each_verdict(db_path: Path) -> None:
    store = Store(db_path)
    base = [1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003]
    a = _run(store, {"same": ("ok", base), "slower": ("ok", base), "faster": ("ok", base),
                     "gone": ("ok", base), "broken": ("ok", base), "tiny": ("ok", base)})
    b = _run(store, {"same": ("ok", [t + 1 for t in base]), "slower": ("ok", [2 * t for t in base]),
                     "faster": ("ok", [t // 2 for t in base]), "new": ("ok", base), "broken": ("failed", []),
                     "tiny": ("ok", [t + 20 for t in base])}, version="2")
    c = compare.compare(store, a, b)
    verdicts = {r.name: r.verdict for r in c.rows}
    assert verdicts == {"same": "same", "slower": "slower", "faster": "faster", "gone": "only in A",
                        "new": "only in B", "broken": "not measured", "tiny": "same"}
    # "tiny" is significant (every B sample is larger) but only 2%: below the minimum effect
    tiny = next(r for r in c.rows if r.name == "tiny")
    assert tiny.p_value < 0.01 and tiny.ratio == pytest.approx(1.02, abs=0.001)
    assert next(r for r in c.rows if r.name == "slower").ratio == pytest.approx(2.0)
    assert c.context_differences == ["tlsbench: 1 -> 2"]
    text = compare.render(c, "markdown", only_changes=True)
    assert "| slower | slower |" in text and "| same |" not in text
