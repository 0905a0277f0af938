"""Every JSON document tlsbench writes says which version of its fields it
is ("format"), as `run --json`'s lines do: a reader can refuse a version it
does not know instead of misreading it. Read from the old database fixture
(no agent is built or run)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tlsbench.engine.store import Store
from tlsbench.report import compare, compare_text, stability
from tlsbench.report import tables as report

FIXTURES = Path(__file__).parents[1] / "fixtures" / "old-db"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript((FIXTURES / "old-schema-v4.sql").read_text())
    db.commit()
    db.close()
    return Store(path)


def test_each_json_export_names_its_format_version_first(store: Store) -> None:
    docs = {
        "report": report.render(report.load(store, 2), "json"),
        "compare": compare_text.render(compare.compare(store, 1, 2), "json"),
        "stability": stability.render(stability.assess(store, 1, 2), "json"),
    }
    versions = {name: list(json.loads(text).items())[0] for name, text in docs.items()}
    assert versions == {"report": ("format", report.JSON_VERSION), "compare": ("format", compare_text.JSON_VERSION),
                        "stability": ("format", stability.JSON_VERSION)}
    # report 2 and stability 2: a host timing's figure became its fastest sample, named by "estimator"
    assert (report.JSON_VERSION, compare_text.JSON_VERSION, stability.JSON_VERSION) == (2, 1, 2)


def test_other_tools_formats_stay_theirs(store: Store) -> None:
    """github-action-benchmark's list and Bencher's map are read by those tools: no field of ours."""
    c = compare.compare(store, 1, 2)
    assert all(set(row) == {"name", "unit", "value", "range", "extra"} for row in compare_text.ci_json(c))
    assert "format" not in compare_text.bmf_json(c)
