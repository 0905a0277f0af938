"""The run's environment ([method] env, --env) reaches the agents and is
stored with the run; --quiet prints nothing but errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from plan_text import one_size_plan

from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.plans import runenv
from tlsbench.plans.plan import parse_plan

HASH_PLAN = one_size_plan("env-test", ["openssl"], "hash", ["sha256"], warmup=0, repeats=3, outliers="none",
                          min_sample_ms=1, timeout_s=10)


def test_plan_env_parses_and_bad_env_is_a_clear_error() -> None:
    plan = parse_plan(HASH_PLAN + 'env = { OPENSSL_ia32cap = "~0x200000200000000" }\n', "p.toml")
    assert plan.method.env == {"OPENSSL_ia32cap": "~0x200000200000000"}
    with pytest.raises(PlanError, match=r"p.toml:\d+: \[method\] env: .*value must be a string"):
        parse_plan(HASH_PLAN + "env = { X = 1 }\n", "p.toml")
    with pytest.raises(PlanError, match="not a valid environment variable name"):
        parse_plan(HASH_PLAN + 'env = { "A-B" = "1" }\n', "p.toml")
    with pytest.raises(PlanError, match="NAME=VALUE"):
        runenv.parse_assignments(["OPENSSL_ia32cap"])
    assert runenv.parse_assignments(["A=1=2", "B="]) == {"A": "1=2", "B": ""}


def test_applied_sets_and_restores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_KEPT", "before")
    monkeypatch.delenv("TB_NEW", raising=False)
    with runenv.applied({"TB_KEPT": "during", "TB_NEW": "x"}):
        assert os.environ["TB_KEPT"] == "during" and os.environ["TB_NEW"] == "x"
    assert os.environ["TB_KEPT"] == "before" and "TB_NEW" not in os.environ


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tlsbench", "--db", str(db), *args], capture_output=True,
                          text=True, timeout=120)


def test_env_reaches_the_agent_and_is_stored(fake_agent_dir: Path, db_path: Path, tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(HASH_PLAN)
    ok = _cli(db_path, "run", "--plan", str(plan_file), "--no-progress")
    assert ok.returncode == 0, ok.stderr
    # the fake agent refuses to start under FAKE_MODE=hello-fails: the variable reached it
    bad = _cli(db_path, "run", "--plan", str(plan_file), "--no-progress", "--env", "FAKE_MODE=hello-fails")
    assert bad.returncode == 1 and "nothing measured" in bad.stderr, bad.stderr  # no agent: nothing measured
    assert "hello refused by FAKE_MODE" in bad.stderr
    store = Store(db_path)
    first, second = (r["id"] for r in store.list_runs())
    assert store.get_run(first).plan["method"]["env"] == {}
    assert store.get_run(second).plan["method"]["env"] == {"FAKE_MODE": "hello-fails"}
    assert "--env FAKE_MODE=hello-fails" in store.get_run(second).plan_source
    assert [c["status"] for c in store.cases(first)] == ["ok"]
    assert [c["status"] for c in store.cases(second)] == ["failed"]
    assert "FAKE_MODE" not in os.environ  # restored in this process too (the CLI ran in its own)
    report = _cli(db_path, "report", str(second))
    assert "environment of the run's processes: FAKE_MODE=hello-fails" in report.stdout


def test_quiet_prints_nothing_but_errors(fake_agent_dir: Path, db_path: Path, tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.toml"
    plan_file.write_text(HASH_PLAN)
    p = _cli(db_path, "run", "--plan", str(plan_file), "--quiet")
    assert p.returncode == 0 and p.stdout == "" and p.stderr == ""
    assert Store(db_path).get_run(1).status == "complete"
    p = _cli(db_path, "run", "--plan", str(plan_file), "--quiet", "--sizes", "0")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.startswith("tlsbench: error:")
