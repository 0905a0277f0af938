"""Host agents that a test builds itself with its own CMake options (under
sanitizers, as fuzzers): one Ninja folder below build/, configured and built
again on every session (seconds when nothing changed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import BUILDING_TIMEOUT_S

from tlsbench import paths


def build_agent_tree(build: Path, options: list[str], targets: tuple[str, ...] = ()) -> Path:
    """agent/ configured into build with options (-D...) and built (only
    targets, if named); a failed step fails the test with the tail of its output."""
    configure = ["cmake", "-S", str(paths.root() / "agent"), "-B", str(build), "-G", "Ninja", *options]
    if (build / "CMakeCache.txt").exists() and not (build / "build.ninja").exists():
        shutil.rmtree(build)  # another generator's folder
    target_args = ["--target", *targets] if targets else []
    for cmd in (configure, ["cmake", "--build", str(build), "--parallel", "2", *target_args]):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILDING_TIMEOUT_S)
        assert proc.returncode == 0, f"{' '.join(cmd)}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return build
