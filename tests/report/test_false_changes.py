"""scripts/false-changes: compare's verdict on simulated pairs of unchanged code, on synthetic processes
with a known answer."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import random
import sys

from tlsbench import paths

_loader = importlib.machinery.SourceFileLoader("false_changes", str(paths.root() / "scripts" / "false-changes"))
_spec = importlib.util.spec_from_loader("false_changes", _loader)
assert _spec is not None
fc = importlib.util.module_from_spec(_spec)
sys.modules["false_changes"] = fc
_loader.exec_module(fc)


def test_steady_processes_give_no_false_call() -> None:
    figures = {"c client_cpu_ns": {r: [100.0 + r % 2, 101.0, 100.5] for r in range(8)}}
    per_pair, called = fc.simulate(figures, {}, 3, 2, 200, random.Random(1))
    assert per_pair == [0] * 200 and not called


def test_a_slow_mode_per_process_is_called_when_both_sides_draw_one_mode() -> None:
    """Two fast and two slow processes (1.5x): 2 drawn a side put both fast ones on one side in 1 of 3
    pairs, and 6 samples a side then reach p < 0.01; 1 process a side (3 samples) never can."""
    figures = {"c server_cpu_ns": {0: [100.0, 100.2, 100.4], 1: [100.1, 100.3, 100.5],
                                   2: [150.0, 150.2, 150.4], 3: [150.1, 150.3, 150.5]}}
    per_pair, called = fc.simulate(figures, {}, 2, 3, 1500, random.Random(7))
    assert abs(sum(per_pair) / 1500 - 1 / 3) < 0.04 and called["c server_cpu_ns"] == sum(per_pair)
    assert fc.simulate(figures, {}, 1, 3, 300, random.Random(7))[0] == [0] * 300


def test_the_machine_moving_around_the_drawn_rounds_widens_the_bound() -> None:
    """The same 1.5x split, with the references around the slow processes 1.6x slower: the machine
    explains it, so no pair calls a change."""
    figures = {"c server_cpu_ns": {0: [100.0, 100.2, 100.4], 1: [100.1, 100.3, 100.5],
                                   2: [150.0, 150.2, 150.4], 3: [150.1, 150.3, 150.5]}}
    refs = {"c": {0: [1000, 1000], 1: [1000, 1000], 2: [1600, 1600], 3: [1600, 1600]}}
    assert sum(fc.simulate(figures, refs, 2, 3, 300, random.Random(7))[0]) == 0
