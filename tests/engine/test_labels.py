"""Run labels: what --label accepts, and the labels a machine description gives."""

from __future__ import annotations

import pytest

from tlsbench.engine import labels
from tlsbench.errors import PlanError


def test_user_labels_are_validated_with_one_line_naming_what_is_allowed() -> None:
    assert labels.parse(["branch=tuning", "board.rev=C-2", "note=warm room"]) == {
        "branch": "tuning", "board.rev": "C-2", "note": "warm room"}
    for bad in ("branch", "=x", "Branch=x", "1st=x", "k= padded", "k=", "k=" + "x" * 201, "k=a\nb"):
        with pytest.raises(PlanError, match="expected KEY=VALUE") as e:
            labels.parse([bad])
        assert "\n" not in str(e.value).replace(repr(bad), "")
    with pytest.raises(PlanError, match="lib.openssl is recorded by tlsbench itself"):
        labels.parse(["lib.openssl=3"])
    assert labels.parse(["lib.openssl=3"], recorded_ok=True) == {"lib.openssl": "3"}  # a filter may name one
    with pytest.raises(PlanError, match="--label k given twice"):
        labels.parse(["k=1", "k=2"])


def test_recorded_labels_come_from_the_machine_description() -> None:
    machine = {"hostname": "lab-1", "tlsbench": "0.1.0+0123456789ab", "cpu_model": "A", "cores": 2}
    got = labels.recorded(machine)
    assert {k: got[k] for k in ("git.commit", "git.dirty", "machine")} == {
        "git.commit": "0123456789ab", "git.dirty": "false", "machine": "lab-1"}
    assert labels.recorded({**machine, "hostname": "renamed"})["machine.id"] == got["machine.id"]
    assert labels.recorded({**machine, "cores": 4})["machine.id"] != got["machine.id"]
    assert labels.recorded({"tlsbench": "0.1.0"})["git.commit"] == "unknown"  # not from a git checkout


def test_resume_with_a_label_is_refused_with_one_line(tmp_path, capsys: pytest.CaptureFixture) -> None:
    """A run's labels are set when it starts: --resume with --label is refused
    before anything is measured (the run is left as it was)."""
    from tlsbench.cli import main
    from tlsbench.engine.store import Store

    db = tmp_path / "r.sqlite"
    store = Store(str(db))
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={}, machine={}, version="v", keys={},
                           labels={"job": "nightly"})
    store.close()
    assert main(["--db", str(db), "run", "--resume", str(run), "--label", "job=other"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"tlsbench: error: --label with --resume: run {run} keeps the labels it was started with"
                   " (tlsbench runs shows them); resume without --label")
    again = Store(str(db))
    assert again.get_run(run).status != "complete" and again.list_runs()[0]["labels"]["job"] == "nightly"
