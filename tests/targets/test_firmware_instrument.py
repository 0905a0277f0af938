"""The Cortex-M firmware's instruments under QEMU, checked against values
known by construction: a loop of known length, allocations and a stack
array of known size (the selftest double), and the same request twice.
The tests build the firmware themselves (selftest only: seconds)."""

from __future__ import annotations

from pathlib import Path

import images
import pytest
from conftest import needs_tools

from tlsbench.engine import agent
from tlsbench.errors import PlanError
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")


def selftest_firmware(board: str) -> Path:
    t = images.ensure_firmware(targets.parse(f"qemu:{board}"), [])
    return targets.write_launcher(t, "selftest")


@pytest.fixture(scope="module")
def m4() -> Path:
    return selftest_firmware("mps2-an386")


def records(launcher: Path, requests: list[str], timeout: float = 60) -> list[agent.Response]:
    return agent.call(launcher, requests, timeout, "firmware test").responses


@pytest.mark.parametrize("board", ["mps2-an385", "mps2-an386", "mps2-an500"])
def test_a_loop_of_known_length_measures_exactly_its_length_plus_a_constant(board: str) -> None:
    """calibrate runs `subs; bne` n times: 2n instructions, plus the call's
    constant overhead, for every n, on M3, M4 and M7."""
    launcher = selftest_firmware(board)
    ns = [1, 10, 1000, 100_000, 10_000_000]
    res = records(launcher, [f"calibrate n={n}" for n in ns])
    cal = [r.of_type("calibrate")[0] for r in res]
    overheads = {int(c["measured"]) - 2 * int(c["n"]) for c in cal}
    assert len(overheads) == 1, [(c["n"], c["measured"]) for c in cal]
    assert 0 <= overheads.pop() <= 8  # mov, bl, return: a handful, not a drift
    assert all(int(c["empty"]) == 0 for c in cal)  # two readings back to back: nothing between them


def test_the_same_request_twice_gives_identical_counts(m4: Path) -> None:
    req = "bench kind=hash alg=sha224 op=hash size=64 repeats=3 warmup=1"
    first, second = records(m4, [req]), records(m4, [req])
    def counts(resp: list[agent.Response]) -> list[int]:
        return [int(s["instructions"]) for s in resp[0].of_type("sample") + resp[0].of_type("warmup")]
    assert counts(first) == counts(second)
    assert len(set(counts(first))) == 1  # every sample of a deterministic operation equal
    assert first[0].of_type("memory")[0].fields == second[0].of_type("memory")[0].fields


def test_heap_and_stack_of_known_size(m4: Path) -> None:
    """md5 allocates 100000 bytes; sha224 uses a 30000-byte stack array."""
    md5, sha224 = records(m4, ["bench kind=hash alg=md5 op=hash size=64 repeats=1 warmup=0",
                                "bench kind=hash alg=sha224 op=hash size=64 repeats=1 warmup=0"])
    heap = md5.of_type("memory")[0]
    assert 100_000 <= int(heap["heap_peak"]) <= 100_000 + 16  # newlib rounds a block up to 8 bytes
    assert int(heap["heap_held"]) == 0 and int(heap["allocs"]) == 1
    stack = int(sha224.of_type("memory")[0]["stack"])
    assert 30_000 <= stack <= 30_000 + 256


def test_a_firmware_that_never_answers_is_killed_and_what_it_sent_is_kept(m4: Path) -> None:
    reqs = ["calibrate n=5", "bench kind=hash alg=sha224 op=hash size=64 repeats=4000000000 warmup=0"]
    with pytest.raises(agent.AgentCallError) as e:
        agent.call(m4, reqs, 5, "hang test")
    assert "hung and was killed after 5 s" in str(e.value)
    assert len(e.value.partial.responses) == 1  # the calibration that finished


def test_hello_names_the_board_and_why_the_clocks_are_missing(m4: Path) -> None:
    hello = records(m4, ["hello"])[0]
    h = hello.of_type("hello")[0]
    assert h["platform"] == "qemu:mps2-an386" and h["counters"] == "instructions"
    missing = {r["counter"]: r["reason"] for r in hello.of_type("counter_missing")}
    assert "cycles" in missing and "instructions" in str(missing["cycles"])


def test_unknown_boards_and_targets_are_clear_errors() -> None:
    with pytest.raises(PlanError, match="did you mean qemu:mps2-an386"):
        targets.parse("qemu:mps2-an368")
    with pytest.raises(PlanError, match="unknown target 'hots'.*did you mean host"):
        targets.parse("hots")
    with pytest.raises(PlanError, match="needs --board"):
        targets.parse("serial:/dev/ttyACM0")
