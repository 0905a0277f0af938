"""One build at a time in a build folder, across processes (two runs at once,
the tests' parallel workers): while one holds the folder's lock, another
process cannot take it, and once it is released it can."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tlsbench.targets import build

TRY = """
import fcntl, sys
with open(sys.argv[1], "w") as f:
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(3)
"""


def _other_process_gets(lock: Path) -> bool:
    return subprocess.run([sys.executable, "-c", TRY, str(lock)], timeout=60).returncode == 0


def test_a_build_folder_is_built_by_one_process_at_a_time(tmp_path: Path) -> None:
    folder = tmp_path / "build" / "host"
    lock = folder.parent / "host.building"
    with build.building(folder):
        assert lock.exists() and not _other_process_gets(lock)
    assert _other_process_gets(lock)
