"""Firmware on demand: a run on an emulated board builds the images it needs
when they are missing or stale, before its first case.

Stale means the inputs an image was built from changed. At build time a
stamp is written next to each image (``tlsbench-agent-<lib>.inputs``, JSON)
with one hash per input: the agent/ files that image was built from (as its
Ninja build recorded them: every source and header its objects were compiled
from, its linker scripts, and the CMake files its configuration read but the
other libraries' ``adapters/<lib>/``; the list is kept in the stamp, so a
change to wolfSSL's adapter leaves the Mbed TLS image fresh), the library's source tree
identity (version and archive SHA-256 from its record's pin, or the
user's own tree), its build profile, the CMake options, and the
cross-compiler's ``--version`` (``arm-none-eabi-gcc``, ``riscv64-unknown-elf-gcc``).
A run compares them with the present ones; the first that differs is named
in the progress line. The stamp keeps the image's own SHA-256 too: a
truncated or overwritten image is named as damaged before a run starts it.

A stamp without that list (written before images kept it, or by a build
without Ninja) is judged by every file under agent/, as it always was: such
an image stays fresh while agent/ is unchanged, and its next build writes
the list.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tlsbench import paths, versions
from tlsbench.errors import SetupError
from tlsbench.targets import sources, userconfig
from tlsbench.targets.base import Target
from tlsbench.targets.board import TOOLCHAINS, Toolchain

logger = logging.getLogger(__name__)

STAMP_SUFFIX = ".inputs"
IMAGE_KEY = "image_sha256"  # the stamp's record of the image as built
AGENT_FILES_KEY = "agent_files"  # the agent/ files (relative paths) the image was built from
DEFAULT_OPT = "Os"
# what each stamp component is called in a progress line
_WHAT = {"agent": "agent sources", "library": "library source tree", "profile": "build profile",
         "options": "CMake options", "toolchain": "toolchain", "user": "your configuration or compiler options"}


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "big"))  # length-prefixed: no two inputs hash alike by concatenation
        h.update(p)
    return h.hexdigest()


def agent_sources_hash(agent_dir: Path | None = None) -> str:
    """Every file under agent/ (path and bytes): any source, header, linker
    script or CMake file the firmware is built from."""
    agent_dir = agent_dir or paths.root() / "agent"
    parts: list[bytes] = []
    for f in sorted(p for p in agent_dir.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        parts += [str(f.relative_to(agent_dir)).encode(), f.read_bytes()]
    return _digest(*parts)


def agent_files_hash(files: list[str], agent_dir: Path | None = None) -> str:
    """These files under agent/ (path and bytes; a missing one is a change too)."""
    agent_dir = agent_dir or paths.root() / "agent"
    parts: list[bytes] = []
    for name in sorted(files):
        f = agent_dir / name
        parts += [name.encode(), f.read_bytes() if f.is_file() else b"\0missing"]
    return _digest(*parts)


def image_agent_files(build: Path, exe: str, agent_dir: Path | None = None) -> list[str] | None:
    """The files under agent/ that build's image exe is built from, from the build's own records (Ninja's
    graph and deps log): the sources and link inputs of exe and of the libraries it links, every header
    those objects included, and the CMake files the configuration read but other libraries' adapter
    folders (each adapters/<lib>/library.cmake defines only its own library's targets). None when the
    build has no such records (a Makefile build): then every file under agent/ counts."""
    if not (build / "build.ninja").exists() or shutil.which("ninja") is None:
        return None
    agent_dir = agent_dir or paths.root() / "agent"
    inputs = _ninja(build, "-t", "inputs", exe)
    objects = [i for i in inputs if i.endswith((".o", ".obj"))]
    headers = [line.strip() for line in _ninja(build, "-t", "deps", *objects) if line[:1].isspace()] if objects else []
    compiled = _under(agent_dir, build, inputs + headers)
    own = {Path(f).parts[1] for f in compiled if Path(f).parts[0] == "adapters" and len(Path(f).parts) > 2}
    configured = [f for f in _under(agent_dir, build, _ninja(build, "-t", "inputs", "build.ninja"))
                  if Path(f).parts[0] != "adapters" or Path(f).parts[1] in own]
    return sorted({*compiled, *configured})


def _ninja(build: Path, *args: str) -> list[str]:
    """The lines ninja prints for a query of build's graph (it builds nothing)."""
    try:
        out = subprocess.run(["ninja", "-C", str(build), *args], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SetupError(f"ninja {' '.join(args[:2])} in {build} does not run ({e})") from e
    if out.returncode != 0:
        raise SetupError(f"ninja {' '.join(args[:2])} in {build} failed: {out.stderr.strip() or out.stdout.strip()}")
    return [line for line in out.stdout.splitlines() if line.strip() and not line.startswith("ninja: ")]


def _under(agent_dir: Path, build: Path, names: list[str]) -> list[str]:
    """Those of these paths (absolute, or relative to the build folder) inside agent/, relative to it."""
    roots = {os.path.normpath(agent_dir), os.path.normpath(agent_dir.resolve())}
    out = []
    for name in names:
        full = os.path.normpath(name if os.path.isabs(name) else build / name)
        for root in roots:
            if full.startswith(root + os.sep):
                out.append(os.path.relpath(full, root))
                break
    return out


def library_identity(library: str) -> str:
    """The pinned version and archive hash (the tree is verified against
    them when fetched), or the path of a user-supplied tree."""
    if library == "selftest":
        return "selftest (no library)"
    user = sources.user_source(library)
    if user is not None:
        return f"user tree {user}"
    pin = sources.load_lock().get(sources.lock_key(library))
    if pin is None:
        return f"{library}: not in the lock file"
    return f"{pin.version} {pin.archive} sha256={pin.sha256[pin.archive]}"


def toolchain_version(chain: Toolchain = TOOLCHAINS["arm"]) -> str:
    gcc = f"{chain.prefix}gcc"
    try:
        out = subprocess.run([gcc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SetupError(f"{gcc} does not run ({e}); apt-get install {chain.packages}") from e
    return out.stdout.strip()


def _toolchain_of(target: Target) -> str:
    assert target.board is not None
    return toolchain_version(target.board.toolchain)


def cmake_options(target: Target, opt: str) -> str:
    """The options a firmware configuration depends on (not the paths)."""
    board = target.board
    assert board is not None
    return (f"opt={opt} cpu={board.cpu} platform={board.platform} "
            f"machine={board.name} one_side={target.one_side}")


def inputs(target: Target, library: str, opt: str, agent_hash: str | None = None,
           toolchain: str | None = None) -> dict[str, str]:
    """The stamp of an image built now: one hash per input, and the -O level."""
    profile = dict(target.profiles).get(versions.base(library), "default")
    user = {"user": userconfig.digest(target.user)} if target.user.builds_here else {}  # none: today's stamps
    return {**user,
        "opt": opt,
        "agent": agent_hash or agent_sources_hash(),
        "library": _digest(library_identity(library).encode()),
        "profile": _digest(profile.encode()),
        "options": _digest(cmake_options(target, opt).encode()),
        "toolchain": _digest((toolchain if toolchain is not None else _toolchain_of(target)).encode()),
    }


def stamp_path(target: Target, library: str) -> Path:
    fw = target.firmware_path(library)
    return fw.with_name(fw.name + STAMP_SUFFIX)


def image_sha256(image: Path) -> str:
    return hashlib.sha256(image.read_bytes()).hexdigest()


def write_stamp(target: Target, library: str, opt: str) -> None:
    """The image's inputs (the agent/ files it was built from among them) and (when it was built) its
    SHA-256, checked before a run (damaged_image)."""
    path = stamp_path(target, library)
    image = target.firmware_path(library)
    files = image_agent_files(target.cmake_dir(), image.name)
    stamp: dict[str, Any] = {**inputs(target, library, opt,
                                      agent_hash=None if files is None else agent_files_hash(files))}
    if files is not None:
        stamp[AGENT_FILES_KEY] = files
    if image.exists():
        stamp[IMAGE_KEY] = image_sha256(image)
    path.write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")


def damaged_image(target: Target, library: str) -> str | None:
    """Why the built image cannot be run as built (truncated or overwritten since: its SHA-256
    differs from its build's), or None: sound, or built before images were hashed."""
    image = target.firmware_path(library)
    built = (read_stamp(target, library) or {}).get(IMAGE_KEY)
    if built is None or not image.exists() or image_sha256(image) == built:
        return None
    return (f"firmware image {image} is damaged (SHA-256 differs from its build); rebuild with tlsbench build"
            f" --target {target.name}")


def read_stamp(target: Target, library: str) -> dict[str, Any] | None:
    try:
        data = json.loads(stamp_path(target, library).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _built(target: Target, library: str) -> bool:
    fw = target.firmware_path(library)
    return fw.exists() or fw.with_name(fw.name + ".does-not-fit").exists()


def why_stale(stamp: dict[str, Any] | None, built: bool, now: dict[str, str]) -> str | None:
    """The decision: None when the image is fresh, else why it must be built."""
    if not built:
        return "never built"
    if stamp is None:
        return "built without a record of its inputs"
    changed = [_WHAT[k] for k in _WHAT if stamp.get(k) != now.get(k)]
    return f"{', '.join(changed)} changed" if changed else None


def agent_hash_now(stamp: dict[str, Any] | None, agent_dir: Path | None = None,
                   whole_tree: Callable[[], str] | None = None) -> str:
    """The present hash of the agent/ files an image was built from: those its stamp lists, or every
    file under agent/ for a stamp without the list (as such stamps were written; whole_tree: that hash)."""
    files = (stamp or {}).get(AGENT_FILES_KEY)
    if isinstance(files, list) and all(isinstance(f, str) for f in files):
        return agent_files_hash(files, agent_dir)
    return whole_tree() if whole_tree else agent_sources_hash(agent_dir)


def stale(target: Target, libraries: list[str], agent_hash: str | None = None,
          toolchain: str | None = None, agent_dir: Path | None = None) -> dict[str, tuple[str, str]]:
    """library -> (why, the -O level to build it at) for every image to build. agent_hash: the
    agent/ input of every image (default: each image's own, agent_hash_now)."""
    toolchain = toolchain if toolchain is not None else _toolchain_of(target)
    tree: list[str] = []  # every file under agent/, hashed once if an old stamp needs it

    def whole_tree() -> str:
        tree[:] = tree or [agent_sources_hash(agent_dir)]
        return tree[0]

    out = {}
    for lib in libraries:
        image, built_as = target.image_of(lib)  # an alias: its own build's image of its library
        stamp = read_stamp(image, built_as)
        opt = (stamp or {}).get("opt", DEFAULT_OPT)  # a rebuild keeps the level it was built at
        agent = agent_hash or agent_hash_now(stamp, agent_dir, whole_tree)
        why = why_stale(stamp, _built(image, built_as), inputs(image, built_as, opt, agent, toolchain))
        if why is not None:
            out[lib] = (why, opt)
    return out


def ensure(target: Target, libraries: list[str],
           build_firmware: Callable[..., list[str]], jobs: int | None = None) -> list[str]:
    """Builds (with build.build_firmware) the missing or stale firmware
    images of an emulated board; returns the libraries it built (progress
    logged)."""
    if not target.builds_on_demand:  # a real board is flashed from what was built on purpose
        return []
    todo = stale(target, list(libraries))
    if not todo:
        return []
    for lib, (why, _opt) in todo.items():
        logger.info(f"firmware for {target.name}: {lib}: {why}: building it")
    opt = next(iter(todo.values()))[1]
    libs = list(todo)
    build_firmware(target, libs, opt=opt, jobs=jobs or min(2, os.cpu_count() or 1))  # aliases apart
    return libs
