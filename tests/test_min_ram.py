"""The minimum-RAM search: the bisection on its own, the family's probes on a
fake agent, and the real agents' heap cap (exact, identical run to run)."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from tlsbench.families.minram import search
from tlsbench.families.minram.family import measure_min_ram

FAKE = Path(__file__).parent / "fake_minram_agent.py"


def _threshold(need: int, calls: list[list[int]]) -> search.Probe:
    def probe(limits: list[int]) -> list[bool]:
        calls.append(list(limits))
        return [n >= need for n in limits]
    return probe


@pytest.mark.parametrize("ways", [1, 3, 7])
@pytest.mark.parametrize("need,start", [(0, 0), (0, 500), (1, 1), (12345, 20000), (19999, 20000), (20000, 20000)])
def test_search_finds_the_threshold_and_confirms_it(need: int, start: int, ways: int) -> None:
    calls: list[list[int]] = []
    got = search.min_limit(_threshold(need, calls), start, ways)
    assert got.limit == need
    # the last call confirms: the limit passes and the limit minus one fails, asked together
    assert calls[-1] == ([need, need - 1] if need else [0])
    assert got.calls == len(calls) and got.probes == sum(map(len, calls))
    assert all(len(c) <= max(ways, 2) for c in calls)


def test_more_ways_mean_fewer_calls() -> None:
    one: list[list[int]] = []
    seven: list[list[int]] = []
    search.min_limit(_threshold(31337, one), 40000, 1)
    search.min_limit(_threshold(31337, seven), 40000, 7)
    # 1 bracket + 15 halvings of 40001 (or 5 eighths) + 1 confirmation
    assert len(one) == 17 and len(seven) == 7


def test_a_peak_that_fails_grows_until_it_passes() -> None:
    calls: list[list[int]] = []
    assert search.min_limit(_threshold(3000, calls), 1000, 1).limit == 3000
    assert calls[:3] == [[1000], [2000], [4000]]


def test_no_pass_at_all_is_an_error() -> None:
    with pytest.raises(search.SearchError, match="no pass even at 16000 bytes"):
        search.min_limit(lambda limits: [False] * len(limits), 1000, 1)


def test_a_minimum_that_does_not_hold_when_confirmed_is_an_error() -> None:
    answers = iter([[True], [False], [True], [True, True]])  # 2 passes in the search, 1 when confirmed
    with pytest.raises(search.SearchError, match="1 bytes passed when confirmed"):
        search.min_limit(lambda limits: next(answers), 4, 1)


def _agent(tmp_path: Path) -> Path:
    exe = tmp_path / "agent"
    exe.write_text(f"#!{sys.executable}\nexec(open({str(FAKE)!r}).read())\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def test_the_family_searches_each_side_through_agent_probes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_NEED", "client=5000,server=7321")
    m = measure_min_ram(_agent(tmp_path), "fake", {"version": 13}, 0, 30)
    assert m.status == "ok", m.reason
    got = {s.counter: s.total for s in m.samples}
    assert got == {"client_min_heap_bytes": 5000, "server_min_heap_bytes": 7321,
                   "client_heap_peak_bytes": 6000, "server_heap_peak_bytes": 8321,
                   "client_endpoint_heap_bytes": 700, "server_endpoint_heap_bytes": 900,
                   "client_stack_bytes": 600, "server_stack_bytes": 832}  # measured at the limit found


def test_a_probe_that_crashes_the_agent_counts_as_failed_and_is_reported(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_NEED", "client=5000,server=7321")
    monkeypatch.setenv("FAKE_CRASH", "2999")  # the client's first bisection point: between -1 and 6000
    m = measure_min_ram(_agent(tmp_path), "fake", {"version": 13}, 0, 30)
    assert m.status == "ok"
    assert {s.counter: s.total for s in m.samples}["client_min_heap_bytes"] == 5000
    assert m.reason.startswith("1 probes crashed the agent: client at 2999 B")
