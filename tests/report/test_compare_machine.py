"""compare's verdict when the machine's own speed moved between or within
the runs (the reference workload around each round): constructed runs, exact
verdicts and lines."""

from __future__ import annotations

from tlsbench.report import compare, compare_text

BASE = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3]


def _side(run_id: int, factor: float, refs: list[int]) -> compare.RunSide:
    values = [v * factor for v in BASE]
    return compare.RunSide(run_id, {}, {"wall_ns": "ns/op"}, {"wall_ns": {"case": ("ok", values)}},
                           {"case": refs} if refs else {})


def _row(factor: float, refs_a: list[int], refs_b: list[int]) -> compare.Row:
    (row,) = compare.compare_runs(_side(1, 1.0, refs_a), _side(2, factor, refs_b), "wall_ns").rows
    return row


def test_a_steady_machine_keeps_the_minimum_effect() -> None:
    assert _row(1.3, [1000, 1000], [1000, 1010]).verdict == "slower"
    assert _row(1.3, [], []).verdict == "slower"  # no references (firmware, older runs): as before


def test_a_difference_the_machine_can_explain_is_inconclusive_and_says_so() -> None:
    row = _row(1.3, [1000, 1000], [1400, 1000])  # the machine was 1.4x slower in one of B's references
    assert row.verdict == "inconclusive"
    assert row.note == ("inconclusive: the machine's speed changed by 40% around this case (reference workload):"
                        " a difference that size can be the machine")
    assert _row(1 / 1.3, [1400, 1000], [1000, 1000]).verdict == "inconclusive"  # faster alike


def test_a_change_beyond_the_machines_own_is_still_called() -> None:
    assert _row(2.0, [1000, 1000], [1400, 1000]).verdict == "slower"
    assert _row(0.5, [1400, 1000], [1000, 1000]).verdict == "faster"
    # the bound: 1.05 x 1.4 = 1.47
    assert _row(1.45, [1000], [1400]).verdict == "inconclusive"
    assert _row(1.50, [1000], [1400]).verdict == "slower"


def test_the_comparison_says_how_much_the_machine_can_explain() -> None:
    c = compare.compare_runs(_side(1, 1.0, [1000, 1000]), _side(2, 1.0, [1000, 1500]), "wall_ns")
    assert c.machine == [
        "A: machine steady: reference within ±0% (p5-p95) over 2 samples",
        "B: machine unsteady: speed moved 0.67-1.00x, p5-p95 ±22%, 50% of references below 0.9 over 2 samples",
        "the reference workload took 1.25x as long in B as in A (medians); around a case's rounds the machine's"
        " speed moved by up to 1.50x (median case 1.50x): a B/A that size can be the machine, so a change is"
        " called only beyond the minimum effect widened by the case's own figure"]
    assert "the machine's speed (reference workload around each round):" in compare_text.render(c)
    assert compare.compare_runs(_side(1, 1.0, []), _side(2, 1.0, []), "wall_ns").machine == []


def test_references_of_different_workloads_are_not_compared_across_the_runs() -> None:
    """A run that timed the single chain against one that timed eight lanes: the 2x between their
    references is the workloads, not the machine; each run's own movement widens the threshold."""
    a, b = _side(1, 1.0, [1000, 1000]), _side(2, 1.3, [2000, 2100])
    a.reference_kind, b.reference_kind = "xorshift64 chain, 10,000,000 steps", "xorshift64 x8 lanes, 4,000,000 steps"
    c = compare.compare_runs(a, b, "wall_ns")
    assert c.rows[0].verdict == "slower"  # 1.3 lies beyond 1.05 x 1.05 (B's own movement), not beyond 1.05 x 2.1
    assert c.machine[2] == (
        "the runs timed different reference workloads (A: xorshift64 chain, 10,000,000 steps; B: xorshift64 x8"
        " lanes, 4,000,000 steps): how the machine's speed differed between them is not known; around a case's"
        " rounds each run's own speed moved by up to 1.05x (median case 1.05x), and a change is called only beyond"
        " the minimum effect widened by the case's own figure")
    b.reference_kind = a.reference_kind  # the same workload: the 2.1x between them widens the threshold
    assert compare.compare_runs(a, b, "wall_ns").rows[0].verdict == "inconclusive"


def test_one_version_keeps_each_cases_references() -> None:
    side = compare.RunSide(1, {}, {}, {"wall_ns": {"openssl@3.0/hash/x": ("ok", BASE)}},
                           {"openssl@3.0/hash/x": [5, 6]})
    assert compare.one_version(side, "openssl@3.0").references == {"openssl/hash/x": [5, 6]}


def _history_run(run_id: int, factor: float, refs: list[int]):
    from tlsbench.report import history

    values = {"wall_ns": {"case": ("ok", [v * factor for v in BASE])}}
    return history._Run(run_id, float(run_id), "host", {}, ["case"], values, {"case": refs} if refs else {})


def test_history_calls_a_change_only_beyond_the_machines_own_speed_change() -> None:
    from tlsbench.report import history

    def verdict(refs_b: list[int], factor: float) -> str:
        h = history.assemble([_history_run(1, 1.0, [1000, 1000]), _history_run(2, factor, refs_b)], ["case"],
                             "wall_ns", [])
        return h.cases[0].points()[-1].verdict

    assert verdict([1000, 1010], 1.3) == "slower"
    assert verdict([1400, 1000], 1.3) == "inconclusive"  # the machine was 1.4x slower around B's case
    assert verdict([1400, 1000], 2.0) == "slower"
