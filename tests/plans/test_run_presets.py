"""scripts/run-presets keeps the rows docs/presets.md already publishes: a fresh checkout (no
rows.json) reads them back from the table, and writing them again gives the same table."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script():
    loader = importlib.machinery.SourceFileLoader("run_presets", str(ROOT / "scripts" / "run-presets"))
    spec = importlib.util.spec_from_loader("run_presets", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _published_table(script, text: str) -> str:
    return text.split(script.BEGIN, 1)[1].split(script.END, 1)[0].strip()


def test_rows_read_back_from_the_docs_table_write_the_same_table():
    script = _script()
    rows = script.rows_from_doc()
    assert rows, "docs/presets.md publishes no measured row"
    assert _published_table(script, script.DOC.read_text()) == script.table(rows)


def test_a_partial_rerun_keeps_the_other_rows(tmp_path):
    script = _script()
    doc = tmp_path / "presets.md"
    doc.write_text(script.DOC.read_text())
    script.DOC = doc
    rows = script.rows_from_doc()
    kept = {name: row for name, row in rows.items() if name != "quick"}
    rerun = dict(rows["quick"], wall_s=61, run=99, date="2030-01-01 00:00 UTC")
    script.rewrite({**rows, "quick": rerun})
    again = script.rows_from_doc()
    assert again["quick"]["wall_s"] == 61 and again["quick"]["run"] == 99
    assert {name: row for name, row in again.items() if name != "quick"} == kept
    assert "| quick | host |" in doc.read_text() and "1 min 01 s" in doc.read_text()
