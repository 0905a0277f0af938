"""The runs of the results store: a run's record, its labels, libraries, board
profile, code sizes and checks."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tlsbench.engine import labels as run_labels
from tlsbench.engine.store_base import Row, StoreBase, as_dict, upsert
from tlsbench.errors import StoreError

# A finished run in which no case came out ok: marked so, and `run` exits non-zero.
NOTHING_MEASURED = "nothing measured"


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


class RunTables(StoreBase):
    """runs, run_labels, run_libraries, run_board_profiles, code_sizes, checks."""

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
        self._many(upsert("run_labels", ("run_id", "label", "value"), 2),
                   [(run_id, k, v) for k, v in sorted(labels.items())])

    def labels(self, run_id: int) -> dict[str, str]:
        return {r[0]: r[1] for r in self._q("SELECT label, value FROM run_labels WHERE run_id=? ORDER BY label",
                                            (run_id,))}

    def all_labels(self) -> dict[int, dict[str, str]]:
        out: dict[int, dict[str, str]] = {}
        for run_id, label, value in self._q("SELECT run_id, label, value FROM run_labels ORDER BY run_id, label"):
            out.setdefault(run_id, {})[label] = value
        return out

    # ---- libraries and checks ----
    def put_library(self, run_id: int, library: str, version: str, config: str, source: str,
                    agent_sha256: str, counters: str, counters_missing: dict[str, str]) -> None:
        with self._tx():
            self._q(
                upsert("run_libraries", ("run_id", "library", "version", "config", "source", "agent_sha256",
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
            self._q(upsert("run_board_profiles", ("run_id", "name", "origin", "text", "sha256"), 1),
                    (run_id, name, origin, text, sha256))

    def board_profile(self, run_id: int) -> dict[str, Any] | None:
        """The stored board profile of a run with a cycle model (None: none, or a run stored before)."""
        row = self._q("SELECT name, origin, text, sha256 FROM run_board_profiles WHERE run_id=?", (run_id,)).fetchone()
        return None if row is None else as_dict(row)

    def put_code_sizes(self, run_id: int, library: str, parts: Iterable[tuple[str, int, int]]) -> None:
        with self._tx():
            self._many(upsert("code_sizes", ("run_id", "library", "component", "flash_bytes", "ram_bytes"), 3),
                                [(run_id, library, *p) for p in parts])

    def code_sizes(self, run_id: int) -> list[Row]:
        return self._q(
            f"SELECT * FROM code_sizes WHERE run_id=? ORDER BY library, {self.dialect.insertion_order}", (run_id,)
        ).fetchall()

    def put_checks(self, run_id: int, rows: Iterable[tuple[str, str, str, str, str]]) -> None:
        with self._tx():
            self._many(
                upsert("checks", ("run_id", "library", "kind", "alg", "status", "detail"), 4),
                [(run_id, *r) for r in rows],
            )

    def checks(self, run_id: int) -> list[Row]:
        return self._q(
            "SELECT * FROM checks WHERE run_id=? ORDER BY library, kind, alg", (run_id,)
        ).fetchall()
