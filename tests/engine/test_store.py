"""The store: schema migration, one transaction per case, resume, labels
and run locks, on both back ends (a SQLite file; PostgreSQL on a server the
tests start themselves, tests/pg_server.py)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from tlsbench.engine.case import Result, Sample
from tlsbench.engine.store import MIGRATIONS, SCHEMA_VERSION, Store, content_uuid, migrate
from tlsbench.engine.store_backends import POSTGRES, db_errors
from tlsbench.errors import StoreError


def _new_run(store: Store) -> int:
    return store.create_run(target="host", plan_name="p", plan_source="", plan={}, machine={}, version="v",
                            keys={})


def test_an_old_database_is_migrated_and_keeps_its_data(db_path: Path) -> None:
    db = sqlite3.connect(db_path)
    migrate(db, MIGRATIONS[:1])  # a database written by the first schema
    db.execute("INSERT INTO runs (created, status, target, plan_name, plan_source, plan_json, machine_json,"
               " tlsbench_version, keys_json) VALUES (1, 'complete', 'host', 'old', '', '{}', '{}', 'v0', '{}')")
    db.commit()
    db.close()
    store = Store(db_path)
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert store.get_run(1).plan_name == "old"
    indexes = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "cases_by_run" in indexes


def test_a_newer_database_is_refused(db_path: Path) -> None:
    db = sqlite3.connect(db_path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer than this tlsbench"):
        Store(db_path)


def test_a_case_is_stored_whole_or_not_at_all(store_where: str) -> None:
    store = Store(store_where)
    run = _new_run(store)
    with pytest.raises(db_errors(), match="(?i)unique|duplicate"):
        # the second sample duplicates the first's key: the whole case must roll back
        store.put_case(run, name="a", library="l", kind="hash", alg="sha256", op="hash", size=64, params={},
                       status="ok", reason="", iters=1, started=0, transcript="",
                       samples=[Sample.one(0, "wall_ns", 5), Sample.one(0, "wall_ns", 6)])
    assert store.cases(run) == []


def test_unknown_run_is_a_clear_error(store_where: str) -> None:
    store = Store(store_where)
    _new_run(store)
    with pytest.raises(StoreError, match=r"no run 7 .*latest: 1"):
        store.get_run(7)


def _case(store: Store, run: int, name: str, status: str, rounds_done: int = 1) -> int:
    return store.put_case(run, name=name, library="l", kind="hash", alg="sha256", op="hash", size=64, params={},
                          status=status, reason="", iters=10, started=0, transcript="r1",
                          samples=[Sample.one(0, "wall_ns", 2**40 + 1)], rounds_done=rounds_done,
                          round_info={"stack_at": 16, "attempts": 1})


def test_resume_keeps_partial_and_ok_cases_and_forgets_failed(store_where: str) -> None:
    store = Store(store_where)
    run = _new_run(store)
    ok = _case(store, run, "a", "ok")
    partial = _case(store, run, "b", "partial")
    _case(store, run, "c", "failed")
    store.forget_failed(run)
    assert store.case_progress(run) == {"a": (ok, "ok", 1), "b": (partial, "partial", 1)}
    result = Result.of("wall_ns", "ns", 2, 0, 3.5, 3.5, 0.0, 3.0, 4.0, None, None)
    store.add_round(partial, status="ok", reason="", transcript="r2", samples=[Sample.one(1, "wall_ns", 7)],
                    results=[result], rounds_done=2, round_info={"stack_at": 32, "attempts": 2, "slow": True})
    assert store.case_progress(run)["b"] == (partial, "ok", 2)
    b = [c for c in store.cases(run) if c["name"] == "b"][0]
    assert b["transcript"] == "r1\n--- round 2 ---\nr2"
    # a 64-bit counter total and a double-precision time survive both back ends
    assert [s.total for s in store.case_samples(partial)] == [2**40 + 1, 7]
    assert [(r["round"], r["stack_at"], r["attempts"], r["slow"]) for r in store.case_rounds(run)
            if r["name"] == "b"] == [(0, 16, 1, 0), (1, 32, 2, 1)]
    assert [(r["name"], r["metric"], r["median"]) for r in store.results(run)] == [("b", "wall_ns", 3.5)]
    assert store.finish_run(run) == "complete"
    assert store.get_run(run).created > 1.7e9  # seconds since 1970, not rounded to single precision
    store.close()


def test_a_round_measured_again_replaces_its_samples_only(store_where: str) -> None:
    """settle(): round 1 of a two-round case replaced, its samples by key, the results and its pace with
    them; round 2's samples stay."""
    store = Store(store_where)
    run = _new_run(store)
    case = _case(store, run, "a", "partial")
    store.add_round(case, status="ok", reason="", transcript="r2", samples=[Sample.one(1, "wall_ns", 7)],
                    results=[], rounds_done=2, round_info={"stack_at": 32, "attempts": 1})
    result = Result.of("wall_ns", "ns", 2, 0, 5.0, 5.0, 0.0, 3.0, 7.0, None, None)
    store.replace_round(case, 0, samples=[Sample.one(0, "wall_ns", 3)], results=[result],
                        round_info={"stack_at": 16, "attempts": 2, "reference_ns": 1010}, transcript="again")
    assert sorted(s.total for s in store.case_samples(case)) == [3, 7]
    assert [(r["round"], r["attempts"], r["reference_ns"]) for r in store.case_rounds(run)] == \
        [(0, 2, 1010), (1, 1, None)]
    assert [(r["metric"], r["min"]) for r in store.results(run)] == [("wall_ns", 3.0)]
    assert store.cases(run)[0]["transcript"] == "r1\n--- round 2 ---\nr2\n--- round 1, measured again ---\nagain"
    store.put_round_info(case, 1, {"stack_at": 32, "attempts": 2})
    assert [r["attempts"] for r in store.case_rounds(run)] == [2, 2]
    store.close()


def test_upserts_replace_and_code_sizes_keep_their_order(store_where: str) -> None:
    store = Store(store_where)
    run = _new_run(store)
    store.put_library(run, "openssl", "3.0.1", "cfg", "src", "00", "wall_ns", {})
    store.put_library(run, "openssl", "3.0.2", "cfg", "src", "00", "wall_ns", {"tsc": "no"})
    assert [(r["library"], r["version"]) for r in store.libraries(run)] == [("openssl", "3.0.2")]
    store.put_checks(run, [("openssl", "hash", "sha256", "fail", "x")])
    store.put_checks(run, [("openssl", "hash", "sha256", "pass", "")])
    assert [r["status"] for r in store.checks(run)] == ["pass"]
    parts = [("zeta", 10, 1), ("alpha", 20, 2), ("mid", 30, 3)]
    store.put_code_sizes(run, "openssl", parts)
    assert [(r["component"], r["flash_bytes"]) for r in store.code_sizes(run)] == [(c, f) for c, f, _ in parts]
    assert store.labels(run)["lib.openssl"] == "3.0.2"
    store.close()


def test_labels_are_recorded_with_the_run(store_where: str) -> None:
    store = Store(store_where)
    machine = {"hostname": "lab-2", "tlsbench": "0.3.0+v0.3-4-g0123456789ab-dirty", "cpu_model": "x"}
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={}, machine=machine, version="v",
                           keys={}, labels={"branch": "tuning"})
    labels = store.labels(run)
    assert {k: labels[k] for k in ("git.commit", "git.dirty", "machine", "branch")} == {
        "git.commit": "0123456789ab", "git.dirty": "true", "machine": "lab-2", "branch": "tuning"}
    assert len(labels["machine.id"]) == 12
    assert [r["labels"]["branch"] for r in store.list_runs()] == ["tuning"]
    store.close()


def test_old_runs_get_an_identity_from_their_content(db_path: Path) -> None:
    db = sqlite3.connect(db_path)
    migrate(db, MIGRATIONS[:5])  # before identities and labels
    db.execute("INSERT INTO runs (created, status, target, plan_name, plan_source, plan_json, machine_json,"
               " tlsbench_version, keys_json) VALUES (1.5, 'complete', 'host', 'old', '', '{}',"
               " '{\"hostname\": \"h\", \"tlsbench\": \"0.1+abcdef1\"}', 'v0', '{\"k\": 1}')")
    db.commit()
    db.close()
    copy = db_path.with_name("copy.sqlite")
    copy.write_bytes(db_path.read_bytes())
    first, second = Store(db_path), Store(copy)
    assert first.run_uuid(1) == second.run_uuid(1) == content_uuid(first.db.execute("SELECT * FROM runs").fetchone())
    assert first.labels(1) | {"machine.id": ""} == {"git.commit": "abcdef1", "git.dirty": "false", "machine": "h",
                                                     "machine.id": ""}


def test_postgresql_migrates_an_older_schema(pg_server) -> None:
    import psycopg

    url = pg_server.new_database("older")
    with psycopg.connect(url, autocommit=True) as db:
        migrate(db, MIGRATIONS[:3], dialect=POSTGRES)  # a team store written by an older tlsbench
        db.execute("INSERT INTO runs (created, status, target, plan_name, plan_source, plan_json, machine_json,"
                   " tlsbench_version, keys_json) VALUES (1, 'complete', 'host', 'old', '', '{}', '{}', 'v0', '{}')")
    store = Store(url)
    assert store.db.execute("SELECT max(version) FROM tlsbench_schema").fetchone()[0] == SCHEMA_VERSION
    assert store.get_run(1).plan_name == "old" and store.run_uuid(1)
    store.close()


def test_postgresql_errors_name_the_server_not_the_password(pg_server) -> None:
    url = pg_server.new_database("errs")
    with pytest.raises(StoreError) as e:
        Store(pg_server.url("errs", password="wrong-password"))
    line = str(e.value)
    assert "\n" not in line and "wrong-password" not in line and url.startswith("postgresql://tlsbench:")
    assert f"postgresql://tlsbench@127.0.0.1:{pg_server.port}/errs" in line
    assert "check the user name and password" in line
    with pytest.raises(StoreError, match="cannot connect .*check that the server runs"):
        Store(f"postgresql://tlsbench@127.0.0.1:{_closed_port()}/errs")


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when this returns: nothing listens there


def test_postgresql_run_lock_is_held_across_connections(pg_server) -> None:
    url = pg_server.new_database("locks")
    first, second = Store(url), Store(url)
    run = _new_run(first)
    with first.lock_run(run):
        with pytest.raises(StoreError, match=rf"run {run} in postgresql://tlsbench@127.0.0.1:\d+/locks is being"
                                             r" measured by tlsbench pid \d+ on .* \(from 127.0.0.1\); wait"):
            with second.lock_run(run):
                pass
        with second.lock_run(run + 1):  # another run's lock is free
            pass
    with second.lock_run(run):  # released
        pass
    held = first.lock_run(run)
    held.__enter__()  # held, never left: as by a process that dies measuring
    with pytest.raises(StoreError, match="is being measured"):
        second.lock_run(run).__enter__()
    first.close()  # the connection goes, as with its process
    # the server ends the closed connection's backend (and frees its lock) after the
    # client has gone, not before close() returns: wait for that, bounded
    deadline = time.monotonic() + 30
    while True:
        try:
            with second.lock_run(run):
                break
        except StoreError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    second.close()
