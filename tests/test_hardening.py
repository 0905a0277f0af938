"""Faults and inputs that must end in one clear line with nothing stored
lost or changed: SIGTERM/SIGHUP during a run, a bad certs --out, loader
variables in --env, raw HTML in a plan name."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from conftest import tlsbench_cmd

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.plans import runenv
from tlsbench.plans.plan import Method, Plan
from tlsbench.report import tables

# the fake agent crashes on sha1 (a failed case, stored), then hangs on sha224: the signal lands mid-run
HANGING_PLAN = """name = "stop"
[select]
libraries = ["openssl"]
kinds = ["hash"]
algorithms = ["sha1", "sha224"]
sizes = [64]
[method]
warmup = 0
repeats = 3
rounds = 1
outliers = "none"
min_sample_ms = 1
timeout_s = 600
"""


def _cli(db: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*tlsbench_cmd(), "--db", str(db), *args], capture_output=True, text=True,
                          timeout=timeout)


def _default_signals() -> None:
    # a background launch inherits some signals ignored (SIGINT; SIGHUP under nohup): the run gets the defaults
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def _stored(db: Path) -> list[tuple]:
    with sqlite3.connect(db, timeout=10) as c:
        return c.execute("SELECT r.status, c.name, c.status, c.rounds_done FROM cases c JOIN runs r"
                         " ON r.id = c.run_id ORDER BY c.id").fetchall()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_end_a_run_as_ctrl_c_does(fake_agent_dir: Path, tmp_path: Path, signum: int) -> None:
    db, plan = tmp_path / "r.sqlite", tmp_path / "stop.toml"
    plan.write_text(HANGING_PLAN)
    proc = subprocess.Popen([*tlsbench_cmd(), "--db", str(db), "run", "--plan", str(plan), "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_signals)
    deadline = time.monotonic() + 60
    before: list[tuple] = []
    while time.monotonic() < deadline and not before and proc.poll() is None:
        time.sleep(0.1)
        try:
            before = _stored(db)
        except sqlite3.OperationalError:  # not created yet
            pass
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    name = signal.Signals(signum).name
    assert proc.returncode == 128 + signum, err
    assert err.splitlines()[-1] == (f"tlsbench: stopped by {name}: run 1 keeps what it measured; finish it with:"
                                    f" tlsbench run --db {db} --resume 1")
    assert [row[:3] for row in before] == [("running", "openssl/hash/sha1/hash/64", "failed")]
    assert _stored(db) == before


def test_certs_out_an_existing_file_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("kept")
    p = _cli(tmp_path / "r.sqlite", "certs", "--out", str(afile), "--key-types", "ed25519")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"tlsbench: error: --out {afile}: is a file, not a folder; give a folder (it is made if"
                        " missing)\n")
    assert afile.read_text() == "kept"


def test_certs_out_a_folder_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("kept")
    p = _cli(tmp_path / "r.sqlite", "certs", "--out", str(afile / "sub"), "--key-types", "ed25519")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"tlsbench: error: --out {afile}/sub: cannot make the folder (Not a directory); give a"
                        " folder that exists or can be made\n")
    assert afile.read_text() == "kept" and sorted(tmp_path.iterdir()) == [afile]


@pytest.mark.parametrize("name", ["PYTHONPATH", "OPENSSL_CONF", "OPENSSL_MODULES", "GCONV_PATH", "LD_PRELOAD"])
def test_variables_that_change_the_code_need_allow_loader_env(name: str) -> None:
    with pytest.raises(PlanError) as e:
        runenv.parse_assignments([f"{name}=/tmp/x"])
    assert str(e.value) == (f"{name} changes which code runs and is measured: refused unless allowed"
                            " ([method] allow_loader_env = true, or --allow-loader-env)")
    assert runenv.parse_assignments([f"{name}=/tmp/x"], allow_loader=True) == {name: "/tmp/x"}
    # a tunable that keeps the code (the presets use it) needs no permission
    assert runenv.parse_assignments(["OPENSSL_ia32cap=~0x200000200000000"]) == {
        "OPENSSL_ia32cap": "~0x200000200000000"}


def test_loader_env_on_the_command_line_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    p = _cli(db, "run", "--libraries", "openssl", "--algorithms", "sha256", "--env", "PYTHONPATH=/tmp/evil")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == ("tlsbench: error: PYTHONPATH changes which code runs and is measured: refused unless"
                        " allowed ([method] allow_loader_env = true, or --allow-loader-env)\n")


def test_markdown_report_escapes_a_plan_name_with_html(fake_agent_dir: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    plan = Plan(name="<img src=x onerror=alert(1)>_[x](y)", libraries=["openssl"], kinds=["hash"],
                algorithms=["sha256"], sizes=[64],
                method=Method(warmup=0, repeats=3, outliers="none", min_sample_ms=1, timeout_s=10))
    run_id = runner.run(plan, "test", store, show_progress=False)
    text = tables.render(tables.load(store, run_id), "markdown")
    store.close()
    assert text.splitlines()[0] == (f"## tlsbench run {run_id}: plan &lt;img src=x onerror=alert(1)&gt;\\_\\[x\\](y),"
                                    " target host, complete")
    assert "<img" not in text
