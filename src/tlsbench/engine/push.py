"""tlsbench db push: copies finished runs from one store into another (a
team store on PostgreSQL, or another SQLite file), keeping each run's
identity, so pushing a run twice copies it once."""

from __future__ import annotations

from dataclasses import dataclass

from tlsbench.engine.store import Store
from tlsbench.errors import StoreError


@dataclass(frozen=True)
class Pushed:
    run_id: int               # in the source store
    dest_id: int              # in the destination store
    copied: bool              # False: it was there already
    cases: int


def push(source: Store, dest: Store, run_ids: list[int]) -> list[Pushed]:
    """Each run in its own transaction on the destination: a failure midway
    leaves the runs before it pushed and none half-copied."""
    if str(source.path) == str(dest.path):
        raise StoreError(f"db push: --to {dest.path} is the store the runs are in; give another store")
    out = []
    for run_id in run_ids:
        info = source.get_run(run_id)
        if info.status == "running":
            raise StoreError(f"db push: run {run_id} is not finished; finish it first "
                             f"(tlsbench run --resume {run_id}), then push it")
        uuid = source.run_uuid(run_id)
        there = dest.has_run(uuid)
        if there is not None:
            out.append(Pushed(run_id, there, False, len(source.cases(run_id))))
            continue
        rows = source.run_rows(run_id)
        dest_id = dest.put_run_rows(rows)
        if dest_id is None:  # another push got there between the look and the copy
            dest_id = dest.has_run(uuid)
            assert dest_id is not None
            out.append(Pushed(run_id, dest_id, False, len(rows.cases)))
        else:
            out.append(Pushed(run_id, dest_id, True, len(rows.cases)))
    return out
