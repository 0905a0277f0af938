"""A run made with a board profile's cycle model says so: the TLS per-side
table shows model cycles and model time beside the instructions, the missing
cycle counter is explained by the model, and `tlsbench runs` names the profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.cli import main
from tlsbench.engine.case import Result
from tlsbench.engine.store import Store
from tlsbench.families.tls import tables as tls_tables
from tlsbench.report import html as html_report
from tlsbench.report import tables as report
from tlsbench.targets import boardprofiles, cyclemodel

SUITE = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
QEMU_NOTE = "QEMU does not model cycles (DWT CYCCNT reads 0): instructions only"


def _r(metric: str, unit: str, value: float) -> Result:
    return Result.of(metric, unit, 3, 0, value, value, None, value, value, None, None)


def _stored(db: Path, model: bool) -> int:
    """A stored qemu:mps2-an500 TLS run, with the nucleo-f746zg cycle model or without one."""
    store = Store(db)
    profile = boardprofiles.load("nucleo-f746zg")
    env = cyclemodel.run_env(profile) if model else {}
    run = store.create_run(target="qemu:mps2-an500", plan_name="p", plan_source="",
                           plan={"method": {"repeats": 3, "warmup": 0, "outliers": "none", "min_sample_ms": 0,
                                            "timeout_s": 9, "rounds": 1, "env": env}},
                           machine={"board": "mps2-an500", "board_cpu": "cortex-m7"}, version="t", keys={})
    if model:
        store.put_board_profile(run, profile.name, profile.origin, profile.text, profile.sha256)
    store.put_library(run, "mbedtls", "mbedtls 1.0", "config", "test", "0" * 64, "instructions",
                      {"cycles": QEMU_NOTE})
    results = [_r("client_instructions", "instructions", 40_000_000), _r("server_instructions", "instructions",
                                                                          30_000_000)]
    if model:
        results += [_r("client_model_cycles", "model cycles", 54_000_000),
                    _r("client_model_time_ns", "model-ns", 250_000_000),
                    _r("server_model_cycles", "model cycles", 43_200_000),
                    _r("server_model_time_ns", "model-ns", 200_000_000)]
    store.put_case(run, name=f"mbedtls/tls/{SUITE}/p256/rsa2048-full", library="mbedtls", kind="tls", alg=SUITE,
                   op="p256/rsa2048-full", size=None, params={}, status="ok", reason="", iters=1, started=0,
                   transcript="", results=results)
    store.finish_run(run)
    store.close()
    return run


def _tls_table(db: Path, run: int) -> tuple[list[str], list[str]]:
    store = Store(db)
    data = report.load(store, run)
    store.close()
    header, body = tls_tables.tls_table(data)
    return header, body[0]


def test_the_tls_table_shows_model_cycles_and_time_per_side_beside_the_instructions(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    header, row = _tls_table(db, _stored(db, model=True))
    assert header[3:9] == ["client instructions", "server instructions", "client model cycles",
                           "server model cycles", "client model time", "server model time"]
    assert row[3:9] == ["40,000,000", "30,000,000", "54,000,000", "43,200,000", "250 ms", "200 ms"]


def test_a_run_without_a_model_has_no_model_columns(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    header, row = _tls_table(db, _stored(db, model=False))
    assert header[3:6] == ["client instructions", "server instructions", "C->S B"]
    assert not any("model" in h for h in header)


def test_no_qemu_cycles_note_beside_a_model_figure(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    model, plain = _stored(db, model=True), _stored(db, model=False)
    store = Store(db)
    with_model, without = report.load(store, model), report.load(store, plain)
    store.close()
    why = ("the emulator counts no core cycles; model_cycles and model time are the board profile's cycle model,"
           " computed from the instructions")
    text = report.render(with_model, "table", view="tls")
    assert f"  cycles: not measured on this target ({why})" in text.splitlines()
    assert "QEMU does not model cycles" not in text
    assert "QEMU does not model cycles" not in html_report.context(with_model)
    assert ("  model cycles and model time per side: a model, the board profile's cycle model applied to the side's"
            " instructions, not a measurement (its error against real boards: docs/cycle-model.md, Validation)"
            ) in text.splitlines()
    titles = {anchor: title for anchor, title, _html in html_report.tables(with_model)}
    assert titles["tls"] == f"TLS: per side (medians; n/m: not measured for that side; {tls_tables.TLS_MODEL_LEGEND})"
    assert {a: t for a, t, _h in html_report.tables(without)}["tls"] == (
        "TLS: per side (medians; n/m: not measured for that side)")
    plain_text = report.render(without, "table", view="tls")
    assert f"  cycles: not measured on this target ({QEMU_NOTE})" in plain_text.splitlines()
    assert "model cycles and model time" not in plain_text


def test_runs_names_the_board_profile_of_a_model_run(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    db = tmp_path / "r.sqlite"
    _stored(db, model=True), _stored(db, model=False)
    assert main(["--db", str(db), "runs"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert [r[:6] for r in rows[1:]] == [["1", *rows[1][1:3], "complete", "qemu:mps2-an500", "nucleo-f746zg"],
                                         ["2", *rows[2][1:3], "complete", "qemu:mps2-an500", "mps2-an500"]]
    assert rows[1][6] == "(model)"
