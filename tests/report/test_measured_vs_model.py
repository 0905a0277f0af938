"""tlsbench compare of a board's run (cycles from its DWT/SysTick counter)
and an emulated run of the same plan with the board's cycle model
(model_cycles): measured/model per case. The runs are FABRICATED (stored
by hand with chosen figures, no board and no emulator): this checks the
comparison's logic, not any board or the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.cli import main
from tlsbench.engine.case import Sample
from tlsbench.engine.store import Store
from tlsbench.report import compare, compare_text


def _fabricated_run(store: Store, target: str, counter: str, cases: dict[str, list[int]],
                    env: dict[str, str] | None = None) -> int:
    """A run whose cases measured ``counter`` with these per-batch totals (10 operations a batch)."""
    run = store.create_run(target=target, plan_name="p", plan_source="", plan={"method": {"env": env} if env else {}},
                           machine={"cpu_model": "-", "board": "nucleo-f103rb"}, version="1", keys={})
    for name, totals in cases.items():
        store.put_case(run, name=name, library="mbedtls", kind="hash", alg="sha256", op="hash", size=64,
                       params={}, status="ok", reason="", iters=10, started=0, transcript="",
                       samples=[Sample(i, False, 10, counter, t) for i, t in enumerate(totals)])
    return run


@pytest.fixture
def runs(db_path: Path) -> tuple[Store, int, int]:
    store = Store(db_path)
    board = _fabricated_run(store, "serial:/dev/ttyACM0", "cycles", {
        "sha256-64": [52_000, 52_010, 51_990], "aes-gcm-1k": [300_000, 300_000, 300_000], "only-board": [10]})
    model = _fabricated_run(store, "qemu:nucleo-f103rb-on-netduino2", "model_cycles", {
        "sha256-64": [40_000] * 3, "aes-gcm-1k": [320_000] * 3, "only-model": [10]})
    return store, board, model


def test_each_case_gets_measured_over_model(runs) -> None:
    store, board, model = runs
    for a, b in ((board, model), (model, board)):  # either order: the run with cycles is the measured one
        c = compare.compare(store, a, b)
        assert (c.measured_run, c.model_run) == (board, model)
        rows = {m.name: m for m in c.measured_vs_model}
        assert (rows["sha256-64"].measured, rows["sha256-64"].model) == (5_200, 4_000)
        assert rows["sha256-64"].ratio == pytest.approx(1.3)
        assert rows["aes-gcm-1k"].ratio == pytest.approx(30_000 / 32_000)
        assert (rows["only-board"].note, rows["only-board"].ratio) == ("measured only", None)
        assert (rows["only-model"].note, rows["only-model"].model) == ("model only", 1)


def test_the_text_shows_the_ratio_and_its_spread(runs) -> None:
    store, board, model = runs
    text = compare_text.render(compare.compare(store, board, model), "markdown")
    assert "### cycles measured on the board beside the cycle model" in text
    assert "measured/model over 2 cases: median 1.119, min 0.938, max 1.300" in text
    assert "| sha256-64 | 5,200 | 4,000 | 1.300 |  |" in text
    assert f"measured cycles/op (run {board})" in text


def test_two_runs_without_a_board_counter_have_no_such_section(db_path: Path) -> None:
    store = Store(db_path)
    a = _fabricated_run(store, "qemu:x", "model_cycles", {"c": [10]})
    b = _fabricated_run(store, "qemu:y", "model_cycles", {"c": [12]})
    c = compare.compare(store, a, b)
    assert c.measured_vs_model == [] and c.measured_run is None
    assert "beside the cycle model" not in compare_text.render(c)


def test_the_cli_prints_it(runs, db_path: Path, capsys) -> None:
    _, board, model = runs
    assert main(["--db", str(db_path), "compare", str(board), str(model)]) in (0, 1)
    out = capsys.readouterr().out
    assert "| aes-gcm-1k" not in out and "aes-gcm-1k" in out and "0.938" in out


def test_the_json_carries_the_rows_only_when_there_are_some(runs, db_path: Path) -> None:
    import json

    store, board, model = runs
    data = json.loads(compare_text.render(compare.compare(store, board, model), "json"))
    assert (data["measured_run"], data["model_run"]) == (board, model)
    assert {r["name"]: r["ratio"] for r in data["measured_vs_model"]}["sha256-64"] == pytest.approx(1.3)
    other = _fabricated_run(store, "qemu:y", "model_cycles", {"c": [12]})
    assert "measured_vs_model" not in json.loads(compare_text.render(compare.compare(store, model, other), "json"))


def test_the_model_runs_validated_error_stands_beside_the_ratios(db_path: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from tlsbench.targets import modelerror

    monkeypatch.setattr(modelerror, "DATA", tmp_path / "model-error.toml")
    modelerror.write({"cortex-m4": [(0.04, "l4-sha256"), (-0.10, "l4-gcm")]}, "figures.toml", "v.sqlite")
    store = Store(db_path)
    board = _fabricated_run(store, "serial:/dev/ttyACM0", "cycles", {"sha256-64": [52_000]})
    model = _fabricated_run(store, "qemu:mps2-an386", "model_cycles", {"sha256-64": [40_000]},
                            {"TLSBENCH_MODEL_BOARD": "nucleo-f446re"})
    c = compare.compare(store, board, model)
    line = ("the model's validated error: the model's error on 2 same-code cortex-m4 rows (published board figures"
            " of the same code): median 7%, largest 10% (l4-gcm); docs/cycle-model.md, Validation")
    assert line in compare_text.render(c).splitlines()
    assert "validated error" not in compare_text.render(compare.compare(store, board, _fabricated_run(
        store, "qemu:x", "model_cycles", {"sha256-64": [40_000]})))  # a model run without a board profile
