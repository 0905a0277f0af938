"""The results store: SQLite, versioned schema, written case by case.

Every case is committed in its own transaction as soon as it is measured,
so a killed run keeps what it measured and ``tlsbench run --resume RUN``
finishes it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths
from tlsbench.engine.case import Result, Sample
from tlsbench.engine.store_faults import run_lock, translated
from tlsbench.errors import StoreError

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
]
SCHEMA_VERSION = len(MIGRATIONS)
# how long a write waits for another process holding the database
BUSY_TIMEOUT_S = 30.0


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


def _version(db: sqlite3.Connection) -> int:
    return db.execute("PRAGMA user_version").fetchone()[0]


def migrate(db: sqlite3.Connection, migrations: list[str] = MIGRATIONS) -> None:
    current = _version(db)
    if current > len(migrations):
        raise StoreError(
            f"database schema version {current} is newer than this tlsbench "
            f"({len(migrations)}): upgrade tlsbench"
        )
    for i in range(current, len(migrations)):
        with db:
            db.executescript("BEGIN;" + migrations[i] + f"; PRAGMA user_version = {i + 1};")


class Store:
    def __init__(self, path: Path):
        self.path = path
        if path == paths.default_database():
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.parent.is_dir():  # a mistyped --db path is not quietly made
            raise StoreError(f"results database {path}: its folder {path.parent} does not exist")
        with translated(path):
            self.db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA foreign_keys = ON")
            migrate(self.db)

    def check(self, quick: bool = True) -> list[str]:
        """SQLite's own consistency check: [] when the file is sound, else its
        findings (quick_check skips the index-content cross-check: fast
        enough to run before every resume)."""
        pragma = "quick_check" if quick else "integrity_check"
        with translated(self.path):
            rows = [r[0] for r in self.db.execute(f"PRAGMA {pragma}")]
        return [] if rows == ["ok"] else rows

    def lock_run(self, run_id: int) -> AbstractContextManager[None]:
        """Held while this process measures the run (a second one is refused)."""
        return run_lock(self.path, run_id)

    def close(self) -> None:
        self.db.close()

    # ---- runs ----
    def create_run(self, *, target: str, plan_name: str, plan_source: str, plan: dict,
                   machine: dict, version: str, keys: dict) -> int:
        with self.db:
            cur = self.db.execute(
                "INSERT INTO runs (created, status, target, plan_name, plan_source, plan_json,"
                " machine_json, tlsbench_version, keys_json) VALUES (?,?,?,?,?,?,?,?,?)",
                (time.time(), "running", target, plan_name, plan_source, json.dumps(plan),
                 json.dumps(machine), version, json.dumps(keys)),
            )
        return int(cur.lastrowid)

    def finish_run(self, run_id: int) -> str:
        """Marks the run finished: 'complete', or NOTHING_MEASURED when no case
        came out ok (every case failed, or nothing could run: no firmware, no
        board). Returns the status."""
        with self.db:
            ok = self.db.execute("SELECT count(*) FROM cases WHERE run_id=? AND status='ok'", (run_id,)).fetchone()[0]
            status = "complete" if ok else NOTHING_MEASURED
            self.db.execute("UPDATE runs SET status=?, finished=? WHERE id=?", (status, time.time(), run_id))
        return status

    def get_run(self, run_id: int) -> RunInfo:
        row = self.db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            known = [r[0] for r in self.db.execute("SELECT id FROM runs ORDER BY id DESC LIMIT 5")]
            hint = f" (latest: {', '.join(map(str, known))})" if known else " (the database has no runs)"
            raise StoreError(f"no run {run_id} in {self.path}{hint}")
        return RunInfo(
            id=row["id"], created=row["created"], finished=row["finished"], status=row["status"],
            target=row["target"], plan_name=row["plan_name"], plan_source=row["plan_source"],
            plan=self._json(row, "plan_json"), machine=self._json(row, "machine_json"),
            tlsbench_version=row["tlsbench_version"], keys=self._json(row, "keys_json"),
        )

    def _json(self, row: sqlite3.Row, column: str) -> dict:
        try:
            return json.loads(row[column])
        except (ValueError, TypeError):
            raise StoreError(f"results database {self.path}: run {row['id']} is damaged ({column} is not JSON): "
                             "see `tlsbench db check`") from None

    def latest_run_id(self) -> int:
        row = self.db.execute("SELECT max(id) FROM runs").fetchone()
        if row[0] is None:
            raise StoreError(f"the database {self.path} has no runs yet")
        return int(row[0])

    def list_runs(self) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT r.id, r.created, r.finished, r.status, r.target, r.plan_name, r.tlsbench_version,"
            " json_extract(r.machine_json, '$.board') AS board,"
            " (SELECT count(*) FROM cases c WHERE c.run_id=r.id) AS cases,"
            " (SELECT count(*) FROM cases c WHERE c.run_id=r.id AND c.status='ok') AS ok"
            " FROM runs r ORDER BY r.id"
        ).fetchall()

    # ---- libraries and checks ----
    def put_library(self, run_id: int, library: str, version: str, config: str, source: str,
                    agent_sha256: str, counters: str, counters_missing: dict[str, str]) -> None:
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO run_libraries VALUES (?,?,?,?,?,?,?,?)",
                (run_id, library, version, config, source, agent_sha256, counters,
                 json.dumps(counters_missing)),
            )

    def libraries(self, run_id: int) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT * FROM run_libraries WHERE run_id=? ORDER BY library", (run_id,)
        ).fetchall()

    def put_code_sizes(self, run_id: int, library: str, parts: Iterable[tuple[str, int, int]]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO code_sizes VALUES (?,?,?,?,?)",
                                [(run_id, library, *p) for p in parts])

    def code_sizes(self, run_id: int) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT * FROM code_sizes WHERE run_id=? ORDER BY library, rowid", (run_id,)
        ).fetchall()

    def put_checks(self, run_id: int, rows: Iterable[tuple[str, str, str, str, str]]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO checks VALUES (?,?,?,?,?,?)",
                [(run_id, *r) for r in rows],
            )

    def checks(self, run_id: int) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT * FROM checks WHERE run_id=? ORDER BY library, kind, alg", (run_id,)
        ).fetchall()

    # ---- cases ----
    def forget_failed(self, run_id: int) -> None:
        """Drops failed cases (with their samples) so a resume measures them again."""
        with self.db:
            ids = [r[0] for r in self.db.execute(
                "SELECT id FROM cases WHERE run_id=? AND status='failed'", (run_id,))]
            for table in ("samples", "results", "case_rounds"):
                self.db.executemany(f"DELETE FROM {table} WHERE case_id=?", [(i,) for i in ids])
            self.db.executemany("DELETE FROM cases WHERE id=?", [(i,) for i in ids])

    def put_case(self, run_id: int, *, name: str, library: str, kind: str, alg: str, op: str,
                 size: int | None, params: dict, status: str, reason: str, iters: int | None,
                 started: float, transcript: str,
                 samples: Iterable[Sample] = (),
                 results: Iterable[Result] = (), rounds_done: int = 1, round_info: dict | None = None) -> int:
        """One transaction per case (or round): all of it is stored, or none of it."""
        with self.db:
            cur = self.db.execute(
                "INSERT INTO cases (run_id, name, library, kind, alg, op, size, params_json, status,"
                " reason, iters, started, finished, transcript, rounds_done)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (run_id, name, library, kind, alg, op, size, json.dumps(params), status, reason,
                 iters, started, time.time(), transcript, rounds_done),
            )
            case_id = int(cur.lastrowid)
            self._put_samples(case_id, samples)
            self._put_results(case_id, results)
            self._put_round_info(case_id, rounds_done - 1, round_info)
        return case_id

    def _put_round_info(self, case_id: int, rnd: int, info: dict | None) -> None:
        if info is None:
            return
        self.db.execute(
            "INSERT OR REPLACE INTO case_rounds VALUES (?,?,?,?,?,?,?,?)",
            (case_id, rnd, info.get("stack_at"), info.get("heap_shift"), info.get("reference_ns"),
             info.get("best_reference_ns"), info.get("attempts", 1), int(bool(info.get("slow")))),
        )

    def case_rounds(self, run_id: int) -> list[sqlite3.Row]:
        """Every stored round's placement and pace, with its case's name."""
        return self.db.execute(
            "SELECT c.name, r.* FROM case_rounds r JOIN cases c ON c.id = r.case_id WHERE c.run_id=?"
            " ORDER BY c.id, r.round", (run_id,)).fetchall()

    def add_round(self, case_id: int, *, status: str, reason: str, transcript: str,
                  samples: Iterable[Sample], results: Iterable[Result], rounds_done: int,
                  round_info: dict | None = None) -> None:
        """A later round of a case: its batches, the case's new state and (after
        the last round) its results, in one transaction."""
        with self.db:
            self.db.execute(
                "UPDATE cases SET status=?, reason=?, finished=?, rounds_done=?,"
                " transcript=transcript || ? WHERE id=?",
                (status, reason, time.time(), rounds_done, f"\n--- round {rounds_done} ---\n" + transcript,
                 case_id),
            )
            self._put_samples(case_id, samples)
            self.db.execute("DELETE FROM results WHERE case_id=?", (case_id,))
            self._put_results(case_id, results)
            self._put_round_info(case_id, rounds_done - 1, round_info)

    def case_progress(self, run_id: int) -> dict[str, tuple[int, str, int]]:
        return {
            r["name"]: (r["id"], r["status"], r["rounds_done"])
            for r in self.db.execute("SELECT id, name, status, rounds_done FROM cases WHERE run_id=?", (run_id,))
        }

    def _put_samples(self, case_id: int, samples: Iterable[Sample]) -> None:
        self.db.executemany("INSERT INTO samples (case_id, idx, warmup, iters, counter, total) VALUES (?,?,?,?,?,?)",
                            [(case_id, s.idx, int(s.warmup), s.iters, s.counter, s.total) for s in samples])

    def _put_results(self, case_id: int, results: Iterable[Result]) -> None:
        self.db.executemany(
            "INSERT INTO results (case_id, metric, unit, n, removed, median, mean, stdev, min, max, ci95_low,"
            " ci95_high) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(case_id, r.metric, r.unit, r.n, r.removed, r.median, r.mean, r.stdev, r.min, r.max, r.ci95_low,
              r.ci95_high) for r in results])

    def case_samples(self, case_id: int) -> list[Sample]:
        return [Sample(idx, bool(warm), iters, counter, total) for idx, warm, iters, counter, total in self.db.execute(
            "SELECT idx, warmup, iters, counter, total FROM samples WHERE case_id=?", (case_id,))]

    def per_op_values(self, run_id: int, counter: str) -> dict[str, tuple[str, list[float]]]:
        """case name -> (status, the per-operation values of its measured batches
        of this counter, in batch order); every case of the run is there."""
        out: dict[str, tuple[str, list[float]]] = {}
        for name, status in self.db.execute("SELECT name, status FROM cases WHERE run_id=? ORDER BY id", (run_id,)):
            out[name] = (status, [])
        rows = self.db.execute(
            "SELECT c.name, s.total, s.iters FROM samples s JOIN cases c ON c.id = s.case_id"
            " WHERE c.run_id=? AND s.warmup=0 AND s.counter=? ORDER BY c.id, s.idx",
            (run_id, counter),
        )
        for name, total, iters in rows:
            out[name][1].append(total / iters)
        return out

    def sample_counters(self, run_id: int) -> set[str]:
        """Every counter (metric) with a stored sample in this run."""
        return {r[0] for r in self.db.execute(
            "SELECT DISTINCT s.counter FROM samples s JOIN cases c ON c.id = s.case_id WHERE c.run_id=?", (run_id,))}

    def cases(self, run_id: int) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT * FROM cases WHERE run_id=? ORDER BY id", (run_id,)
        ).fetchall()

    def results(self, run_id: int) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT c.name, c.library, c.kind, c.alg, c.op, c.size, c.params_json, c.status,"
            " r.metric, r.unit, r.n, r.removed, r.median, r.mean, r.stdev, r.min, r.max,"
            " r.ci95_low, r.ci95_high"
            " FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id=? ORDER BY c.id, r.metric",
            (run_id,),
        ).fetchall()

    def samples(self, case_id: int) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT * FROM samples WHERE case_id=? ORDER BY warmup DESC, idx, counter", (case_id,)
        ).fetchall()
