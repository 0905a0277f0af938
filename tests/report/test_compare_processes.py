"""compare's verdict when a case's own agent processes (its rounds) lie apart within each run: a
difference between two runs that size can be the process, not the code. Constructed runs, stored and
in memory, with exact verdicts and notes."""

from __future__ import annotations

from pathlib import Path

from tlsbench.engine import stats
from tlsbench.engine.case import Sample
from tlsbench.engine.store import Store
from tlsbench.report import compare

# three processes of two samples each, their levels 10% apart (the slowest round's median over the fastest's)
ROUNDS = [[100.0, 101.0], [110.0, 111.0], [105.0, 106.0]]
SPREAD = 110.5 / 100.5


def _side(run_id: int, factor: float, rounds: bool, refs: list[int] | None = None) -> compare.RunSide:
    per_round = [[v * factor for v in r] for r in ROUNDS]
    values = [v for r in per_round for v in r]
    return compare.RunSide(run_id, {}, {"client_cpu_ns": "ns/op"}, {"client_cpu_ns": {"case": ("ok", values)}},
                           {"case": refs} if refs else {},
                           rounds={"client_cpu_ns": {"case": per_round}} if rounds else {})


def _row(factor: float, rounds: bool = True, refs_b: list[int] | None = None) -> compare.Row:
    a = _side(1, 1.0, rounds, [1000, 1000] if refs_b else None)
    (row,) = compare.compare_runs(a, _side(2, factor, rounds, refs_b), "client_cpu_ns").rows
    return row


def test_the_spread_of_a_runs_processes() -> None:
    assert stats.process_spread(ROUNDS) == SPREAD
    assert stats.process_spread(ROUNDS, [[50.0], [100.0]]) == 2.0  # the larger of the runs'
    assert stats.process_spread([[100.0, 120.0]], []) == 1.0  # one round: no spread known


def test_a_shift_within_the_processes_own_spread_is_inconclusive_and_says_so() -> None:
    # every sample of B 13% below A's: called "faster" when the samples are taken as replicates
    assert _row(0.87, rounds=False).verdict == "faster"
    row = _row(0.87)
    assert row.verdict == "inconclusive" and row.p_value is not None and row.p_value < 0.01
    assert row.note == ("inconclusive: its agent processes lie up to 10% apart within a run: a difference that"
                        " size can be the process")


def test_a_change_beyond_the_processes_spread_is_still_called() -> None:
    # the bound: (1 - 5%) / 1.0995 = 0.864, (1 + 5%) x 1.0995 = 1.154
    assert _row(0.80).verdict == "faster"
    assert _row(1.25).verdict == "slower"
    assert _row(1.14).verdict == "inconclusive"


def test_the_machine_and_the_processes_widen_together() -> None:
    # B's machine moved 1.1x: the bound is 1.05 x 1.1 x 1.0995 = 1.27
    row = _row(1.25, refs_b=[1000, 1100])
    assert row.verdict == "inconclusive"
    assert row.note == ("inconclusive: the machine's speed changed by 10% around this case (reference workload)"
                        " and its agent processes lie up to 10% apart within a run: a difference that size can be"
                        " either")
    assert _row(1.40, refs_b=[1000, 1100]).verdict == "slower"


def _stored(store: Store, factor: float, version: str) -> int:
    # 6 repeats in 3 rounds: batches 0-1 are round 1, 2-3 round 2, 4-5 round 3 (case.split_repeats)
    run = store.create_run(target="host", plan_name="p", plan_source="",
                           plan={"method": {"repeats": 6, "rounds": 3}}, machine={"cpu_model": "cpu"},
                           version=version, keys={})
    totals = [round(v * factor * 10) for r in ROUNDS for v in r]
    store.put_case(run, name="case", library="l", kind="hash", alg="a", op="hash", size=None, params={},
                   status="ok", reason="", iters=10, started=0, transcript="",
                   samples=[Sample(i, False, 10, "wall_ns", t) for i, t in enumerate(totals)])
    return run


def test_a_stored_run_is_read_round_by_round_from_the_batch_index(db_path: Path) -> None:
    store = Store(db_path)
    a, b = _stored(store, 1.0, "1"), _stored(store, 0.87, "2")
    assert compare.read(store, a, "wall_ns").rounds == {"wall_ns": {"case": ROUNDS}}
    (row,) = compare.compare(store, a, b, "wall_ns").rows
    assert row.verdict == "inconclusive" and "agent processes lie up to 10% apart" in row.note


def test_a_sized_case_has_the_next_smaller_and_larger_size_of_its_operation_as_neighbours() -> None:
    names = ["l/hash/h/hash/64", "l/hash/h/hash/16", "l/hash/h/hash/32", "l/hash/g/hash/32", "l/tls/s/x25519/full"]
    assert compare.size_neighbours(names) == {
        "l/hash/h/hash/16": ["l/hash/h/hash/32"],
        "l/hash/h/hash/32": ["l/hash/h/hash/16", "l/hash/h/hash/64"],
        "l/hash/h/hash/64": ["l/hash/h/hash/32"],
        "l/hash/g/hash/32": [],
    }


def _sized(run_id: int, middle: float) -> compare.RunSide:
    """Three sizes of one operation: the neighbours' processes draw a fast (100) or a slow (112) mode, the
    middle case's three processes all at ``middle``."""
    modes = {"op/16": [[100.0, 101.0], [112.0, 113.0], [100.0, 100.5]],
             "op/64": [[112.0, 112.5], [100.0, 101.0], [112.0, 113.0]],
             "op/32": [[middle, middle + 1], [middle + 0.5, middle + 1], [middle, middle + 0.5]]}
    return compare.RunSide(run_id, {}, {"wall_ns": "ns/op"},
                           {"wall_ns": {n: ("ok", [v for r in rs for v in r]) for n, rs in modes.items()}}, {},
                           rounds={"wall_ns": modes})


def test_a_run_whose_processes_all_drew_one_mode_is_not_called_a_change_when_its_neighbours_show_both() -> None:
    rows = {r.name: r for r in compare.compare_runs(_sized(1, 112.0), _sized(2, 100.0), "wall_ns").rows}
    assert rows["op/32"].verdict == "inconclusive"
    assert rows["op/32"].note == ("inconclusive: the agent processes of the same operation at the next sizes lie"
                                  " up to 12% apart within a run: a difference that size can be the process")
    # the same shift without neighbours showing modes: called, as before
    alone = compare.compare_runs(*(compare.RunSide(s.run_id, {}, s.units, {"wall_ns": {"op/32": s.values["wall_ns"]
                                                                                        ["op/32"]}}, {},
                                                   rounds={"wall_ns": {"op/32": s.rounds["wall_ns"]["op/32"]}})
                                   for s in (_sized(1, 112.0), _sized(2, 100.0))), "wall_ns").rows
    assert [r.verdict for r in alone] == ["faster"]
    # a change beyond the neighbours' spread is still called: bound (1 - 5%) / 1.125 = 0.84
    assert {r.name: r for r in compare.compare_runs(_sized(1, 112.0), _sized(2, 85.0), "wall_ns")
            .rows}["op/32"].verdict == "faster"
