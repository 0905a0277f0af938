"""Out of memory on a board is a case that does not fit, told by the agent's
end record (status no_room, protocol version 2) or a stack overflow's fault
record (no_room=1), never by searching its message. On the host, where
memory is not the budget, the same failure stays a failure. No agent runs:
the stored rounds are the runner's own (engine.runner._Session)."""

from __future__ import annotations

import zlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from tlsbench.engine import runner
from tlsbench.engine.case import Case, Measured
from tlsbench.engine.store import Store
from tlsbench.plans.plan import Plan


def line(body: str) -> str:
    return f"{body} crc={zlib.crc32(body.encode()):08x}"


NO_ROOM_END = line("tb1 end status=no_room msg=heap%20arena%20full:%208%20B%20more%20asked")
NO_ROOM_FAULT = line("tb1 fault what=stack%20overflow exception=3 pc=0 lr=0 no_room=1")
PROSE_ONLY = line("tb1 end status=error msg=out%20of%20memory")


def _stored_status(tmp_path: Path, memory_bound: bool, transcript: str) -> tuple[str, str]:
    store = Store(tmp_path / "r.sqlite")
    run_id = store.create_run(target="qemu:fake", plan_name="p", plan_source="", plan={}, machine={}, version="",
                              keys={})
    target = SimpleNamespace(name="qemu:fake", memory_bound=memory_bound, paced=False, models_cycles=False)
    session = runner._Session(store, run_id, Plan(), {}, target, None)  # type: ignore[arg-type]
    case = Case("mbedtls", "hash", "sha256", "hash", 64)
    session.store_round(case, 0, None, Measured.not_run("failed", "error: the agent's words", transcript), 0.0)
    row = store.cases(run_id)[0]
    return row["status"], row["reason"]


@pytest.mark.parametrize("transcript", [NO_ROOM_END, "--- stderr ---\n" + NO_ROOM_FAULT])
def test_a_board_out_of_memory_does_not_fit(tmp_path: Path, transcript: str) -> None:
    assert _stored_status(tmp_path, True, transcript) == ("does_not_fit", "error: the agent's words")


@pytest.mark.parametrize("memory_bound, transcript", [(False, NO_ROOM_END), (True, PROSE_ONLY)])
def test_otherwise_a_failure_stays_one(tmp_path: Path, memory_bound: bool, transcript: str) -> None:
    assert _stored_status(tmp_path, memory_bound, transcript)[0] == "failed"
