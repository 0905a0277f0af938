"""The docs name no path of the machine they were written on."""

from __future__ import annotations

import re

from tlsbench import paths

MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|root|home)/")


def test_no_doc_names_a_machine_path() -> None:
    root = paths.root()
    files = [root / "README.md", *sorted((root / "docs").rglob("*.md")), *sorted((root / "docs").rglob("*.toml"))]
    found = [f"{f.relative_to(root)}:{n}" for f in files
             for n, line in enumerate(f.read_text().splitlines(), 1) if MACHINE_PATH.search(line)]
    assert found == []
