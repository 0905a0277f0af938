"""Property test of the plan loader: every preset, mutated byte by byte,
loads as a plan or is refused with a PlanError (one line naming the file),
never a traceback. TLSBENCH_FUZZ_EXAMPLES raises the budget for a long run."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tlsbench.errors import PlanError
from tlsbench.plans.plan import load_plan, presets

EXAMPLES = int(os.environ.get("TLSBENCH_FUZZ_EXAMPLES", "300"))
PRESETS = [p.read_bytes() for p in presets().values()]
INTERESTING = [b"\xff", b"\x00", b"[", b"]", b"{", b"=", b'"', b"\n", b"nan", b"inf", b"-1", b"1e18", b"[[a]]",
               b"1979-05-27", b"true", b"[" * 2000, b"LD_PRELOAD", b"\xc3\xa9", b"999999999999999999999"]


@st.composite
def mutated_presets(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(PRESETS)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        cut = draw(st.integers(0, 8))
        insert = draw(st.one_of(st.sampled_from(INTERESTING), st.binary(max_size=6)))
        data[at:at + cut] = insert
    return bytes(data)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(mutated_presets())
def test_mutated_presets_load_or_are_refused_in_one_line(tmp_path: Path, data: bytes) -> None:
    f = tmp_path / "p.toml"
    f.write_bytes(data)
    try:
        load_plan(f)
    except PlanError as e:
        assert str(e).startswith(str(f)) and "\n" not in str(e)
