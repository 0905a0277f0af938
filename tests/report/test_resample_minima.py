"""scripts/resample-minima's share of figures whose two minima agree, on seeded synthetic processes
with a known answer."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys

from tlsbench import paths

_loader = importlib.machinery.SourceFileLoader("resample_minima", str(paths.root() / "scripts" / "resample-minima"))
_spec = importlib.util.spec_from_loader("resample_minima", _loader)
assert _spec is not None
rm = importlib.util.module_from_spec(_spec)
sys.modules["resample_minima"] = rm  # its dataclass looks its module up
_loader.exec_module(rm)
Alloc = rm.Allocation


def test_identical_and_distant_runs_agree_always_and_never() -> None:
    a = {"x": [[100.0, 100.0, 100.0], [100.0, 100.0, 100.0]]}
    assert rm.share_within(a, {"x": [[103.0] * 3, [103.0] * 3]}, Alloc(2, 3)) == (1.0, 1)
    assert rm.share_within(a, {"x": [[110.0] * 3, [110.0] * 3]}, Alloc(1, 1)) == (0.0, 1)


def test_more_samples_of_a_process_find_its_fast_one() -> None:
    a = {"x": [[100.0, 100.0, 100.0]]}
    b = {"x": [[200.0, 104.0, 200.0]]}
    assert rm.share_within(a, b, Alloc(1, 3)) == (1.0, 1)  # every sample: the 104 is always among them
    assert rm.share_within(a, b, Alloc(1, 1, 3)) == (0.0, 1)  # merged into one batch: their mean, 168


def test_one_process_of_two_drawn_agrees_half_the_time() -> None:
    """B has one fast and one slow process: one drawn agrees with probability 1/2, two always."""
    a = {"x": [[100.0], [100.0]]}
    b = {"x": [[102.0], [150.0]]}
    share, counted = rm.share_within(a, b, Alloc(1, 1), draws=4000, seed=7)
    assert counted == 1 and abs(share - 0.5) < 0.03
    assert rm.share_within(a, b, Alloc(2, 1)) == (1.0, 1)


def test_a_figure_with_too_few_processes_or_samples_is_not_counted() -> None:
    a = {"x": [[100.0]], "y": [[100.0], [100.0]]}
    b = {"x": [[100.0]], "y": [[100.0], [100.0]], "z": [[1.0], [1.0]]}
    assert rm.share_within(a, b, Alloc(2, 1)) == (1.0, 1)  # x has one process a side, z one run
    assert rm.share_within(a, b, Alloc(1, 2)) == (None, 0)
    assert rm.merged([1.0, 2.0, 3.0, 4.0, 5.0], 2) == [1.5, 3.5]
    assert Alloc.parse("3x2x1") == Alloc(3, 2, 1) and Alloc(3, 2, 1).label() == "3x2x1"
