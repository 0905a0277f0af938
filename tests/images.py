"""Firmware images for the tests, each built at most once per session and only
when its inputs changed.

Every firmware test needs the same few images (the Cortex-M4's Mbed TLS and
wolfSSL, a one-side image, another core's). Building them through
build.build_firmware in each module reconfigures the board's CMake folder
with that module's libraries every time; here an image whose stamp
(targets/firmware.py: agent sources, library tree, profile, options,
toolchain) matches is used as it is, and a stale or missing one is built
under a file lock, so parallel workers (pytest-xdist) never build one folder
at once.
"""

from __future__ import annotations

import dataclasses
import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tlsbench.targets import build, firmware
from tlsbench.targets import target as targets

# the board most firmware tests use (Cortex-M4), and its image of one TLS side
M4 = targets.parse("qemu:mps2-an386")
ONE_SIDE = dataclasses.replace(M4, one_side=True)

# (build folder, libraries, -O level) already checked in this session
_fresh: set[tuple[str, tuple[str, ...], str]] = set()


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f"{folder.name}.lock").open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _present(target: targets.Target, library: str) -> bool:
    image = target.firmware_path(library)
    return image.exists() or image.with_name(image.name + ".does-not-fit").exists()


def _stale(target: targets.Target, libraries: list[str], opt: str) -> list[str]:
    """The images (the selftest double among them) to build for these inputs."""
    todo = firmware.stale(target, ["selftest", *libraries])
    other_level = [lib for lib in ["selftest", *libraries]
                   if (firmware.read_stamp(target, lib) or {}).get("opt", opt) != opt]
    return sorted({*todo, *other_level})


def ensure_firmware(target: targets.Target, libraries: list[str] | None = None, opt: str = "Os") -> targets.Target:
    """target's firmware images of these libraries (default: each firmware
    library's default version) and the selftest double, fresh for their
    inputs; returns target."""
    libs = build.firmware_identifiers(libraries)
    key = (target.build_name, tuple(libs), opt)
    if key in _fresh and all(_present(target, lib) for lib in ["selftest", *libs]):
        return target
    with _locked(target.build_dir()):
        if _stale(target, libs, opt):
            # all of them, as one configuration: a build folder holds one set of libraries at a time
            build.build_firmware(target, libs, opt=opt, jobs=2)
    _fresh.add(key)
    return target


def built_again(target: targets.Target) -> None:
    """Forgets what this session checked of target's images (a test that
    changed their inputs or build folder calls this)."""
    for key in [k for k in _fresh if k[0] == target.build_name]:
        _fresh.discard(key)
