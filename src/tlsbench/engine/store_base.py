"""What every part of the results store shares: its connection and dialect,
one statement or many inside a transaction, and the INSERT/UPSERT text the
parts build (engine/store.py puts the parts together)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from tlsbench.engine.store_backends import Dialect
from tlsbench.engine.store_schema import transaction

Row = Any  # sqlite3.Row or store_backends.Row: by position or by column name


class StoreBase:
    """The connection the parts of Store (runs, copies, cases, the result cache) read and write."""

    db: Any  # sqlite3.Connection or a psycopg connection
    dialect: Dialect
    path: Path | str  # a SQLite file, or a PostgreSQL URL without its password

    def _tx(self) -> AbstractContextManager[Any]:
        return transaction(self.db, self.dialect)

    def _q(self, sql: str, params: tuple | list = ()) -> Any:
        return self.db.execute(self.dialect.sql(sql), params)

    def _many(self, sql: str, rows: list) -> None:
        if rows:
            self.db.cursor().executemany(self.dialect.sql(sql), rows)


def upsert(table: str, columns: tuple[str, ...], key_columns: int) -> str:
    """INSERT, or UPDATE the row with the same key (the first key_columns)."""
    keys, rest = columns[:key_columns], columns[key_columns:]
    return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})"
            f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET "
            + ", ".join(f"{c}=excluded.{c}" for c in rest))


def insert(table: str, columns: tuple[str, ...]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})"


def as_dict(row: Row) -> dict[str, Any]:
    return {k: row[k] for k in row.keys()}
