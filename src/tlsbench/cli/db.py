"""`tlsbench db`: check a results database (and salvage a damaged one), push runs into another store."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from tlsbench.engine.store import Store
from tlsbench.engine.store_backends import SQLITE
from tlsbench.errors import PlanError


def cmd_db_check(a: argparse.Namespace) -> int:
    from tlsbench.engine import store_salvage

    store = Store(a.db, read_only=True)
    try:
        damage = store.check(quick=False)
        if a.salvage and store.dialect is not SQLITE:
            raise PlanError("--salvage copies a SQLite file; a PostgreSQL server keeps its own consistency")
        if damage and a.salvage:
            copied = store_salvage.salvage(store, Path(a.salvage))
        elif damage:
            read = store_salvage.readable(store)
    finally:
        store.close()
    if not damage:
        print(f"{store.path}: ok ({store.check_name})" + ("; nothing to salvage" if a.salvage else ""))
        return 0
    print(f"{store.path}: damaged ({len(damage)} finding(s) of {store.check_name}):", file=sys.stderr)
    for line in damage[:20]:
        print(f"  {line}", file=sys.stderr)
    if a.salvage:
        print(f"salvaged into {a.salvage}: " + "; ".join(t.describe() for t in copied))
        print(f"check what it holds with: tlsbench runs --db {shlex.quote(a.salvage)}")
        return 0
    print("readable: " + "; ".join(t.describe() for t in read), file=sys.stderr)
    print(f"copy what is readable into a new file with: tlsbench db check --db {shlex.quote(str(store.path))}"
          " --salvage NEW.sqlite", file=sys.stderr)
    return 1


def cmd_db_push(a: argparse.Namespace) -> int:
    from tlsbench.engine import push

    source = Store(a.db, read_only=True)
    try:
        dest = Store(a.to)
        try:
            pushed = push.push(source, dest, a.runs)
        finally:
            dest.close()
    finally:
        source.close()
    for p in pushed:
        what = "pushed as" if p.copied else "already there as"
        print(f"run {p.run_id}: {what} run {p.dest_id} ({p.cases} cases)")
    copied = sum(p.copied for p in pushed)
    print(f"{copied} run(s) pushed, {len(pushed) - copied} already there, to {dest.path}")
    return 0


def add_parsers(sub: argparse._SubParsersAction, db: argparse.ArgumentParser) -> None:
    dbp = sub.add_parser("db", help="the results database")
    dbsub = dbp.add_subparsers(dest="db_command", required=True)
    ck = dbsub.add_parser("check", parents=[db], help="check the database file for damage (SQLite integrity_check);"
                          " a damaged file: what is still readable")
    ck.add_argument("--salvage", metavar="NEW", help="a damaged SQLite file: copy every readable row into this new"
                    " file (never overwritten), which a run can store into")
    ck.set_defaults(func=cmd_db_check)
    pu = dbsub.add_parser("push", parents=[db], help="copy finished runs from --db into another store (a team"
                          " store on PostgreSQL, or a SQLite file), keeping their identity: a run pushed twice is"
                          " copied once")
    pu.add_argument("runs", nargs="+", type=int, metavar="RUN", help="run ids in --db (tlsbench runs)")
    pu.add_argument("--to", required=True, metavar="DB", help="postgresql://user@host[:port]/dbname or a SQLite file")
    pu.set_defaults(func=cmd_db_push)
