"""The machine's steadiness line and the speed change between two runs'
references (engine/steadiness.py), on constructed reference times."""

from __future__ import annotations

from tlsbench.engine import steadiness


def test_a_steady_machine_gets_its_band_and_sample_count() -> None:
    refs = [1000 + i * 20 // 99 for i in range(100)]  # 1000..1020 ns
    assert steadiness.line(refs) == "machine steady: reference within ±1% (p5-p95) over 100 samples"


def test_an_unsteady_machine_gets_how_far_and_how_often_it_slowed() -> None:
    refs = [1000] * 80 + [2000] * 20  # a 2x phase in a fifth of the references
    assert steadiness.line(refs) == ("machine unsteady: speed moved 0.50-1.00x, p5-p95 ±100%,"
                                     " 20% of references below 0.9 over 100 samples")


def test_no_reference_is_said_not_zero() -> None:
    assert steadiness.line([]).startswith("machine steadiness: not measured")


def test_references_take_both_sides_of_every_round_and_skip_missing_ones() -> None:
    rounds = [{"name": "a", "reference_ns": 10, "reference_after_ns": 12},
              {"name": "a", "reference_ns": 11, "reference_after_ns": None},
              {"name": "b", "reference_ns": None}]
    assert steadiness.references(rounds) == {"a": [10, 12, 11]}


def test_moved_is_slowest_over_fastest_of_both_runs() -> None:
    assert steadiness.moved([100, 110], [150, 120]) == 1.5
    assert steadiness.moved([], [150]) == 1.0
    # references of two different workloads: each run's own movement, the larger
    assert steadiness.moved([100, 110], [300, 330, 315], "chain", "lanes") == 1.1
    assert steadiness.kind({}, True) == "xorshift64 chain, 10,000,000 steps"  # runs stored before lanes
    assert steadiness.kind({"reference_workload": "x"}, True) == "x" and steadiness.kind({}, False) == ""
