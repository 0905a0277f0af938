"""A results page is rendered from one stored run and nothing else: the same
run gives the same page byte for byte, through `tlsbench docs` and through
scripts/results-doc, and the page names what made the run. The run is the
old-database fixture (a tiny real run: a hash, a signature, a handshake)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tlsbench import paths
from tlsbench.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures" / "old-db"
GOLDEN = FIXTURES / "docs-1.md"


def test_the_page_is_the_stored_run_byte_for_byte(old_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.md"
    assert main(["--db", str(old_db), "docs", "1", "-o", str(out)]) == 0
    assert out.read_bytes() == GOLDEN.read_bytes()


def test_the_script_renders_the_same_page_from_a_stored_run(old_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "again.md"
    env = {**os.environ, "RUN": "1", "TLSBENCH_DB": str(old_db)}
    subprocess.run([str(paths.root() / "scripts" / "results-doc"), f"-:{out}"], env=env, check=True,
                   capture_output=True, timeout=120)
    assert out.read_bytes() == GOLDEN.read_bytes()


def test_the_page_names_its_commit_machine_features_run_and_command() -> None:
    head = GOLDEN.read_text().split("\n## ", 1)[0]
    assert "stored run 1" in head and "`tlsbench docs 1`" in head
    assert "commit cd4b0dd044ae" in head
    assert "machine: Intel(R) Xeon(R) Processor, 2 cores" in head
    assert "CPU features the libraries dispatch on: adx, aes, avx, avx2, avx512f, bmi2" in head
    assert "- command: `tlsbench run PLAN --target host" in head
    assert "- cases: 8 ok" in head
