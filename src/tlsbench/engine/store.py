"""The results store: SQLite (default) or PostgreSQL (a team store),
versioned schema, written case by case.

Every case is committed in its own transaction as soon as it is measured,
so a killed run keeps what it measured and ``tlsbench run --resume RUN``
finishes it. The SQL is written once; store_backends.py holds what the two
dialects do differently.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tlsbench import paths
from tlsbench.engine import labels as run_labels
from tlsbench.engine.case import Result, Sample
from tlsbench.engine.store_backends import LOCK_CLASS, POSTGRES, SQLITE, Dialect, connect_postgres, is_url, redacted
from tlsbench.engine.store_faults import removed_on_error, run_lock, translated
from tlsbench.errors import StoreError

Row = Any  # sqlite3.Row or store_backends.Row: by position or by column name

# Each migration takes the schema from version i to i+1. Never edit one that
# has shipped: add a new one.
# A finished run in which no case came out ok: marked so, and `run` exits non-zero.
NOTHING_MEASURED = "nothing measured"

MIGRATIONS: list[str] = [
    # 0 -> 1: the initial schema
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created REAL NOT NULL,
        finished REAL,
        status TEXT NOT NULL,            -- running | complete
        target TEXT NOT NULL,
        plan_name TEXT NOT NULL,
        plan_source TEXT NOT NULL,       -- the plan as given (TOML text or flags)
        plan_json TEXT NOT NULL,         -- the resolved plan
        machine_json TEXT NOT NULL,
        tlsbench_version TEXT NOT NULL,
        keys_json TEXT NOT NULL          -- generated test keys, so a resume reuses them
    );
    CREATE TABLE run_libraries (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        library TEXT NOT NULL,
        version TEXT NOT NULL,
        config TEXT NOT NULL,
        source TEXT NOT NULL,
        agent_sha256 TEXT NOT NULL,
        counters TEXT NOT NULL,
        counters_missing_json TEXT NOT NULL,
        PRIMARY KEY (run_id, library)
    );
    CREATE TABLE checks (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        library TEXT NOT NULL,
        kind TEXT NOT NULL,
        alg TEXT NOT NULL,
        status TEXT NOT NULL,            -- pass | fail | unsupported
        detail TEXT NOT NULL,
        PRIMARY KEY (run_id, library, kind, alg)
    );
    CREATE TABLE cases (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id INTEGER NOT NULL REFERENCES runs(id),
        name TEXT NOT NULL,              -- library/kind/alg/op[/size]: the comparison key
        library TEXT NOT NULL,
        kind TEXT NOT NULL,
        alg TEXT NOT NULL,
        op TEXT NOT NULL,
        size INTEGER,
        params_json TEXT NOT NULL,
        status TEXT NOT NULL,            -- ok | unsupported | failed | check_failed
        reason TEXT NOT NULL,
        iters INTEGER,
        started REAL NOT NULL,
        finished REAL NOT NULL,
        transcript TEXT NOT NULL,        -- the agent's raw records: the evidence
        UNIQUE (run_id, name)
    );
    CREATE TABLE samples (
        case_id INTEGER NOT NULL REFERENCES cases(id),
        idx INTEGER NOT NULL,
        warmup INTEGER NOT NULL,
        iters INTEGER NOT NULL,
        counter TEXT NOT NULL,           -- wall_ns, cpu_ns, tsc, cycles, instructions
        total INTEGER NOT NULL,          -- counter delta over the whole batch
        PRIMARY KEY (case_id, warmup, idx, counter)
    );
    CREATE TABLE results (
        case_id INTEGER NOT NULL REFERENCES cases(id),
        metric TEXT NOT NULL,
        unit TEXT NOT NULL,
        n INTEGER NOT NULL,
        removed INTEGER NOT NULL,
        median REAL NOT NULL,
        mean REAL NOT NULL,
        stdev REAL,
        min REAL NOT NULL,
        max REAL NOT NULL,
        ci95_low REAL,
        ci95_high REAL,
        PRIMARY KEY (case_id, metric)
    );
    """,
    # 1 -> 2: look-ups by run are the common path
    """
    CREATE INDEX cases_by_run ON cases(run_id, status);
    CREATE INDEX results_by_case ON results(case_id);
    """,
    # 2 -> 3: a case may be measured in several rounds spread over the run
    # (status 'partial' until its last round); older cases had one round
    """
    ALTER TABLE cases ADD COLUMN rounds_done INTEGER NOT NULL DEFAULT 1;
    """,
    # 3 -> 4: firmware code size per library and component, from the linker map
    """
    CREATE TABLE code_sizes (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        library TEXT NOT NULL,
        component TEXT NOT NULL,         -- library | adapter | tlsbench core + platform | C runtime ... | alignment
        flash_bytes INTEGER NOT NULL,    -- text + rodata + initialised data
        ram_bytes INTEGER NOT NULL,      -- data + bss (static RAM; heap and stack are measured per operation)
        PRIMARY KEY (run_id, library, component)
    );
    """,
    # 4 -> 5: how each round of a host case was measured: where its timed loop
    # sat (stack offset in a 4 KiB page, heap shift), how fast the machine was
    # by the reference workload before it, and whether it was measured again
    """
    CREATE TABLE case_rounds (
        case_id INTEGER NOT NULL REFERENCES cases(id),
        round INTEGER NOT NULL,
        stack_at INTEGER,                -- low 12 bits of the timed frame's address (NULL: not placed)
        heap_shift INTEGER,              -- bytes held on the heap during the timed passes
        reference_ns INTEGER,            -- the reference workload before the kept attempt
        best_reference_ns INTEGER,       -- the run's best reference so far
        attempts INTEGER NOT NULL,       -- 1 + times measured again because the machine was slow
        slow INTEGER NOT NULL,           -- 1: still slower than the threshold in the kept attempt
        PRIMARY KEY (case_id, round)
    );
    """,
    # 5 -> 6: a run's identity across stores (db push copies it; old runs get
    # one derived from their content, see _fill_uuids) and its labels
    """
    ALTER TABLE runs ADD COLUMN uuid TEXT;
    CREATE UNIQUE INDEX runs_by_uuid ON runs(uuid);
    CREATE TABLE run_labels (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        label TEXT NOT NULL,             -- user labels (--label k=v) and recorded ones (git.commit ...)
        value TEXT NOT NULL,
        PRIMARY KEY (run_id, label)
    );
    """,
    # 6 -> 7: the board profile a run's cycle model used, as read at its start (a user's file may
    # change or go away after the run)
    """
    CREATE TABLE run_board_profiles (
        run_id INTEGER NOT NULL PRIMARY KEY REFERENCES runs(id),
        name TEXT NOT NULL,              -- a shipped profile's name, or the user's file's stem
        origin TEXT NOT NULL,            -- shipped | the user's file's absolute path
        text TEXT NOT NULL,              -- the TOML as read
        sha256 TEXT NOT NULL             -- of text
    );
    """,
    # 7 -> 8: the reference workload after each round too, so a phase that
    # starts or ends inside a round shows (engine/steadiness.py)
    """
    ALTER TABLE case_rounds ADD COLUMN reference_after_ns INTEGER;
    """,
    # 8 -> 9: the result cache of exact metrics (engine/result_cache.py): a case's key, the parts it
    # was made from, and which stored case a reused outcome was copied from
    """
    ALTER TABLE cases ADD COLUMN cache_key TEXT;       -- NULL: not cacheable (noisy, or measured with --no-cache)
    ALTER TABLE cases ADD COLUMN reused_from INTEGER;  -- the case whose outcome this one reuses (NULL: measured)
    CREATE INDEX cases_by_cache_key ON cases(cache_key);
    CREATE TABLE cache_keys (
        cache_key TEXT NOT NULL PRIMARY KEY,
        parts_json TEXT NOT NULL         -- what the key was made from, by name
    );
    """,
    # 9 -> 10: what an exact target's image answered to hello and list, keyed like the result cache
    # (engine/result_cache.py: probe_key_parts), so a session whose cases all come from the cache starts
    # no emulator to ask it again
    """
    CREATE TABLE probe_answers (
        probe_key TEXT NOT NULL PRIMARY KEY,
        parts_json TEXT NOT NULL,        -- what the key was made from, by name
        answer_json TEXT NOT NULL        -- the library's version, configuration, counters and support
    );
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
# how long a write waits for another process holding the database
BUSY_TIMEOUT_S = 30.0


@dataclass
class RunRows:
    """A run's rows, ready to copy into another store."""
    run: dict[str, Any]
    per_run: dict[str, list[dict[str, Any]]]
    cases: list[tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]]


@dataclass
class RunInfo:
    id: int
    created: float
    finished: float | None
    status: str
    target: str
    plan_name: str
    plan_source: str
    plan: dict
    machine: dict
    tlsbench_version: str
    keys: dict


# the namespace of the run identities derived from an old run's content
RUN_UUID_NAMESPACE = uuid.UUID("5b0f3c52-8a59-4f57-9d1e-7c2b1f0e6a10")
# the tables that hang off a run, and those that hang off its cases
RUN_TABLES = ("run_libraries", "checks", "code_sizes", "run_labels", "run_board_profiles")
CASE_TABLES = ("samples", "results", "case_rounds")


def _version(db: Any, dialect: Dialect = SQLITE) -> int:
    return db.execute(dialect.version_sql).fetchone()[0]


def _transaction(db: Any, dialect: Dialect) -> AbstractContextManager[Any]:
    """sqlite3's connection commits on leaving its with-block; psycopg's
    (in autocommit mode) opens a transaction block."""
    return db.transaction() if dialect is POSTGRES else db


def migrate(db: Any, migrations: list[str] = MIGRATIONS, dialect: Dialect = SQLITE) -> None:
    if dialect.prologue:
        db.execute(dialect.prologue)
    current = _version(db, dialect)
    if current > len(migrations):
        raise StoreError(
            f"database schema version {current} is newer than this tlsbench "
            f"({len(migrations)}): upgrade tlsbench"
        )
    for i in range(current, len(migrations)):
        if dialect is SQLITE:
            with db:
                db.executescript("BEGIN;" + migrations[i] + f"; PRAGMA user_version = {i + 1};")
        else:
            with _transaction(db, dialect):
                db.execute(dialect.ddl(migrations[i]))
                db.execute(dialect.set_version_sql.format(n=i + 1))


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


class Store:
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
            if _version(self.db) < len(MIGRATIONS):  # an older tlsbench's: read through an upgraded copy
                memory = sqlite3.connect(":memory:")
                self.db.backup(memory)
                self.db.close()
                self.db = memory
                self.db.row_factory = sqlite3.Row
                migrate(self.db)
                self._fill_uuids()
            elif _version(self.db) > len(MIGRATIONS):
                migrate(self.db)  # raises: the file is newer than this tlsbench

    def _refuse_foreign(self) -> None:
        """A database without tlsbench's schema (another program's, or empty) is not read as one."""
        if self.dialect is POSTGRES:
            ours = self.db.execute("SELECT to_regclass('tlsbench_schema') IS NOT NULL").fetchone()[0]
        else:
            ours = self.db.execute("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='runs'"
                                   ).fetchone()[0] and _version(self.db) > 0
        if not ours:
            raise StoreError(f"results database {self.path} has no tlsbench results (not a tlsbench database,"
                             " or empty); a run stores into it (tlsbench run), or give the --db of an earlier run")

    def _tx(self) -> AbstractContextManager[Any]:
        return _transaction(self.db, self.dialect)

    def _q(self, sql: str, params: tuple | list = ()) -> Any:
        return self.db.execute(self.dialect.sql(sql), params)

    def _many(self, sql: str, rows: list) -> None:
        if rows:
            self.db.cursor().executemany(self.dialect.sql(sql), rows)

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
                _version(self.db, self.dialect)
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

    # ---- runs ----
    def create_run(self, *, target: str, plan_name: str, plan_source: str, plan: dict,
                   machine: dict, version: str, keys: dict, labels: dict[str, str] | None = None) -> int:
        with self._tx():
            cur = self._q(
                "INSERT INTO runs (created, status, target, plan_name, plan_source, plan_json,"
                " machine_json, tlsbench_version, keys_json, uuid) VALUES (?,?,?,?,?,?,?,?,?,?) RETURNING id",
                (time.time(), "running", target, plan_name, plan_source, json.dumps(plan),
                 json.dumps(machine), version, json.dumps(keys), str(uuid.uuid4())),
            )
            run_id = int(cur.fetchone()[0])
            self._put_labels(run_id, {**run_labels.recorded(machine), **(labels or {})})
        return run_id

    def finish_run(self, run_id: int) -> str:
        """Marks the run finished: 'complete', or NOTHING_MEASURED when no case
        came out ok (every case failed, or nothing could run: no firmware, no
        board). Returns the status."""
        with self._tx():
            ok = self._q("SELECT count(*) FROM cases WHERE run_id=? AND status='ok'", (run_id,)).fetchone()[0]
            status = "complete" if ok else NOTHING_MEASURED
            self._q("UPDATE runs SET status=?, finished=? WHERE id=?", (status, time.time(), run_id))
        return status

    def get_run(self, run_id: int) -> RunInfo:
        row = self._q("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            known = [r[0] for r in self._q("SELECT id FROM runs ORDER BY id DESC LIMIT 5")]
            hint = f" (latest: {', '.join(map(str, known))})" if known else " (the database has no runs)"
            raise StoreError(f"no run {run_id} in {self.path}{hint}")
        return RunInfo(
            id=row["id"], created=row["created"], finished=row["finished"], status=row["status"],
            target=row["target"], plan_name=row["plan_name"], plan_source=row["plan_source"],
            plan=self._json(row, "plan_json"), machine=self._json(row, "machine_json"),
            tlsbench_version=row["tlsbench_version"], keys=self._json(row, "keys_json"),
        )

    def _json(self, row: Row, column: str) -> dict:
        try:
            return json.loads(row[column])
        except (ValueError, TypeError):
            raise StoreError(f"results database {self.path}: run {row['id']} is damaged ({column} is not JSON): "
                             "see `tlsbench db check`") from None

    def latest_run_id(self) -> int:
        row = self._q("SELECT max(id) FROM runs").fetchone()
        if row[0] is None:
            raise StoreError(f"the database {self.path} has no runs yet")
        return int(row[0])

    def list_runs(self) -> list[dict[str, Any]]:
        """Every run, oldest first, with its board (board_profile: the cycle model's, None without one),
        case counts and labels."""
        rows = self._q(
            "SELECT r.id, r.uuid, r.created, r.finished, r.status, r.target, r.plan_name, r.tlsbench_version,"
            " r.machine_json, (SELECT p.name FROM run_board_profiles p WHERE p.run_id=r.id) AS board_profile,"
            " (SELECT count(*) FROM cases c WHERE c.run_id=r.id) AS cases,"
            " (SELECT count(*) FROM cases c WHERE c.run_id=r.id AND c.status='ok') AS ok"
            " FROM runs r ORDER BY r.id"
        ).fetchall()
        labels = self.all_labels()
        out = []
        for r in rows:
            row = {k: r[k] for k in r.keys() if k != "machine_json"}
            try:
                row["board"] = json.loads(r["machine_json"]).get("board")
            except (ValueError, TypeError, AttributeError):
                row["board"] = None
            row["labels"] = labels.get(r["id"], {})
            out.append(row)
        return out

    # ---- labels ----
    def _put_labels(self, run_id: int, labels: dict[str, str]) -> None:
        self._many(_upsert("run_labels", ("run_id", "label", "value"), 2),
                   [(run_id, k, v) for k, v in sorted(labels.items())])

    def labels(self, run_id: int) -> dict[str, str]:
        return {r[0]: r[1] for r in self._q("SELECT label, value FROM run_labels WHERE run_id=? ORDER BY label",
                                            (run_id,))}

    def all_labels(self) -> dict[int, dict[str, str]]:
        out: dict[int, dict[str, str]] = {}
        for run_id, label, value in self._q("SELECT run_id, label, value FROM run_labels ORDER BY run_id, label"):
            out.setdefault(run_id, {})[label] = value
        return out

    # ---- copying runs between stores (tlsbench db push) ----
    def run_uuid(self, run_id: int) -> str:
        self.get_run(run_id)  # an unknown run: the usual error
        return self._q("SELECT uuid FROM runs WHERE id=?", (run_id,)).fetchone()[0]

    def has_run(self, run_uuid: str) -> int | None:
        row = self._q("SELECT id FROM runs WHERE uuid=?", (run_uuid,)).fetchone()
        return None if row is None else int(row[0])

    def run_rows(self, run_id: int) -> RunRows:
        """Everything stored for a run, as column -> value rows, in insertion order."""
        run = self._q("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
        if run is None:
            self.get_run(run_id)  # raises the usual error
        order = self.dialect.insertion_order
        per_run = {t: [_as_dict(r) for r in self._q(f"SELECT * FROM {t} WHERE run_id=? ORDER BY {order}", (run_id,))]
                   for t in RUN_TABLES}
        cases = []
        for case in self._q("SELECT * FROM cases WHERE run_id=? ORDER BY id", (run_id,)).fetchall():
            children = {t: [_as_dict(r) for r in self._q(f"SELECT * FROM {t} WHERE case_id=? ORDER BY {order}",
                                                         (case["id"],))]
                        for t in CASE_TABLES}
            cases.append((_as_dict(case), children))
        return RunRows(_as_dict(run), per_run, cases)

    def put_run_rows(self, rows: RunRows) -> int | None:
        """Stores a copied run under a new local id, in one transaction;
        None (and nothing written) when a run with its identity is here."""
        with self._tx():
            if self.has_run(rows.run["uuid"]) is not None:
                return None
            run = {k: v for k, v in rows.run.items() if k != "id"}
            run_id = int(self._q(_insert("runs", tuple(run)) + " RETURNING id", tuple(run.values())).fetchone()[0])
            for table, table_rows in rows.per_run.items():
                self._put_rows(table, [{**r, "run_id": run_id} for r in table_rows])
            for case, children in rows.cases:
                values = {k: v for k, v in case.items() if k != "id"} | {"run_id": run_id}
                case_id = int(self._q(_insert("cases", tuple(values)) + " RETURNING id",
                                      tuple(values.values())).fetchone()[0])
                for table, table_rows in children.items():
                    self._put_rows(table, [{**r, "case_id": case_id} for r in table_rows])
        return run_id

    def _put_rows(self, table: str, rows: list[dict[str, Any]]) -> None:
        if rows:
            columns = tuple(rows[0])
            self._many(_insert(table, columns), [tuple(r[c] for c in columns) for r in rows])

    # ---- a damaged file's rows (engine/store_salvage.py) ----
    def readable_rows(self, table: str) -> tuple[list[str], list[tuple], str]:
        """A table's columns, its rows as far as they can be read (rowid order) and the error that
        stopped the reading ("" when every row was read). table: one of tlsbench's own."""
        assert table in ("runs", *RUN_TABLES, "cases", *CASE_TABLES)
        columns: list[str] = []
        rows: list[tuple] = []
        try:
            cur = self.db.execute(f"SELECT * FROM {table}")
            columns = [d[0] for d in cur.description]
            for row in cur:
                rows.append(tuple(row))
        except sqlite3.Error as e:
            return columns, rows, " ".join(str(e).split())
        return columns, rows, ""

    def columns(self, table: str) -> set[str]:
        return {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}

    def put_rows_as_read(self, table: str, columns: list[str], rows: list[tuple]) -> None:
        """Rows copied as they were read, ids and all, in one transaction."""
        with self._tx():
            self._many(_insert(table, tuple(columns)), rows)

    # ---- libraries and checks ----
    def put_library(self, run_id: int, library: str, version: str, config: str, source: str,
                    agent_sha256: str, counters: str, counters_missing: dict[str, str]) -> None:
        with self._tx():
            self._q(
                _upsert("run_libraries", ("run_id", "library", "version", "config", "source", "agent_sha256",
                                          "counters", "counters_missing_json"), 2),
                (run_id, library, version, config, source, agent_sha256, counters,
                 json.dumps(counters_missing)),
            )
            self._put_labels(run_id, {f"lib.{library}": version})

    def libraries(self, run_id: int) -> list[Row]:
        return self._q(
            "SELECT * FROM run_libraries WHERE run_id=? ORDER BY library", (run_id,)
        ).fetchall()

    def put_board_profile(self, run_id: int, name: str, origin: str, text: str, sha256: str) -> None:
        with self._tx():
            self._q(_upsert("run_board_profiles", ("run_id", "name", "origin", "text", "sha256"), 1),
                    (run_id, name, origin, text, sha256))

    def board_profile(self, run_id: int) -> dict[str, Any] | None:
        """The stored board profile of a run with a cycle model (None: none, or a run stored before)."""
        row = self._q("SELECT name, origin, text, sha256 FROM run_board_profiles WHERE run_id=?", (run_id,)).fetchone()
        return None if row is None else _as_dict(row)

    def put_code_sizes(self, run_id: int, library: str, parts: Iterable[tuple[str, int, int]]) -> None:
        with self._tx():
            self._many(_upsert("code_sizes", ("run_id", "library", "component", "flash_bytes", "ram_bytes"), 3),
                                [(run_id, library, *p) for p in parts])

    def code_sizes(self, run_id: int) -> list[Row]:
        return self._q(
            f"SELECT * FROM code_sizes WHERE run_id=? ORDER BY library, {self.dialect.insertion_order}", (run_id,)
        ).fetchall()

    def put_checks(self, run_id: int, rows: Iterable[tuple[str, str, str, str, str]]) -> None:
        with self._tx():
            self._many(
                _upsert("checks", ("run_id", "library", "kind", "alg", "status", "detail"), 4),
                [(run_id, *r) for r in rows],
            )

    def checks(self, run_id: int) -> list[Row]:
        return self._q(
            "SELECT * FROM checks WHERE run_id=? ORDER BY library, kind, alg", (run_id,)
        ).fetchall()

    # ---- cases ----
    def forget_failed(self, run_id: int) -> None:
        """Drops failed cases (with their samples) so a resume measures them again."""
        with self._tx():
            ids = [r[0] for r in self._q(
                "SELECT id FROM cases WHERE run_id=? AND status='failed'", (run_id,))]
            for table in ("samples", "results", "case_rounds"):
                self._many(f"DELETE FROM {table} WHERE case_id=?", [(i,) for i in ids])
            self._many("DELETE FROM cases WHERE id=?", [(i,) for i in ids])

    def put_case(self, run_id: int, *, name: str, library: str, kind: str, alg: str, op: str,
                 size: int | None, params: dict, status: str, reason: str, iters: int | None,
                 started: float, transcript: str,
                 samples: Iterable[Sample] = (),
                 results: Iterable[Result] = (), rounds_done: int = 1, round_info: dict | None = None,
                 cache_key: str | None = None, reused_from: int | None = None) -> int:
        """One transaction per case (or round): all of it is stored, or none of it. ``cache_key``: an
        exact case's result-cache key; ``reused_from``: the stored case its outcome was copied from."""
        with self._tx():
            cur = self._q(
                "INSERT INTO cases (run_id, name, library, kind, alg, op, size, params_json, status,"
                " reason, iters, started, finished, transcript, rounds_done, cache_key, reused_from)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id",
                (run_id, name, library, kind, alg, op, size, json.dumps(params), status, reason,
                 iters, started, time.time(), transcript, rounds_done, cache_key, reused_from),
            )
            case_id = int(cur.fetchone()[0])
            self._put_samples(case_id, samples)
            self._put_results(case_id, results)
            self._put_round_info(case_id, rounds_done - 1, round_info)
        return case_id

    def _put_round_info(self, case_id: int, rnd: int, info: dict | None) -> None:
        if info is None:
            return
        self._q(
            _upsert("case_rounds", ("case_id", "round", "stack_at", "heap_shift", "reference_ns",
                                    "best_reference_ns", "attempts", "slow", "reference_after_ns"), 2),
            (case_id, rnd, info.get("stack_at"), info.get("heap_shift"), info.get("reference_ns"),
             info.get("best_reference_ns"), info.get("attempts", 1), int(bool(info.get("slow"))),
             info.get("reference_after_ns")),
        )

    def case_rounds(self, run_id: int) -> list[Row]:
        """Every stored round's placement and pace, with its case's name."""
        return self._q(
            "SELECT c.name, r.* FROM case_rounds r JOIN cases c ON c.id = r.case_id WHERE c.run_id=?"
            " ORDER BY c.id, r.round", (run_id,)).fetchall()

    def add_round(self, case_id: int, *, status: str, reason: str, transcript: str,
                  samples: Iterable[Sample], results: Iterable[Result], rounds_done: int,
                  round_info: dict | None = None) -> None:
        """A later round of a case: its batches, the case's new state and (after
        the last round) its results, in one transaction."""
        with self._tx():
            self._q(
                "UPDATE cases SET status=?, reason=?, finished=?, rounds_done=?,"
                " transcript=transcript || ? WHERE id=?",
                (status, reason, time.time(), rounds_done, f"\n--- round {rounds_done} ---\n" + transcript,
                 case_id),
            )
            self._put_samples(case_id, samples)
            self._q("DELETE FROM results WHERE case_id=?", (case_id,))
            self._put_results(case_id, results)
            self._put_round_info(case_id, rounds_done - 1, round_info)

    # ---- the result cache of exact metrics (engine/result_cache.py) ----
    def put_cache_key(self, key: str, parts: dict[str, str]) -> None:
        with self._tx():
            self._q("INSERT INTO cache_keys (cache_key, parts_json) VALUES (?,?) ON CONFLICT (cache_key) DO NOTHING",
                    (key, json.dumps(parts, sort_keys=True)))

    def cache_key_parts(self, key: str) -> dict[str, str] | None:
        row = self._q("SELECT parts_json FROM cache_keys WHERE cache_key=?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def cached_case(self, key: str, statuses: tuple[str, ...]) -> Row | None:
        """The measured case (never a copy) stored under this key with one of these statuses, latest first."""
        marks = ",".join("?" * len(statuses))
        return self._q(f"SELECT id, status, reason, iters, transcript FROM cases WHERE cache_key=? AND"
                       f" reused_from IS NULL AND status IN ({marks}) ORDER BY id DESC LIMIT 1",
                       (key, *statuses)).fetchone()

    def put_probe_answer(self, key: str, parts: dict[str, str], answer: dict[str, Any]) -> None:
        with self._tx():
            self._q("INSERT INTO probe_answers (probe_key, parts_json, answer_json) VALUES (?,?,?)"
                    " ON CONFLICT (probe_key) DO NOTHING",
                    (key, json.dumps(parts, sort_keys=True), json.dumps(answer)))  # as answered, in its order

    def probe_answer(self, key: str) -> dict[str, Any] | None:
        """What an image answered to the probe stored under this key, or None."""
        row = self._q("SELECT answer_json FROM probe_answers WHERE probe_key=?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def reuse_marks(self, run_id: int) -> dict[str, int]:
        """case name -> the case its outcome was copied from, for the reused cases of a run."""
        return {r[0]: int(r[1]) for r in self._q(
            "SELECT name, reused_from FROM cases WHERE run_id=? AND reused_from IS NOT NULL", (run_id,))}

    def case_run_and_name(self, case_id: int) -> tuple[int, str] | None:
        row = self._q("SELECT run_id, name FROM cases WHERE id=?", (case_id,)).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def case_id_of(self, run_id: int, name: str) -> int | None:
        row = self._q("SELECT id FROM cases WHERE run_id=? AND name=?", (run_id, name)).fetchone()
        return None if row is None else int(row[0])

    def case_progress(self, run_id: int) -> dict[str, tuple[int, str, int]]:
        return {
            r["name"]: (r["id"], r["status"], r["rounds_done"])
            for r in self._q("SELECT id, name, status, rounds_done FROM cases WHERE run_id=?", (run_id,))
        }

    def _put_samples(self, case_id: int, samples: Iterable[Sample]) -> None:
        self._many("INSERT INTO samples (case_id, idx, warmup, iters, counter, total) VALUES (?,?,?,?,?,?)",
                            [(case_id, s.idx, int(s.warmup), s.iters, s.counter, s.total) for s in samples])

    def _put_results(self, case_id: int, results: Iterable[Result]) -> None:
        self._many(
            "INSERT INTO results (case_id, metric, unit, n, removed, median, mean, stdev, min, max, ci95_low,"
            " ci95_high) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(case_id, r.metric, r.unit, r.n, r.removed, r.median, r.mean, r.stdev, r.min, r.max, r.ci95_low,
              r.ci95_high) for r in results])

    def case_samples(self, case_id: int) -> list[Sample]:
        return [Sample(idx, bool(warm), iters, counter, total) for idx, warm, iters, counter, total in self._q(
            "SELECT idx, warmup, iters, counter, total FROM samples WHERE case_id=?", (case_id,))]

    def per_op_values(self, run_id: int, counter: str) -> dict[str, tuple[str, list[float]]]:
        """case name -> (status, the per-operation values of its measured batches
        of this counter, in batch order); every case of the run is there."""
        out: dict[str, tuple[str, list[float]]] = {}
        for name, status in self._q("SELECT name, status FROM cases WHERE run_id=? ORDER BY id", (run_id,)):
            out[name] = (status, [])
        rows = self._q(
            "SELECT c.name, s.total, s.iters FROM samples s JOIN cases c ON c.id = s.case_id"
            " WHERE c.run_id=? AND s.warmup=0 AND s.counter=? ORDER BY c.id, s.idx",
            (run_id, counter),
        )
        for name, total, iters in rows:
            out[name][1].append(total / iters)
        return out

    def sample_counters(self, run_id: int) -> set[str]:
        """Every counter (metric) with a stored sample in this run."""
        return {r[0] for r in self._q(
            "SELECT DISTINCT s.counter FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id=?", (run_id,))}

    def cases(self, run_id: int) -> list[Row]:
        return self._q(
            "SELECT * FROM cases WHERE run_id=? ORDER BY id", (run_id,)
        ).fetchall()

    def results(self, run_id: int) -> list[Row]:
        return self._q(
            "SELECT c.name, c.library, c.kind, c.alg, c.op, c.size, c.params_json, c.status,"
            " r.metric, r.unit, r.n, r.removed, r.median, r.mean, r.stdev, r.min, r.max,"
            " r.ci95_low, r.ci95_high"
            " FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id=? ORDER BY c.id, r.metric",
            (run_id,),
        ).fetchall()

    def samples(self, case_id: int) -> list[Row]:
        return self._q(
            "SELECT * FROM samples WHERE case_id=? ORDER BY warmup DESC, idx, counter", (case_id,)
        ).fetchall()


def _upsert(table: str, columns: tuple[str, ...], key_columns: int) -> str:
    """INSERT, or UPDATE the row with the same key (the first key_columns)."""
    keys, rest = columns[:key_columns], columns[key_columns:]
    return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})"
            f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET "
            + ", ".join(f"{c}=excluded.{c}" for c in rest))


def _insert(table: str, columns: tuple[str, ...]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})"


def _as_dict(row: Row) -> dict[str, Any]:
    return {k: row[k] for k in row.keys()}
