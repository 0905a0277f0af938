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


def test_a_launcher_is_moved_into_place_never_rewritten_where_it_runs(tmp_path: Path, monkeypatch) -> None:
    # another test (or run) may be starting the launcher at that moment: executing a file open for writing
    # fails with "Text file busy", so a new one is written beside it and renamed over it
    from tlsbench.targets import target as targets

    monkeypatch.setenv("TLSBENCH_ROOT", str(tmp_path))
    m4 = targets.parse("qemu:mps2-an386")
    path = targets.write_launcher(m4, "mbedtls")
    first = path.stat()
    assert first.st_mode & 0o777 == 0o755 and "bridge.main(" in path.read_text()
    assert targets.write_launcher(m4, "mbedtls").stat().st_ino == first.st_ino  # the same text: left alone
    with path.open() as running:  # a process that has it open (as exec does) keeps reading what it opened
        path.write_text(path.read_text().replace("bridge.main", "bridge.old"))
        stale = path.read_text()
        path = targets.write_launcher(m4, "mbedtls")
        assert running.read() == stale
    assert path.stat().st_ino != first.st_ino and path.stat().st_mode & 0o777 == 0o755
    assert "bridge.main(" in path.read_text()
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left beside it
