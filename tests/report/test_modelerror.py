"""The model's measured error per core class: the file scripts/validate-model
writes, and the reports that print it beside a model figure (or say that it
is not measured for the core)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from test_model_report import _stored

from tlsbench import paths
from tlsbench.engine.case import Case, Measured, Result
from tlsbench.engine.runner import json_rows
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.report import html as html_report
from tlsbench.report import resultsdoc
from tlsbench.report import tables as report
from tlsbench.studies import boardresults
from tlsbench.targets import boardprofiles, cyclemodel, modelerror

ERRORS = {"cortex-m7": [(0.34, "h7-sha256"), (-0.16, "h7-ed25519"), (0.08, "h7-verify"), (0.18, "h7-gcm")],
          "cortex-m4": [(0.05, "l4-sha256")]}


@pytest.fixture
def bands_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "model-error.toml"
    monkeypatch.setattr(modelerror, "DATA", path)
    modelerror.write(ERRORS, "docs/data/published-figures.toml", ".tlsbench/validation.sqlite")
    return path


def test_the_file_holds_each_cores_median_and_worst_absolute_error(bands_file: Path) -> None:
    text = bands_file.read_text()
    assert text.splitlines()[6:13] == [
        '[cores."cortex-m4"]', "rows = 1", "median_abs_error_pct = 5.0", "worst_abs_error_pct = 5.0",
        'worst_row = "l4-sha256"', 'row_errors_pct = {"l4-sha256" = 5.0}', ""]
    m7 = modelerror.bands()["cortex-m7"]
    # |errors| 8, 16, 18, 34: the median of an even count is the mean of the middle two
    assert (m7.rows, m7.median_pct, m7.worst_pct, m7.worst_row) == (4, 17.0, 34.0, "h7-sha256")


def test_a_core_with_no_same_code_row_says_not_measured(bands_file: Path) -> None:
    assert modelerror.short("cortex-m7") == "model error 17% median, 34% worst on 4 rows"
    assert modelerror.short("cortex-m33") == "model error not measured for this core"
    assert modelerror.sentence("cortex-m33") == (
        "the model's error is not measured for cortex-m33: no published board figure of the same code (library,"
        " version, build and -O level) has been run for it (docs/cycle-model.md, Validation)")


def test_a_damaged_file_names_itself_and_the_missing_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[cores."cortex-m4"]\nrows = 3\n')
    with pytest.raises(PlanError, match=rf"^{path}: \[cores.cortex-m4\] needs rows, median_abs_error_pct,"):
        modelerror.bands(path)


def test_a_model_runs_report_prints_its_cores_error_beside_the_model(tmp_path: Path, bands_file: Path) -> None:
    db = tmp_path / "r.sqlite"
    model, plain = _stored(db, model=True), _stored(db, model=False)  # nucleo-f746zg: a Cortex-M7
    store = Store(db)
    with_model, without = report.load(store, model), report.load(store, plain)
    store.close()
    line = ("  model error: the model's error on 4 same-code cortex-m7 rows (published board figures of the same"
            " code): median 17%, largest 34% (h7-sha256); docs/cycle-model.md, Validation")
    assert line in report.render(with_model, "table", view="tls").splitlines()
    assert "model error" not in report.render(without, "table", view="tls")
    assert "<dt>model error</dt><dd>the model&#x27;s error on 4 same-code cortex-m7 rows" in (
        html_report.context(with_model))
    assert f"- model error: {line.removeprefix('  model error: ')}" in resultsdoc.render(with_model).splitlines()


def test_a_firmware_cell_carries_the_error_beside_its_model_time() -> None:
    def r(v: float) -> dict:
        return {"median": v, "min": v, "max": v, "n": 1, "stdev": 0.0}
    case = {"status": "ok", "size": None, "alg": "sha256",
            "results": {"instructions": r(1000), "model_cycles": r(1500), "model_time_ns": r(7500)}}
    assert report.cell(case, None, "model error 17% median, 34% worst on 4 rows") == (
        "1,000 instructions; model 1,500 cycles = 7.5 µs (model error 17% median, 34% worst on 4 rows)")


def test_the_boards_page_gives_each_rows_core_its_error(tmp_path: Path, bands_file: Path) -> None:
    db = tmp_path / "r.sqlite"
    run = _stored(db, model=True)
    runs = [boardresults.BoardRun(boardprofiles.load("nucleo-f746zg"), "qemu:mps2-an500", run),
            boardresults.BoardRun(boardprofiles.load("nrf5340-app"), None, None, "not built")]
    rows = [line for line in boardresults.render(runs, db).splitlines() if line.startswith("| nucleo-f746zg |")
            or line.startswith("| nrf5340-app |")]
    assert rows[0].split(" | ")[5:8] == ["250.0 ms", "200.0 ms", "model error 17% median, 34% worst on 4 rows"]
    assert rows[1] == "| nrf5340-app | cortex-m33, 128 MHz | - | - | not run: not built | - | - | - | - | - | - |"


def test_json_lines_and_the_json_report_carry_the_error_of_a_model_figure(tmp_path: Path, bands_file: Path) -> None:
    case = Case("wolfssl", "hash", "sha256", "hash", 1024)
    results = [Result.of("instructions", "instructions", 1, 0, 9.0, 9.0, None, 9.0, 9.0, None, None),
               Result.of("model_cycles", "model cycles", 1, 0, 12.0, 12.0, None, 12.0, 12.0, None, None)]
    rows = json_rows(1, "qemu:mps2-an500", "5.7.2", case, Measured("ok", "", 1, "", [], results),
                     modelerror.as_json("cortex-m7"))
    assert "model_error" not in rows[0]
    assert rows[1]["model_error"] == {"core": "cortex-m7", "same_code_rows": 4, "median_abs_error_pct": 17.0,
                                      "worst_abs_error_pct": 34.0, "worst_row": "h7-sha256",
                                      "where": "docs/cycle-model.md, Validation"}
    rows = json_rows(1, "qemu:mps2-an505", "5.7.2", case, Measured("ok", "", 1, "", [], results),
                     modelerror.as_json("cortex-m33"))
    assert rows[1]["model_error"] == {"core": "cortex-m33", "same_code_rows": 0,
                                      "where": "docs/cycle-model.md, Validation"}
    db = tmp_path / "r.sqlite"
    model, plain = _stored(db, model=True), _stored(db, model=False)
    store = Store(db)
    with_model, without = report.load(store, model), report.load(store, plain)
    store.close()
    assert json.loads(report.render(with_model, "json"))["model_error"]["same_code_rows"] == 4
    assert "model_error" not in json.loads(report.render(without, "json"))


def _hw_run(store: Store, profile: boardprofiles.Profile, config: str) -> int:
    """A stored run of one SHA-256 case on profile's core, with a library built from config."""
    def r(metric: str, unit: str, v: float) -> Result:
        return Result.of(metric, unit, 1, 0, v, v, None, v, v, None, None)
    run = store.create_run(target="qemu:mps2-an386", plan_name="p", plan_source="",
                           plan={"libraries": ["wolfssl"], "algorithms": ["sha256"], "ops": ["hash"], "sizes": [1024],
                                 "method": {"repeats": 1, "warmup": 0, "outliers": "none", "min_sample_ms": 0,
                                            "timeout_s": 9, "rounds": 1, "env": cyclemodel.run_env(profile)}},
                           machine={"board": "mps2-an386", "board_cpu": "cortex-m4"}, version="t", keys={})
    store.put_board_profile(run, profile.name, profile.origin, profile.text, profile.sha256)
    store.put_library(run, "wolfssl", "5.9.2", config, "test", "0" * 64, "instructions", {})
    store.put_case(run, name="wolfssl/hash/sha256/hash/1024", library="wolfssl", kind="hash", alg="sha256",
                   op="hash", size=1024, params={}, status="ok", reason="", iters=1, started=0, transcript="",
                   results=[r("instructions", "instructions", 9000), r("model_cycles", "model cycles", 12000),
                            r("model_time_ns", "model-ns", 66000)])
    store.finish_run(run)
    return run


def test_the_hwcrypto_page_gives_each_boards_core_its_error(tmp_path: Path) -> None:
    profile = boardprofiles.load("stm32f439zi")
    db = tmp_path / "r.sqlite"
    store = Store(db)
    sw, hw = _hw_run(store, profile, "config"), _hw_run(store, profile, "#include profiles/hw.h")
    store.close()
    out = tmp_path / "hw.md"
    subprocess.run([str(paths.root() / "scripts" / "results-hwcrypto"), str(out)], check=True, timeout=120,
                   capture_output=True, env={**os.environ, "RUNS": f"{sw} {hw}", "TLSBENCH_DB": str(db)})
    lines = out.read_text().splitlines()
    assert f"Model error of its core: {modelerror.sentence('cortex-m4')}." in lines
    assert lines.index(f"## stm32f439zi: {profile.description}") + 2 == lines.index(
        f"Model error of its core: {modelerror.sentence('cortex-m4')}.")
