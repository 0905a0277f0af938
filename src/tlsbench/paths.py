"""Where things live. Everything generated stays under the checkout, in
ignored folders: third_party/ (fetched sources), build/ (agents) and
.tlsbench/ (results database, logs)."""

from __future__ import annotations

import os
from pathlib import Path


def root() -> Path:
    env = os.environ.get("TLSBENCH_ROOT")
    return Path(env) if env else Path(__file__).resolve().parents[2]


def third_party() -> Path:
    return root() / "third_party"


def build_dir(target: str = "host") -> Path:
    return root() / "build" / target


# where every host agent of a process comes from, when not build/<target> (a user's build, a test's fakes)
AGENT_DIR_ENV = "TLSBENCH_AGENT_DIR"


def agent_path(library: str, target: str = "host") -> Path:
    env = os.environ.get(AGENT_DIR_ENV)
    base = Path(env) if env else build_dir(target)
    # "openssl@3.5" -> tlsbench-agent-openssl-3.5 (as versions.agent_name; CMake names have no '@')
    return base / ("tlsbench-agent-" + library.replace("@", "-"))


def data_dir() -> Path:
    return root() / ".tlsbench"


def default_database() -> Path:
    env = os.environ.get("TLSBENCH_DB")
    return Path(env) if env else data_dir() / "results.sqlite"


def lock_file() -> Path:
    return root() / "libraries.lock.toml"


def presets_dir() -> Path:
    return Path(__file__).resolve().parent / "plans" / "presets"


def write_private(path: Path, data: bytes) -> None:
    """A private key file readable by its owner only (0600), also when it
    replaces an older, more open file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
    finally:
        os.close(fd)
