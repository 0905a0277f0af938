"""Runs copied between results stores as rows: `tlsbench db push` (a run under a
new id, once per identity) and the salvage of a damaged file (rows as read)."""

from __future__ import annotations

import sqlite3
from typing import Any

from tlsbench.engine.store_base import as_dict, insert
from tlsbench.engine.store_runs import RunRows, RunTables
from tlsbench.engine.store_schema import CASE_TABLES, RUN_TABLES


class RunCopies(RunTables):
    """A run's rows out of one store and into another."""

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
        per_run = {t: [as_dict(r) for r in self._q(f"SELECT * FROM {t} WHERE run_id=? ORDER BY {order}", (run_id,))]
                   for t in RUN_TABLES}
        cases = []
        for case in self._q("SELECT * FROM cases WHERE run_id=? ORDER BY id", (run_id,)).fetchall():
            children = {t: [as_dict(r) for r in self._q(f"SELECT * FROM {t} WHERE case_id=? ORDER BY {order}",
                                                         (case["id"],))]
                        for t in CASE_TABLES}
            cases.append((as_dict(case), children))
        return RunRows(as_dict(run), per_run, cases)

    def put_run_rows(self, rows: RunRows) -> int | None:
        """Stores a copied run under a new local id, in one transaction;
        None (and nothing written) when a run with its identity is here."""
        with self._tx():
            if self.has_run(rows.run["uuid"]) is not None:
                return None
            run = {k: v for k, v in rows.run.items() if k != "id"}
            run_id = int(self._q(insert("runs", tuple(run)) + " RETURNING id", tuple(run.values())).fetchone()[0])
            for table, table_rows in rows.per_run.items():
                self._put_rows(table, [{**r, "run_id": run_id} for r in table_rows])
            for case, children in rows.cases:
                values = {k: v for k, v in case.items() if k != "id"} | {"run_id": run_id}
                case_id = int(self._q(insert("cases", tuple(values)) + " RETURNING id",
                                      tuple(values.values())).fetchone()[0])
                for table, table_rows in children.items():
                    self._put_rows(table, [{**r, "case_id": case_id} for r in table_rows])
        return run_id

    def _put_rows(self, table: str, rows: list[dict[str, Any]]) -> None:
        if rows:
            columns = tuple(rows[0])
            self._many(insert(table, columns), [tuple(r[c] for c in columns) for r in rows])

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
            self._many(insert(table, tuple(columns)), rows)
