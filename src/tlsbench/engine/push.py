"""tlsbench db push: copies finished runs from one store into another (a
team store on PostgreSQL, or another SQLite file), keeping each run's
identity, so pushing a run twice copies it once."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tlsbench.engine.store import RunRows, Store
from tlsbench.errors import StoreError


@dataclass(frozen=True)
class Pushed:
    run_id: int               # in the source store
    dest_id: int              # in the destination store
    copied: bool              # False: it was there already
    cases: int


def push(source: Store, dest: Store, run_ids: list[int]) -> list[Pushed]:
    """Each run in its own transaction on the destination: a failure midway
    leaves the runs before it pushed and none half-copied. A run whose cases
    reuse another run's outcomes (the result cache) names them by their ids
    in the destination; a run they come from that is not there yet is pushed
    first (listed before it)."""
    if str(source.path) == str(dest.path):
        raise StoreError(f"db push: --to {dest.path} is the store the runs are in; give another store")
    out: list[Pushed] = []
    for run_id in run_ids:
        out.append(_push_one(source, dest, run_id, out))
    return out


def _push_one(source: Store, dest: Store, run_id: int, out: list[Pushed], reused_by: int | None = None) -> Pushed:
    info = source.get_run(run_id)
    if info.status == "running":
        whose = f" (run {reused_by} reuses its cases)" if reused_by is not None else ""
        raise StoreError(f"db push: run {run_id}{whose} is not finished; finish it first "
                         f"(tlsbench run --resume {run_id}), then push it")
    uuid = source.run_uuid(run_id)
    there = dest.has_run(uuid)
    if there is not None:
        return Pushed(run_id, there, False, len(source.cases(run_id)))
    rows = _reuse_translated(source, dest, source.run_rows(run_id), run_id, out)
    dest_id = dest.put_run_rows(rows)
    if dest_id is None:  # another push got there between the look and the copy
        dest_id = dest.has_run(uuid)
        assert dest_id is not None
        return Pushed(run_id, dest_id, False, len(rows.cases))
    return Pushed(run_id, dest_id, True, len(rows.cases))


def _reuse_translated(source: Store, dest: Store, rows: RunRows, run_id: int, out: list[Pushed]) -> RunRows:
    """The run's rows with each reused case's reused_from (a case id in the source) made the id of
    that case in the destination (its run pushed first when it is not there)."""
    in_dest: dict[int, int] = {}
    for origin in sorted({c["reused_from"] for c, _ in rows.cases if c.get("reused_from") is not None}):
        found = source.case_run_and_name(origin)
        if found is None:
            raise StoreError(f"db push: run {run_id} reuses case {origin}, which {source.path} no longer holds")
        origin_run, name = found
        there = dest.has_run(source.run_uuid(origin_run))
        if there is None:
            pushed = _push_one(source, dest, origin_run, out, reused_by=run_id)
            out.append(pushed)
            there = pushed.dest_id
        case_id = dest.case_id_of(there, name)
        if case_id is None:
            raise StoreError(f"db push: run {run_id} reuses case {name} of run {origin_run}, which run {there}"
                             f" in {dest.path} does not hold")
        in_dest[origin] = case_id
    cases = [({**c, "reused_from": in_dest[c["reused_from"]]} if c.get("reused_from") is not None else c, children)
             for c, children in rows.cases]
    return dataclasses.replace(rows, cases=cases)
