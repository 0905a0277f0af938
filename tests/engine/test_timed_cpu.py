"""A timed host run on one CPU (engine/timed_cpu.py): every agent it starts
runs there, the CPU is stored with the run, a throughput measurement gets
the whole set back, and a bad setting is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tlsbench.cli import parser
from tlsbench.cli.run import plan_from_args
from tlsbench.engine import runner, timed_cpu
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.plans.model import Method
from tlsbench.plans.plan import Plan, parse_plan
from tlsbench.report import context, rundata

ALL = set(os.sched_getaffinity(0))


def _child_cpus() -> set[int]:
    out = subprocess.run([sys.executable, "-c", "import os; print(*sorted(os.sched_getaffinity(0)))"],
                         capture_output=True, text=True, check=True).stdout
    return {int(c) for c in out.split()}


def test_a_confined_block_and_what_it_starts_run_on_one_cpu_until_it_ends() -> None:
    cpu = timed_cpu.choose("auto", timed=True)
    assert cpu == max(ALL)  # the last one it may use
    assert timed_cpu.choose("auto", timed=False) is None and timed_cpu.choose("none", timed=True) is None
    with timed_cpu.confined(cpu):
        assert os.sched_getaffinity(0) == {cpu} and _child_cpus() == {cpu}
        with timed_cpu.unconfined():  # several processes measuring the machine's throughput
            assert _child_cpus() == ALL
        assert _child_cpus() == {cpu}
    assert os.sched_getaffinity(0) == ALL and _child_cpus() == ALL
    with timed_cpu.unconfined():  # a run not confined: nothing to give back
        assert _child_cpus() == ALL


def test_a_cpu_the_run_may_not_use_and_a_bad_value_are_refused_in_one_line() -> None:
    outside = max(ALL) + 1
    with pytest.raises(PlanError, match=rf"^\[method\] cpu = {outside}: this run may use CPUs "):
        timed_cpu.choose(str(outside), timed=True)
    with pytest.raises(PlanError, match=r'^p.toml:2: \[method\] cpu: must be "auto" \(a timed host run on one CPU'):
        parse_plan('[method]\ncpu = "sometimes"\n', "p.toml")
    with pytest.raises(PlanError, match=r"p.toml:2: \[method\] cpu: must be .* got -1"):
        parse_plan("[method]\ncpu = -1\n", "p.toml")
    assert parse_plan("[method]\ncpu = 1\n", "p.toml").method.cpu == "1"
    assert parse_plan("[method]\ncpu = \"none\"\n", "p.toml").method.cpu == "none"
    assert Plan().method.cpu == "auto"
    assert plan_from_args(parser().parse_args(["run", "--preset", "quick", "--cpu", "0"]))[0].method.cpu == "0"
    with pytest.raises(PlanError, match=r"^--cpu must be "):
        plan_from_args(parser().parse_args(["run", "--preset", "quick", "--cpu", "first"]))


@pytest.mark.parametrize("setting", ["auto", "none"])
def test_every_agent_of_a_timed_run_runs_on_its_cpu(fake_agent_dir: Path, db_path: Path, monkeypatch,
                                                   setting: str) -> None:
    log = fake_agent_dir / "affinity.log"
    monkeypatch.setenv("FAKE_AFFINITY_LOG", str(log))
    plan = Plan(name="cpu", libraries=["openssl"], kinds=["hash"], algorithms=["sha256"], sizes=[64],
                method=Method(warmup=0, repeats=2, rounds=2, outliers="none", min_sample_ms=1, timeout_s=10,
                              cpu=setting))
    store = Store(db_path)
    run_id = runner.run(plan, "test", store, show_progress=False)
    started = [set(map(int, line.split())) for line in log.read_text().splitlines()]
    assert len(started) >= 3  # the probe, a round's agent each, the references
    want = {max(ALL)} if setting == "auto" else ALL
    assert all(cpus == want for cpus in started), started
    machine = store.get_run(run_id).machine
    assert machine.get("timed_cpu") == (max(ALL) if setting == "auto" else None)
    assert os.sched_getaffinity(0) == ALL  # the run gave the CPUs back
    machine_line = context.context_lines(rundata.load(store, run_id), md=False)[1]
    assert (f" cores; timed on CPU {max(ALL)}; " in machine_line) is (setting == "auto"), machine_line
