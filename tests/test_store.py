"""The store: schema migration, and one transaction per case."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tlsbench.engine.case import Sample
from tlsbench.engine.store import MIGRATIONS, SCHEMA_VERSION, Store, migrate
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


def test_a_case_is_stored_whole_or_not_at_all(db_path: Path) -> None:
    store = Store(db_path)
    run = _new_run(store)
    with pytest.raises(sqlite3.IntegrityError):
        # the second sample duplicates the first's key: the whole case must roll back
        store.put_case(run, name="a", library="l", kind="hash", alg="sha256", op="hash", size=64, params={},
                       status="ok", reason="", iters=1, started=0, transcript="",
                       samples=[Sample.one(0, "wall_ns", 5), Sample.one(0, "wall_ns", 6)])
    assert store.cases(run) == []


def test_unknown_run_is_a_clear_error(db_path: Path) -> None:
    store = Store(db_path)
    _new_run(store)
    with pytest.raises(StoreError, match=r"no run 7 .*latest: 1"):
        store.get_run(7)
