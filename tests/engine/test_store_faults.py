"""What goes wrong with the results database is one line naming the file
and what to do, and a run keeps what it measured: a locked, damaged, full
or missing database, two processes on one run, a resume after the agent
was rebuilt."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import tlsbench_cmd

from tlsbench.engine import runner
from tlsbench.engine import store as store_mod
from tlsbench.engine.store import Store
from tlsbench.engine.store_faults import explain
from tlsbench.errors import StoreError, TlsbenchError
from tlsbench.plans.plan import Method, Plan


def _plan(*algs: str) -> Plan:
    return Plan(name="faults", libraries=["openssl"], kinds=["hash"], algorithms=list(algs or ["sha256"]),
                sizes=[64], method=Method(warmup=0, repeats=3, outliers="none", min_sample_ms=1, timeout_s=10))


def _cli(db: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*tlsbench_cmd(), "--db", str(db), *args], capture_output=True, text=True, timeout=120,
                          env=env)


def _one_line_error(p: subprocess.CompletedProcess, *fragments: str) -> None:
    assert p.returncode != 0 and "Traceback" not in p.stderr, p.stderr
    lines = [x for x in p.stderr.splitlines() if x.startswith("tlsbench: error:")]
    assert len(lines) == 1, p.stderr
    for f in fragments:
        assert f in lines[0], lines[0]


def test_a_missing_folder_is_an_error_not_a_new_folder(tmp_path: Path) -> None:
    db = tmp_path / "no-such-folder" / "r.sqlite"
    _one_line_error(_cli(db, "runs"), str(db), "does not exist")
    assert not db.parent.exists()


def test_a_locked_database_says_who_to_wait_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "r.sqlite"
    Store(db).close()
    holder = sqlite3.connect(db)
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(store_mod, "BUSY_TIMEOUT_S", 0.1)
    with pytest.raises(StoreError, match=rf"results database {db}: database is locked: another process"):
        Store(db)
    holder.rollback()


@pytest.mark.parametrize("said, advice", [
    ("attempt to write a readonly database", "read-only; fix the permissions"),
    ("database or disk is full", "the disk is full; free space"),
    ("database disk image is malformed", "tlsbench db check"),
])
def test_sqlite_messages_get_advice(said: str, advice: str) -> None:
    e = explain(sqlite3.OperationalError(said), "/x/r.sqlite")
    assert str(e).startswith(f"results database /x/r.sqlite: {said}: ") and advice in str(e)


def _damage(db: Path) -> None:
    data = bytearray(db.read_bytes())
    page = 4096
    # the first byte of each page past the header's (a b-tree page's type, an overflow page's next
    # page): bytes inside a page alone may all fall in record payload (text), which integrity_check does not read
    for start in range(page, min(len(data), 4 * page), page):
        data[start] ^= 0x5A
    for at in range(page + 16, min(len(data), 4 * page), 97):  # and b-tree content past the header
        data[at] ^= 0x5A
    db.write_bytes(bytes(data))


def test_a_damaged_database_is_found_and_resume_refused(fake_agent_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    store = Store(db)
    run_id = runner.run(_plan("sha256", "sha384", "sha512", "md5"), "test", store, show_progress=False)
    store.db.execute("UPDATE runs SET status='running' WHERE id=?", (run_id,))
    store.db.commit()
    store.close()
    _damage(db)
    check = _cli(db, "db", "check")
    assert check.returncode != 0 and "Traceback" not in check.stderr, check.stderr
    assert "damaged" in check.stderr or "tlsbench: error:" in check.stderr
    _one_line_error(_cli(db, "run", "--resume", str(run_id)), str(db))


def test_a_sound_database_checks_ok(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    Store(db).close()
    p = _cli(db, "db", "check")
    assert p.returncode == 0 and "ok" in p.stdout


def test_a_full_disk_keeps_what_was_measured(fake_agent_dir: Path, tmp_path: Path) -> None:
    """SQLite's max_page_count makes the database 'full' after a few cases,
    as a small disk would."""
    store = Store(tmp_path / "r.sqlite")
    plan = _plan("sha256", "sha512", "sha384", "sha256", "sha512")
    plan.algorithms = ["sha256", "sha512"]
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    first = runner.run(_plan("sha256"), "test", store, show_progress=False)
    grown = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {grown + 1}")
    with pytest.raises(StoreError) as full:
        runner.run(_plan("sha256", "sha512", "sha384", "sha224", "md5", "sha1"), "test", store,
                   show_progress=False)
    # one sentence per thing said, and the command as it can be copied: with this --db
    assert str(full.value) == (f"results database {store.path}: database or disk is full: the disk is full; free"
                               f" space; run 2 keeps what it measured; finish it with: tlsbench run --db"
                               f" {store.path} --resume 2")
    assert pages < grown and store.get_run(first).status == "complete"
    assert [c["status"] for c in store.cases(first)] == ["ok"]


def test_a_second_process_on_the_same_run_is_refused(fake_agent_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    store = Store(db)
    run_id = runner.run(_plan(), "test", store, show_progress=False)
    store.db.execute("UPDATE runs SET status='running' WHERE id=?", (run_id,))
    store.db.commit()
    with store.lock_run(run_id):
        p = _cli(db, "run", "--resume", str(run_id))
    import os

    _one_line_error(p, f"run {run_id} is being measured by process {os.getpid()}")
    assert runner.run(Plan(), "", store, resume=run_id, show_progress=False) == run_id  # the lock is free again


def test_resume_refuses_a_rebuilt_agent(fake_agent_dir: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    run_id = runner.run(_plan(), "test", store, show_progress=False)
    store.db.execute("UPDATE runs SET status='running' WHERE id=?", (run_id,))
    store.db.commit()
    agent = fake_agent_dir / "tlsbench-agent-openssl"
    agent.write_text(agent.read_text() + "# rebuilt\n")
    with pytest.raises(TlsbenchError, match=f"run {run_id} was measured with a openssl agent of SHA-256 .* "
                                            "resuming would mix two builds in one run; start a new run"):
        runner.run(Plan(), "", store, resume=run_id, show_progress=False)


def test_a_run_on_postgresql_resumes_and_a_second_process_is_refused(fake_agent_dir: Path, pg_server) -> None:
    url = pg_server.new_database("faults")
    store = Store(url)
    run_id = runner.run(_plan("sha256", "sha512"), "test", store, show_progress=False)
    assert [c["status"] for c in store.cases(run_id)] == ["ok", "failed"]  # the fake agent fails sha512
    store.db.execute("UPDATE runs SET status='running' WHERE id=%s", (run_id,))
    with store.lock_run(run_id):
        p = _cli(url, "run", "--resume", str(run_id))  # type: ignore[arg-type]
    _one_line_error(p, f"run {run_id} in postgresql://tlsbench@127.0.0.1:{pg_server.port}/faults is being measured")
    assert "test-only-password" not in p.stderr
    assert runner.run(Plan(), "", store, resume=run_id, show_progress=False) == run_id
    assert store.get_run(run_id).status == "complete" and len(store.cases(run_id)) == 2
    store.close()
