"""What a damaged results database still holds, and a copy of it into a new
file: table by table, each read row by row as far as SQLite can read it.

SQLite's own `.recover` (sqlite3 shell 3.40) stops with "SQL logic error" on
a file whose b-tree pages are damaged the way a torn write leaves them, and
saves nothing; reading each table through Python's sqlite3 saves every row
before the first damaged page of each table. A row whose parent (its run, its
case) was lost is left out: a later run would take the lost id and inherit it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tlsbench.engine.store import CASE_TABLES, RUN_TABLES, Store
from tlsbench.engine.store_faults import removed_on_error
from tlsbench.errors import StoreError

# parents first: a row is kept only when its parent was
TABLES = ("runs", *RUN_TABLES, "cases", *CASE_TABLES)


@dataclass
class TableRead:
    table: str
    rows: int                 # rows read (salvage: rows copied)
    error: str = ""           # what stopped the reading, "" when the whole table was read
    orphans: int = 0          # salvage: rows left out because their run or case was lost

    def describe(self) -> str:
        text = f"{self.table} {self.rows} row(s)"
        if self.orphans:
            text += f" (and {self.orphans} left out: their run or case was lost)"
        return text + (f", then: {self.error}" if self.error else "")


def readable(store: Store) -> list[TableRead]:
    """How many rows of each of tlsbench's tables can be read, and where reading stopped."""
    out = []
    for table in TABLES:
        _, rows, error = store.readable_rows(table)
        out.append(TableRead(table, len(rows), error))
    return out


def _parent(table: str) -> str:
    return "run_id" if table in (*RUN_TABLES, "cases") else "case_id" if table in CASE_TABLES else ""


def salvage(damaged: Store, new: Path) -> list[TableRead]:
    """Copies every readable row into a new database file at ``new`` (which must not exist)."""
    if new.exists():
        raise StoreError(f"--salvage {new}: the file exists; give a new file (nothing is overwritten)")
    if not new.parent.is_dir():
        raise StoreError(f"--salvage {new}: its folder {new.parent} does not exist")
    out = []
    with removed_on_error(new):  # a salvage that fails half-way (a full disk) leaves no file
        dest = Store(new)
        try:
            kept: dict[str, set] = {"run_id": set(), "case_id": set()}
            for table in TABLES:
                columns, rows, error = damaged.readable_rows(table)
                known = dest.columns(table)
                at = {c: i for i, c in enumerate(columns) if c in known}
                parent = _parent(table)
                good = [r for r in rows if not parent or r[at[parent]] in kept[parent]]
                if table in ("runs", "cases"):
                    kept["run_id" if table == "runs" else "case_id"] = {r[at["id"]] for r in good}
                if good:
                    dest.put_rows_as_read(table, list(at), [tuple(r[i] for i in at.values()) for r in good])
                out.append(TableRead(table, len(good), error, len(rows) - len(good)))
        finally:
            dest.close()
    return out
