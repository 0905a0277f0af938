"""`tlsbench board count-profiles BOARD FOLDER` (targets/hwcount.py): one count profile per accelerator the
board profile declares, each path on a line; a board without accelerators or a folder that cannot be written
is one error line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.cli.main import main
from tlsbench.targets import boardprofiles, hwcount


def test_it_writes_one_count_profile_per_accelerator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "count-profiles", "stm32f439zi", str(tmp_path / "counts")]) == 0
    written = capsys.readouterr().out.splitlines()
    algorithms = list(boardprofiles.load("stm32f439zi").accelerators)
    assert written == [str(tmp_path / "counts" / f"stm32f439zi{hwcount.SEPARATOR}{a}.toml") for a in algorithms]
    assert [hwcount.counted_algorithm(boardprofiles.parse(Path(p))) for p in written] == [
        ("stm32f439zi", a) for a in algorithms]


def test_a_board_without_accelerators_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", "count-profiles", "stm32f405", str(tmp_path)]) == 2
    assert capsys.readouterr().err == ("tlsbench: error: board profile stm32f405 declares no [accelerators]:"
                                       " nothing to count\n")
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert main(["board", "count-profiles", "stm32f439zi", str(blocked / "counts")]) == 2
    assert capsys.readouterr().err == (f"tlsbench: error: {blocked / 'counts'}: cannot write the count profiles:"
                                       " Not a directory\n")
