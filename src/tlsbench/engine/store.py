"""The results store: SQLite (default) or PostgreSQL (a team store),
versioned schema, written case by case.

Every case is committed in its own transaction as soon as it is measured,
so a killed run keeps what it measured and ``tlsbench run --resume RUN``
finishes it. The SQL is written once; store_backends.py holds what the two
dialects do differently. This module opens, upgrades, checks, locks and
closes a database; its tables are read and written by the parts Store is
made of: store_runs.py (runs, labels, libraries, checks), store_copy.py
(runs copied between stores), store_cases.py (cases, rounds, samples,
results) and store_cache.py (the result cache); store_schema.py holds the
migrations.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from tlsbench import paths
from tlsbench.engine import labels as run_labels
from tlsbench.engine.store_backends import LOCK_CLASS, POSTGRES, SQLITE, Dialect, connect_postgres, is_url, redacted
from tlsbench.engine.store_base import Row
from tlsbench.engine.store_cache import CacheTables
from tlsbench.engine.store_cases import CaseTables
from tlsbench.engine.store_copy import RunCopies
from tlsbench.engine.store_faults import removed_on_error, run_lock, translated
from tlsbench.engine.store_runs import NOTHING_MEASURED, RunInfo, RunRows
from tlsbench.engine.store_schema import (
    CASE_TABLES,
    MIGRATIONS,
    RUN_TABLES,
    SCHEMA_VERSION,
    migrate,
    schema_version,
)
from tlsbench.errors import StoreError

# what callers import from here, wherever it is written
__all__ = ["BUSY_TIMEOUT_S", "CASE_TABLES", "MIGRATIONS", "NOTHING_MEASURED", "RUN_TABLES", "SCHEMA_VERSION",
           "RunInfo", "RunRows", "Store", "content_uuid", "migrate"]

# how long a write waits for another process holding the database
BUSY_TIMEOUT_S = 30.0

# the namespace of the run identities derived from an old run's content
RUN_UUID_NAMESPACE = uuid.UUID("5b0f3c52-8a59-4f57-9d1e-7c2b1f0e6a10")


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection. A process killed inside a transaction leaves a hot journal, which
    only a writer can roll back: SQLite's own recovery then runs once through a plain connection
    (restoring the last committed state, adding nothing), and reading goes on read-only."""
    uri = f"{path.absolute().as_uri()}?mode=ro"
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as e:
        if "readonly" not in str(e) or not path.with_name(path.name + "-journal").exists():
            raise
        db.close()
        recover = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
        recover.execute("SELECT count(*) FROM sqlite_master").fetchone()  # rolls the hot journal back
        recover.close()
        db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
    db.row_factory = sqlite3.Row
    return db


def content_uuid(row: Row) -> str:
    """An old run's identity, the same in every copy of its database: from
    what no two runs share (its creation time and generated keys) and what
    it ran."""
    parts = [repr(float(row["created"])), row["target"], row["plan_name"], row["plan_json"],
             row["machine_json"], row["keys_json"]]
    return str(uuid.uuid5(RUN_UUID_NAMESPACE, "\x1f".join(parts)))


class Store(RunCopies, CaseTables, CacheTables):
    def __init__(self, where: Path | str, read_only: bool = False):
        """where: a SQLite file, or a postgresql://user@host/dbname URL. ``read_only``: for the
        commands that only read (runs, report, compare ...): the file is never written, created
        or upgraded in place (an older schema is upgraded in a copy in memory), and one that is
        not tlsbench's is an error, not a new schema in it."""
        self.read_only = read_only
        self.created = False  # a SQLite file made by this Store (close(discard_unused=True) may remove it)
        if is_url(where):
            self.dialect: Dialect = POSTGRES
            self.path: Path | str = redacted(str(where))
            self.db = connect_postgres(str(where), BUSY_TIMEOUT_S)
            with translated(self.path):
                if read_only:
                    self._refuse_foreign()
                migrate(self.db, dialect=POSTGRES)
                self._fill_uuids()
            return
        path = Path(where)
        self.dialect = SQLITE
        self.path = path
        if read_only:
            self._open_to_read(path)
            return
        self.created = not path.exists()
        if path == paths.default_database():
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.parent.is_dir():  # a mistyped --db path is not quietly made
            raise StoreError(f"results database {path}: its folder {path.parent} does not exist")
        with translated(path), removed_on_error(path):  # a new file that cannot be made (a full disk) goes again
            self.db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
            try:
                self.db.row_factory = sqlite3.Row
                self.db.execute("PRAGMA foreign_keys = ON")
                migrate(self.db)
                self._fill_uuids()
            except BaseException:
                self.db.close()
                raise

    def _open_to_read(self, path: Path) -> None:
        """SQLite's read-only mode: a missing file is an error (never a new database)."""
        if not path.exists():
            if not path.parent.is_dir():
                raise StoreError(f"results database {path}: its folder {path.parent} does not exist")
            raise StoreError(f"results database {path} does not exist; a run stores into it"
                             f" (tlsbench run --db {path}), or give the --db of an earlier run")
        with translated(path):
            self.db = _connect_read_only(path)
            self._refuse_foreign()
            if schema_version(self.db) < len(MIGRATIONS):  # an older tlsbench's: read through an upgraded copy
                memory = sqlite3.connect(":memory:")
                self.db.backup(memory)
                self.db.close()
                self.db = memory
                self.db.row_factory = sqlite3.Row
                migrate(self.db)
                self._fill_uuids()
            elif schema_version(self.db) > len(MIGRATIONS):
                migrate(self.db)  # raises: the file is newer than this tlsbench

    def _refuse_foreign(self) -> None:
        """A database without tlsbench's schema (another program's, or empty) is not read as one."""
        if self.dialect is POSTGRES:
            ours = self.db.execute("SELECT to_regclass('tlsbench_schema') IS NOT NULL").fetchone()[0]
        else:
            ours = self.db.execute("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='runs'"
                                   ).fetchone()[0] and schema_version(self.db) > 0
        if not ours:
            raise StoreError(f"results database {self.path} has no tlsbench results (not a tlsbench database,"
                             " or empty); a run stores into it (tlsbench run), or give the --db of an earlier run")

    def _fill_uuids(self) -> None:
        """Runs stored before identities and labels: their identity from their
        content, their recorded labels from their machine and libraries."""
        rows = self._q("SELECT * FROM runs WHERE uuid IS NULL").fetchall()
        if not rows:
            return
        with self._tx():
            self._many("UPDATE runs SET uuid=? WHERE id=?", [(content_uuid(r), r["id"]) for r in rows])
            for r in rows:
                try:
                    recorded = run_labels.recorded(json.loads(r["machine_json"]))
                except (ValueError, TypeError, AttributeError):
                    recorded = {}
                libs = {f"lib.{x[0]}": x[1] for x in self._q(
                    "SELECT library, version FROM run_libraries WHERE run_id=?", (r["id"],))}
                self._put_labels(r["id"], {**recorded, **libs})

    def check(self, quick: bool = True) -> list[str]:
        """SQLite's own consistency check: [] when the file is sound, else its
        findings (quick_check skips the index-content cross-check: fast
        enough to run before every resume). A PostgreSQL server keeps its
        own consistency: there, [] once the connection and schema answer."""
        with translated(self.path):
            if self.dialect is POSTGRES:
                schema_version(self.db, self.dialect)
                return []
            pragma = "quick_check" if quick else "integrity_check"
            try:
                rows = [r[0] for r in self.db.execute(f"PRAGMA {pragma}")]
            except sqlite3.DatabaseError as e:  # damage that stops the check itself is its finding
                if "malformed" not in str(e) and "not a database" not in str(e):
                    raise
                rows = [" ".join(str(e).split())]
        return [] if rows == ["ok"] else rows

    @property
    def check_name(self) -> str:
        return "SQLite integrity_check" if self.dialect is SQLITE else "PostgreSQL: connected, schema current"

    def lock_run(self, run_id: int) -> AbstractContextManager[None]:
        """Held while this process measures the run (a second one is refused):
        a file lock next to a SQLite file; on PostgreSQL an advisory lock,
        which works across machines and goes with its connection."""
        if self.dialect is POSTGRES:
            return self._advisory_lock(run_id)
        return run_lock(Path(self.path), run_id)

    @contextmanager
    def _advisory_lock(self, run_id: int) -> Iterator[None]:
        key = (LOCK_CLASS, run_id)
        with translated(self.path):
            got = self.db.execute("SELECT pg_try_advisory_lock(%s::int4, %s::int4)", key).fetchone()[0]
            if not got:
                holder = self.db.execute(
                    "SELECT a.application_name, host(a.client_addr) FROM pg_locks l"
                    " JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory'"
                    " AND l.classid = %s::oid AND l.objid = %s::oid AND l.granted", key).fetchone()
                who = (f"{holder[0] or 'a client'} (from {holder[1] or 'a local socket'})" if holder
                       else "another process")
                raise StoreError(f"run {run_id} in {self.path} is being measured by {who}; wait for it to"
                                 " finish (PostgreSQL advisory lock)")
        try:
            yield
        finally:
            if not self.db.closed:  # else the lock went with its connection
                with translated(self.path):
                    self.db.execute("SELECT pg_advisory_unlock(%s::int4, %s::int4)", key)

    def close(self, discard_unused: bool = False) -> None:
        """discard_unused: a SQLite file this Store made and no run was stored into goes again (a
        run refused before it began leaves no database behind)."""
        unused = False
        if discard_unused and self.created:
            try:
                unused = self.db.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
            except sqlite3.Error:
                unused = False
        self.db.close()
        if unused:
            for leftover in (Path(self.path), Path(f"{self.path}-journal")):
                leftover.unlink(missing_ok=True)
