"""A CMake build folder configured at another path: after the checkout moved
(or was copied), its CMakeCache.txt still names the old source and build
folders, and CMake refuses to configure ("the current CMakeCache.txt
directory ... is different than the directory ... where CMakeCache.txt was
created"). Such a cache is dropped so the next configure starts afresh; the
build's outputs stay, and CMake rebuilds what the new paths change."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

logger = logging.getLogger(__name__)

# CMakeCache.txt entries that record where the folder was configured
_WHERE = ("CMAKE_HOME_DIRECTORY", "CMAKE_CACHEFILE_DIR")


def recorded(cache: Path) -> dict[str, str]:
    """The source (CMAKE_HOME_DIRECTORY) and build (CMAKE_CACHEFILE_DIR) folders a cache names."""
    found = {}
    try:
        text = cache.read_text(errors="replace")
    except OSError:
        return {}
    for line in text.splitlines():
        name, _, value = line.partition("=")
        key = name.split(":", 1)[0]
        if key in _WHERE:
            found[key] = value.strip()
    return found


def _same(a: str, b: Path) -> bool:
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False


def drop_if_moved(build: Path, source: Path) -> bool:
    """Removes build's CMake cache when it was configured for another source or build folder;
    True when it did."""
    cache = build / "CMakeCache.txt"
    where = recorded(cache)
    if not where:
        return False
    now = {"CMAKE_HOME_DIRECTORY": source, "CMAKE_CACHEFILE_DIR": build}
    moved = [f"{key} {where[key]}" for key in _WHERE if key in where and not _same(where[key], now[key])]
    if not moved:
        return False
    logger.info(f"{build}: its CMake cache was configured elsewhere ({', '.join(moved)}): configuring it afresh")
    cache.unlink()
    shutil.rmtree(build / "CMakeFiles", ignore_errors=True)
    return True
