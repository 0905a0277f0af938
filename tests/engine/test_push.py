"""tlsbench db push: runs copied into another store (a SQLite file, or a
PostgreSQL database on the tests' own server) keep their identity and every
row, and a second push copies nothing. The runs are made through the store
API (no agent runs): what is tested is the copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.cli import main
from tlsbench.engine.case import Result, Sample
from tlsbench.engine.store import Store


def _fabricated_run(store: Store, n: int) -> int:
    run = store.create_run(target="host", plan_name=f"p{n}", plan_source="[plan]", plan={"n": n},
                           machine={"hostname": "h", "tlsbench": "0.1+abc1234"}, version="v", keys={"k": n},
                           labels={"batch": str(n)})
    store.put_library(run, "openssl", "3.0.15", "cfg", "src", "00" * 32, "wall_ns", {})
    store.put_checks(run, [("openssl", "hash", "sha256", "pass", "")])
    store.put_code_sizes(run, "openssl", [("library", 1000 + n, 10), ("adapter", 200, 0)])
    store.put_board_profile(run, "my-board", f"/boards/my-board-{n}.toml", f"clock_hz = {n}", "ab" * 32)
    for i, name in enumerate(("openssl/hash/sha256/hash/64", "openssl/hash/sha512/hash/64")):
        store.put_case(run, name=name, library="openssl", kind="hash", alg=name.split("/")[2], op="hash", size=64,
                       params={}, status="ok", reason="", iters=100, started=float(i), transcript=f"t{i}",
                       samples=[Sample.one(j, "wall_ns", 1000 * (j + 1) + n) for j in range(3)],
                       results=[Result.of("wall_ns", "ns", 3, 0, 20.0 + n, 20.0, 1.0, 10.0, 30.0, 15.0, 25.0)],
                       round_info={"stack_at": 8, "attempts": 1})
    store.finish_run(run)
    return run


def _content(store: Store, run_id: int) -> tuple:
    """A run's rows without the ids local to one store."""
    rows = store.run_rows(run_id)
    strip = lambda r: {k: v for k, v in r.items() if k not in ("id", "run_id", "case_id")}  # noqa: E731
    return (strip(rows.run), {t: [strip(r) for r in rs] for t, rs in rows.per_run.items()},
            [(strip(c), {t: [strip(r) for r in rs] for t, rs in ch.items()}) for c, ch in rows.cases])


def test_push_copies_runs_once(tmp_path: Path, store_where: str, capsys: pytest.CaptureFixture) -> None:
    local = tmp_path / "local.sqlite"
    source = Store(local)
    runs = [_fabricated_run(source, n) for n in (1, 2)]
    assert main(["--db", str(local), "db", "push", "1", "2", "--to", store_where]) == 0
    first = capsys.readouterr().out
    assert "2 run(s) pushed, 0 already there" in first
    assert main(["--db", str(local), "db", "push", "2", "1", "--to", store_where]) == 0
    second = capsys.readouterr().out
    assert "0 run(s) pushed, 2 already there" in second
    assert "run 2: already there as run 2 (2 cases)" in second
    dest = Store(store_where)
    assert [r["id"] for r in dest.list_runs()] == [1, 2]
    for run in runs:
        assert _content(dest, run) == _content(source, run)
        assert dest.run_uuid(run) == source.run_uuid(run)
        assert dest.labels(run)["batch"] == str(run)
    # a run made in the destination meanwhile: the next pushed run takes the next id there
    _fabricated_run(dest, 3)
    third = _fabricated_run(source, 4)
    assert main(["--db", str(local), "db", "push", str(third), "--to", store_where]) == 0
    assert f"run {third}: pushed as run 4 (2 cases)" in capsys.readouterr().out
    assert _content(dest, 4) == _content(source, third)
    dest.close()


def test_push_refuses_an_unfinished_run_and_the_same_store(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    local = tmp_path / "local.sqlite"
    source = Store(local)
    run = source.create_run(target="host", plan_name="p", plan_source="", plan={}, machine={}, version="v", keys={})
    assert main(["--db", str(local), "db", "push", str(run), "--to", str(tmp_path / "team.sqlite")]) == 2
    assert "run 1 is not finished; finish it first (tlsbench run --resume 1)" in capsys.readouterr().err
    assert main(["--db", str(local), "db", "push", str(run), "--to", str(local)]) == 2
    assert "is the store the runs are in" in capsys.readouterr().err
    assert main(["--db", str(local), "db", "push", "9", "--to", str(tmp_path / "team.sqlite")]) == 2
    assert "no run 9" in capsys.readouterr().err


def _run_reusing(store: Store, origin: int) -> int:
    """A finished run whose every case reuses the case of the same name in run ``origin`` (the result cache)."""
    run = store.create_run(target="qemu:mps2-an386", plan_name="again", plan_source="[plan]", plan={},
                           machine={"hostname": "h"}, version="v", keys={})
    for case in store.cases(origin):
        store.put_case(run, name=case["name"], library=case["library"], kind=case["kind"], alg=case["alg"],
                       op=case["op"], size=case["size"], params={}, status=case["status"], reason="",
                       iters=case["iters"], started=1.0, transcript=case["transcript"], cache_key="k" + case["name"],
                       reused_from=int(case["id"]))
    store.finish_run(run)
    return run


def test_push_names_the_reused_cases_by_their_ids_there(tmp_path: Path, store_where: str,
                                                         capsys: pytest.CaptureFixture) -> None:
    """A reused case's reused_from names a case of the destination, the same case by name in the same run by
    identity; the run it reuses goes first when it is not there, and once."""
    local = tmp_path / "local.sqlite"
    source = Store(local)
    origin = _fabricated_run(source, 1)
    again = _run_reusing(source, origin)
    source.close()
    dest = Store(store_where)
    _fabricated_run(dest, 7)  # ids there differ from the source's: a copied id would name run 1's cases
    assert main(["--db", str(local), "db", "push", str(again), "--to", store_where]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == ["run 1: pushed as run 2 (2 cases)", "run 2: pushed as run 3 (2 cases)"]
    assert "2 run(s) pushed, 0 already there" in out
    origin_there = {c["name"]: c["id"] for c in dest.cases(2)}
    assert sorted(origin_there.values()) == [3, 4]
    assert dest.reuse_marks(3) == origin_there
    assert main(["--db", str(local), "db", "push", str(origin), str(again), "--to", store_where]) == 0
    assert "0 run(s) pushed, 2 already there" in capsys.readouterr().out
    dest.close()
