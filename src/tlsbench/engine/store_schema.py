"""The results store's schema: its migrations, version by version, and the
tables a run's rows hang off (engine/store.py opens and upgrades a database
through these)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from tlsbench.engine.store_backends import POSTGRES, SQLITE, Dialect
from tlsbench.errors import StoreError

# Each migration takes the schema from version i to i+1. Never edit one that
# has shipped: add a new one.
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

# the tables that hang off a run, and those that hang off its cases
RUN_TABLES = ("run_libraries", "checks", "code_sizes", "run_labels", "run_board_profiles")
CASE_TABLES = ("samples", "results", "case_rounds")


def schema_version(db: Any, dialect: Dialect = SQLITE) -> int:
    return db.execute(dialect.version_sql).fetchone()[0]


def transaction(db: Any, dialect: Dialect) -> AbstractContextManager[Any]:
    """sqlite3's connection commits on leaving its with-block; psycopg's
    (in autocommit mode) opens a transaction block."""
    return db.transaction() if dialect is POSTGRES else db


def migrate(db: Any, migrations: list[str] = MIGRATIONS, dialect: Dialect = SQLITE) -> None:
    if dialect.prologue:
        db.execute(dialect.prologue)
    current = schema_version(db, dialect)
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
            with transaction(db, dialect):
                db.execute(dialect.ddl(migrations[i]))
                db.execute(dialect.set_version_sql.format(n=i + 1))
