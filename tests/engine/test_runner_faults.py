"""A crashing, hanging or garbling agent fails its case with the reason;
the run goes on and stores everything else."""

from __future__ import annotations

from pathlib import Path

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.errors import RunInterrupted
from tlsbench.plans.plan import Method, Plan
from tlsbench.targets import target as targets


def _plan() -> Plan:
    return Plan(
        name="faults", libraries=["openssl"], kinds=["hash"],
        algorithms=["md5", "sha1", "sha224", "sha256", "sha384", "sha512"], sizes=[64],
        method=Method(warmup=0, repeats=3, outliers="none", min_sample_ms=1, timeout_s=3),
    )


def test_each_failure_is_recorded_and_the_run_continues(fake_agent_dir: Path, db_path: Path) -> None:
    store = Store(db_path)
    run_id = runner.run(_plan(), "test", store, show_progress=False)
    cases = {c["alg"]: c for c in store.cases(run_id)}
    assert store.get_run(run_id).status == "complete"
    assert cases["sha256"]["status"] == "ok"
    assert "crashed (SIGSEGV)" in cases["sha1"]["reason"]
    assert "hung and was killed after 3 s" in cases["sha224"]["reason"]
    assert "crc mismatch" in cases["md5"]["reason"]
    assert "truncated" in cases["sha384"]["reason"]
    assert cases["sha512"]["reason"] == "error: library said no"
    for alg in ("sha1", "sha224", "md5", "sha384", "sha512"):
        assert cases[alg]["status"] == "failed", alg
        assert cases[alg]["iters"] is None
    # the failed cases keep their evidence; no results were invented for them
    assert "tb1 calib iters=10 crc=00000000" in cases["md5"]["transcript"]
    results = store.results(run_id)
    assert {r["alg"] for r in results} == {"sha256"}


def test_statistics_come_from_the_samples(fake_agent_dir: Path, db_path: Path) -> None:
    store = Store(db_path)
    run_id = runner.run(_plan(), "test", store, show_progress=False)
    wall = {r["metric"]: r for r in store.results(run_id) if r["alg"] == "sha256"}
    # the fake agent's samples: wall_ns 1000, 1001, 1002 over 10 iterations each
    assert wall["wall_ns"]["median"] == 100.1
    assert wall["wall_ns"]["min"] == 100.0 and wall["wall_ns"]["max"] == 100.2
    assert abs(wall["throughput"]["median"] - 64 / 100.1e-9) < 1e-3
    case_id = next(c["id"] for c in store.cases(run_id) if c["alg"] == "sha256")
    raw = [(s["idx"], s["counter"], s["total"]) for s in store.samples(case_id)]
    assert (2, "wall_ns", 1002) in raw and (0, "cpu_ns", 990) in raw


def test_resume_measures_failed_cases_again(fake_agent_dir: Path, db_path: Path) -> None:
    store = Store(db_path)
    plan = _plan()
    plan.algorithms = ["sha256", "sha512"]
    run_id = runner.run(plan, "test", store, show_progress=False)
    ok_id = next(c["id"] for c in store.cases(run_id) if c["alg"] == "sha256")
    store.db.execute("UPDATE runs SET status='running' WHERE id=?", (run_id,))
    store.db.commit()
    runner.run(Plan(), "", store, resume=run_id, show_progress=False)
    cases = store.cases(run_id)
    assert sorted(c["alg"] for c in cases) == ["sha256", "sha512"]  # nothing doubled
    assert next(c["id"] for c in cases if c["alg"] == "sha256") == ok_id  # kept, not re-measured
    assert store.get_run(run_id).status == "complete"


def test_rounds_share_the_repeats_and_resume_mid_way(fake_agent_dir: Path, db_path: Path,
                                                     monkeypatch) -> None:
    store = Store(db_path)
    plan = _plan()
    plan.method.repeats, plan.method.rounds = 5, 3
    plan.algorithms = ["sha256"]
    plan.sizes = [64, 128]
    real = runner.measure
    calls = []

    def interrupted(info, case, keys, plan, rnd=0, place=None, paced=False, target=targets.HOST):
        calls.append((case.size, rnd))
        if len(calls) == 4:  # round 2 of the second case... the run dies here
            raise KeyboardInterrupt
        return real(info, case, keys, plan, rnd, place, paced, target)

    monkeypatch.setattr(runner, "measure", interrupted)
    try:
        runner.run(plan, "test", store, show_progress=False)
    except RunInterrupted:  # Ctrl-C: stored, and the run says how to resume
        pass
    assert calls == [(64, 0), (128, 0), (64, 1), (128, 1)]  # round-major: rounds spread over the run
    run_id = store.latest_run_id()
    progress = store.case_progress(run_id)
    assert [(s, r) for _, s, r in progress.values()] == [("partial", 2), ("partial", 1)]

    monkeypatch.setattr(runner, "measure", real)
    runner.run(Plan(), "", store, resume=run_id, show_progress=False)
    for case in store.cases(run_id):
        assert case["status"] == "ok" and case["rounds_done"] == 3
        walls = sorted((s["idx"], s["total"]) for s in store.samples(case["id"])
                       if s["counter"] == "wall_ns" and not s["warmup"])
        # 5 repeats split 2 + 2 + 1; the fake agent numbers each round's batches from 0
        assert walls == [(0, 1000), (1, 1001), (2, 1000), (3, 1001), (4, 1000)]
    n = {r["name"]: r["n"] for r in store.results(run_id) if r["metric"] == "wall_ns"}
    assert set(n.values()) == {5}


def test_an_agent_error_outside_the_call_fails_only_its_case(fake_agent_dir: Path, db_path: Path,
                                                             monkeypatch) -> None:
    """Whatever an agent's failure raises (here a protocol error while its
    answer is interpreted), its case fails with the reason and the run ends."""
    from tlsbench.errors import ProtocolError

    real = runner.measure

    def garbled(info, case, keys, plan, rnd=0, place=None, paced=False, target=targets.HOST):
        if case.alg == "sha384":
            raise ProtocolError("record lacks iters")
        return real(info, case, keys, plan, rnd, place, paced, target)

    monkeypatch.setattr(runner, "measure", garbled)
    store = Store(db_path)
    plan = _plan()
    plan.algorithms = ["sha256", "sha384"]
    run_id = runner.run(plan, "test", store, show_progress=False)
    cases = {c["alg"]: c for c in store.cases(run_id)}
    assert store.get_run(run_id).status == "complete"
    assert cases["sha256"]["status"] == "ok"
    assert cases["sha384"]["status"] == "failed" and cases["sha384"]["reason"] == "record lacks iters"


def test_a_run_whose_every_case_failed_exits_non_zero_and_is_marked(fake_agent_dir: Path, db_path: Path) -> None:
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "tlsbench", "--db", str(db_path)]
    r = subprocess.run([*cmd, "run", "--libraries", "openssl", "--kinds", "hash", "--algorithms", "sha512",
                        "--sizes", "64", "--repeats", "2", "--warmup", "0", "--rounds", "1", "--no-progress"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "nothing measured" in r.stderr.splitlines()[-1]
    assert Store(db_path).get_run(1).status == "nothing measured"
    runs = subprocess.run([*cmd, "runs"], capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert runs[0].split()[:6] == ["run", "created", "status", "target", "board", "plan"]
    assert "nothing measured  host" in runs[1]
