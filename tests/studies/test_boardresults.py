"""scripts/results-boards (tlsbench study results-boards) runs each board profile's plan in its own process no
more: `_run_here` gives what a subprocess gave (the exit code, and stderr of tlsbench and of every process it
starts), and a run stopped by a signal stops the study."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tlsbench.studies import boardresults

cli_main = importlib.import_module("tlsbench.cli.main")  # the module (tlsbench.cli.main is also its function)


def test_a_refused_run_gives_its_exit_code_and_its_one_line(tmp_path: Path) -> None:
    plan = tmp_path / "missing.toml"
    returncode, stderr = boardresults._run_here(["--db", str(tmp_path / "r.sqlite"), "run", "--plan", str(plan),
                                                 "--target", "qemu:mps2-an386", "-q"], cli_main.main)
    assert (returncode, stderr) == (2, f"tlsbench: error: cannot read plan {plan}: [Errno 2] No such file or"
                                       f" directory: '{plan}'\n")


def test_what_its_processes_write_on_stderr_is_captured(monkeypatch: pytest.MonkeyPatch,
                                                        capfd: pytest.CaptureFixture) -> None:
    def fake_main(argv: list[str]) -> int:
        print(f"tlsbench {' '.join(argv)}", file=sys.stderr)
        subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('from a bridge\\n')"], check=True,
                       timeout=60)
        return 3

    monkeypatch.setattr(cli_main, "main", fake_main)
    assert boardresults._run_here(["run", "-q"], cli_main.main) == (3, "from a bridge\ntlsbench run -q\n")
    assert capfd.readouterr().err == ""  # none of it reached the terminal


def test_a_run_stopped_by_a_signal_stops_the_study(monkeypatch: pytest.MonkeyPatch,
                                                   capfd: pytest.CaptureFixture) -> None:
    def interrupted(argv: list[str]) -> int:
        print("tlsbench: interrupted", file=sys.stderr)
        return 130

    monkeypatch.setattr(cli_main, "main", interrupted)
    with pytest.raises(SystemExit) as stopped:
        boardresults._run_here(["run"], cli_main.main)
    assert stopped.value.code == 130
    assert capfd.readouterr().err == "tlsbench: interrupted\n"
