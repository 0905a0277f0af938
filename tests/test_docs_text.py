"""The docs name no path of the machine they were written on, and the README copies no figure of
the model's generated validation table."""

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


def test_the_readme_points_at_the_model_error_instead_of_copying_it() -> None:
    text = " ".join((paths.root() / "README.md").read_text().split())
    assert "`scripts/validate-model`, which writes the table of it" in text
    assert not re.search(r"(median|largest)( abs\.)?( error)? \d+%", text)
