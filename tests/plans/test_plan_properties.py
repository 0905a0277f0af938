"""Property test of the plan loader: every preset, mutated byte by byte,
loads as a plan or is refused with a PlanError (one line naming the file),
never a traceback. TLSBENCH_FUZZ_EXAMPLES raises the budget for a long run."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from mutations import fuzz_budget, loaded_or_refused_in_one_line, mutated

from tlsbench.plans.plan import load_plan, presets

EXAMPLES = int(os.environ.get("TLSBENCH_FUZZ_EXAMPLES", "300"))
PRESETS = [p.read_bytes() for p in presets().values()]
INTERESTING = [b"\xff", b"\x00", b"[", b"]", b"{", b"=", b'"', b"\n", b"nan", b"inf", b"-1", b"1e18", b"[[a]]",
               b"1979-05-27", b"true", b"[" * 2000, b"LD_PRELOAD", b"\xc3\xa9", b"999999999999999999999"]


@fuzz_budget(EXAMPLES)
@given(mutated(PRESETS, INTERESTING))
def test_mutated_presets_load_or_are_refused_in_one_line(tmp_path: Path, data: bytes) -> None:
    loaded_or_refused_in_one_line(tmp_path / "p.toml", data, load_plan)
