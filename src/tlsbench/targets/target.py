"""Where agents run: the host, an emulated Cortex-M board under QEMU, or a
real board over a serial port.

Every target looks the same to the runner: an executable that reads request
lines on stdin and answers records on stdout. For the host that is the
agent itself; for firmware it is a small launcher (written next to the
firmware by ``tlsbench build --target ...``) that runs ``tlsbench.targets.bridge``,
which carries the same lines over the emulated or real UART.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from tlsbench import paths
from tlsbench.errors import PlanError
from tlsbench.targets import userconfig
from tlsbench.targets.base import Target
from tlsbench.targets.board import BOARDS, ICOUNT, TOOLCHAINS, Board, Toolchain, qemu_command
from tlsbench.targets.kinds import host, labgrid, qemu, serial

# every kind of target, by the prefix of its name: a new kind is its module in kinds/ and a line here
KINDS: dict[str, type[Target]] = {cls.kind: cls for cls in (
    host.HostTarget,
    qemu.QemuTarget,
    serial.SerialTarget,
    labgrid.LabgridTarget,
)}

HOST = host.HOST


def is_host(name: str) -> bool:
    """A target's name, as a run or a plan stores it, is this machine's (the host agents)."""
    return name == HOST.name


def known_names() -> list[str]:
    return [n for cls in KINDS.values() for n in cls.known_names()]


def available_profiles(library: str) -> list[str]:
    adapters = paths.root() / "agent" / "adapters"
    if library not in {p.name for p in adapters.iterdir()}:  # a typed name, never a path (too long, ../)
        return []
    folder = adapters / library / "profiles"
    return sorted(p.stem for p in folder.glob("*.h")) if folder.is_dir() else []


def parse_profiles(text: str | None) -> tuple[tuple[str, str], ...]:
    """'mbedtls=small,wolfssl=sp-asm' -> sorted pairs; unknown names are errors."""
    out = {}
    for item in (t.strip() for t in (text or "").split(",") if t.strip()):
        lib, sep, prof = item.partition("=")
        known = available_profiles(lib)
        if not sep or not known:
            raise PlanError(f"--profile expects LIBRARY=PROFILE, e.g. mbedtls=small (got {item!r})")
        if prof not in known:
            raise PlanError(f"unknown {lib} profile {prof!r}; {lib} profiles: {', '.join(known)}")
        out[lib] = prof
    return tuple(sorted(out.items()))


def parse(name: str, board: str | None = None, profiles: str | None = None, coordinator: str | None = None) -> Target:
    """'host', 'qemu:<board>', 'serial:<device>' (with board=...) or
    'labgrid:<places>' (the board from --board or the places' board tag);
    profiles ('mbedtls=small,...') pick library build profiles for firmware."""
    prof = parse_profiles(profiles)
    kind, _, rest = name.partition(":")
    cls = KINDS.get(kind)
    if cls is not None and (cls.takes_argument or name == kind):
        return cls.from_spec(name, rest, board, prof, coordinator)
    near = difflib.get_close_matches(name, known_names(), n=3)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise PlanError(f"unknown target {name!r}{hint}; known: {', '.join(known_names())}")


def of_run(name: str, machine: dict) -> Target:
    """A stored run's target as it was measured (for --resume): its name, board and build profiles, and the
    user's build as the run stored it (its files' text, not today's files)."""
    profiles = ",".join(f"{k}={v}" for k, v in (machine.get("profiles") or {}).items())
    target = parse(name, machine.get("board"), profiles or None)
    return target.with_user_build(userconfig.from_record(machine.get("user_build")))


def write_launcher(target: Target, library: str) -> Path:
    """The executable the runner starts for this library on this target (written for firmware)."""
    return target.launcher(library)


__all__ = ["BOARDS", "HOST", "ICOUNT", "KINDS", "TOOLCHAINS", "Board", "Target", "Toolchain", "available_profiles",
           "known_names", "of_run", "parse", "parse_profiles", "qemu_command", "write_launcher"]
