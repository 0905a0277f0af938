"""A database written before the Python side was reshaped still reports and
compares, to the byte: tests/fixtures/old-db holds two runs of its plan.toml
(a sized hash, a signature, an in-memory TLS handshake; transcripts and keys
emptied to keep it small) dumped as SQL with schema version 4, and what
`tlsbench report` and `tlsbench compare` print for it. The outputs were
rewritten once on purpose, when compare learnt headline metrics, units and
"inconclusive" and the reports learnt noise flags, again when the
context named the CPU features and the legend its units, and again when the
CSV and JSON reports learnt the slow-phase flag (a slow_rounds column, a
slow_phase object: 0 rounds here, the old database has no placed rounds),
and again when each JSON result said how it is reported (reported_as: noisy,
exact or varies) and compare counted the deterministic metrics per verdict,
and again when compare let a count drawn per host run vary within the runs'
own spread (the Mbed TLS client's heap peak, +16 B within a spread of 48 B,
is "varies"; the ECDSA rows, one memory pass a round and so no spread in
these old runs, stay "changed"), and again when the JSON documents named their format version
(a "format" field first), and again when a host timing's figure became its fastest kept sample (the
reports' cells and legends, compare's A and B columns, report JSON format 2 with each result's
"estimator"), and again when the stack joined the counts drawn per host run (the legend's words; no
row of these runs moved), and again when a drawn count whose two runs' ranges overlap became "varies"
(the legend's words; no row of these runs moved): the old database still reads, and any other
change to these outputs shows here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.cli import main
from tlsbench.engine.store import SCHEMA_VERSION

FIXTURES = Path(__file__).parents[1] / "fixtures" / "old-db"

OUTPUTS = {
    "report-1.md": ["report", "1", "--format", "markdown"],
    "report-1.csv": ["report", "1", "--format", "csv"],
    "report-1-tls.md": ["report", "1", "--format", "markdown", "--view", "tls"],
    "report-2.json": ["report", "2", "--format", "json"],
    "compare-1-2.txt": ["compare", "1", "2"],
    "compare-1-2.json": ["compare", "1", "2", "--format", "json"],
    "compare-1-2-c2s_bytes.txt": ["compare", "1", "2", "--metric", "c2s_bytes"],
}


def test_the_fixture_is_the_current_schema_or_older() -> None:
    assert SCHEMA_VERSION >= 4


@pytest.mark.parametrize("golden", sorted(OUTPUTS))
def test_an_old_database_reports_and_compares_as_before(old_db: Path, golden: str, capsys) -> None:
    assert main(["--db", str(old_db), *OUTPUTS[golden]]) == 0
    assert capsys.readouterr().out == (FIXTURES / golden).read_bytes().decode()  # csv lines end in CRLF
