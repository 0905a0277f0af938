"""tlsbench doctor: what is installed, what is missing, how to get it."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.errors import TlsbenchError
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.libraries import registry
from tlsbench.targets import sources
from tlsbench.targets import target as targets
from tlsbench.targets.build import FIRMWARE_LIBRARIES
from tlsbench.targets.libraries import probe


@dataclass
class Finding:
    ok: bool
    what: str
    detail: str
    fix: str = ""
    note: bool = False  # worth knowing, nothing missing (a counter the kernel does not offer, firmware not built)


def _tool(name: str, package: str) -> Finding:
    found = shutil.which(name)
    return Finding(bool(found), f"tool {name}", found or "not found",
                   "" if found else f"apt-get install {package}   (or: ./scripts/setup)")


def _pkgconfig(module: str, package: str) -> Finding:
    try:
        v = subprocess.run(["pkg-config", "--modversion", module], capture_output=True, text=True).stdout.strip()
    except OSError:
        v = ""
    return Finding(bool(v), f"development files {module}", v or "not found",
                   "" if v else f"apt-get install {package}   (or: ./scripts/setup)")


def _header(name: str, package: str) -> Finding:
    """A development header with no pkg-config file (libunistring 1.0 ships none)."""
    path = Path("/usr/include") / name
    found = path.exists()
    return Finding(found, f"development files {name}", str(path) if found else "not found",
                   "" if found else f"apt-get install {package}   (or: ./scripts/setup)")


_CHECKS = {"tool": _tool, "pkgconfig": _pkgconfig, "header": _header}


def source_users(lock: str) -> str:
    """The library versions built from a lock section, by their identifiers ("mbedtls" is the default
    version's, wherever its source is pinned); the section's own name when no version is (qemu, nettle)."""
    users = [versions.identifier(v) for v in versions.all_versions() if v.lock == lock]
    return ", ".join(users) or lock


def diagnose() -> list[Finding]:
    out = [
        _tool("cc", "build-essential"), _tool("cmake", "cmake"), _tool("pkg-config", "pkg-config"),
        _tool("apt-get", "apt (Debian only; elsewhere set TLSBENCH_<LIB>_SOURCE)"),
        # what each library needs (its record's doctor_checks): system packages, its own builds' tools
        *(_CHECKS[check.kind](check.name, check.package) for lib in registry.LIBRARIES for check in lib.doctor_checks),
        # firmware targets and the HTML report's screenshot/PNG path
        _tool("arm-none-eabi-gcc", "gcc-arm-none-eabi libnewlib-arm-none-eabi"),
        _tool("qemu-system-arm", "qemu-system-arm"), _tool("chromium", "chromium"),
        # the RV32 class target (qemu:rv32-virt)
        _tool("riscv64-unknown-elf-gcc", "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf"),
        _tool("qemu-system-riscv32", "qemu-system-misc"),
    ]
    try:
        pins = sources.load_lock()
    except TlsbenchError as e:
        return [*out, Finding(False, "pinned sources", str(e),
                              "restore libraries.lock.toml and src/tlsbench/libraries from git")]
    for lib, pin in pins.items():
        name = f"{source_users(lib)} source"
        custom = sources.user_source_of_lock(lib)
        if custom:
            ok = (custom / pin.marker).exists()
            out.append(Finding(ok, name, f"user-supplied {custom}", "" if ok else
                               f"{sources.lock_variable(lib)} must point at an unpacked {pin.package} release"))
            continue
        tree = paths.third_party() / "src" / pin.source_dir
        ok = sources.still_verified(tree, pin.sha256[pin.archive])
        what = " (verified)" if ok else (" changed since it was verified" if tree.exists() else " missing")
        out.append(Finding(ok, name, f"{pin.package} {pin.version}{what}",
                           "" if ok else "tlsbench build   (fetches, verifies and unpacks it again)"))
    out += _agents(pins)
    counters = None
    for lib in LIBRARIES:
        try:
            counters = probe(lib, timeout=20).counters_missing
            break
        except TlsbenchError:
            continue
    if counters is not None:
        for counter, why in counters.items():
            out.append(Finding(True, f"counter {counter}", f"not available: {why}", note=True))
    return out + _firmware()


def built_from(ident: str, pins: dict[str, sources.PinnedSource]) -> str:
    """The pinned source an agent is built from ("mbedtls 3.6.7-3, libraries/mbedtls.py [mbedtls@3.6.7]"),
    or the system's development files for a version with no pinned source."""
    lock = versions.version_of(ident).lock
    pin = pins.get(lock)
    if pin is None:
        return "the system's development files"
    custom = sources.user_source_of_lock(lock)
    return f"user-supplied {custom}" if custom else f"{pin.package} {pin.version}, {pin.declared_in} [{lock}]"


def _agents(pins: dict[str, sources.PinnedSource]) -> list[Finding]:
    """Each agent built (the default ones always: missing is a problem) with the library version it reports,
    which is the version it was built from, and the source that was; one whose reported version is not its
    pinned source's was built from another tree (a stale build) and is named so."""
    out = []
    built = [i for i in versions.identifiers() if i in LIBRARIES or paths.agent_path(i).exists()]
    for ident in built:
        what = f"{ident} agent" if ident in LIBRARIES else f"{ident} agent (by name)"
        path = paths.agent_path(ident)
        if not path.exists():
            out.append(Finding(False, what, f"{path} not built", "tlsbench build"))
            continue
        try:
            info = probe(ident, timeout=20)
        except TlsbenchError as e:
            out.append(Finding(False, what, str(e), "tlsbench build"))
            continue
        n = len({(k, a) for k, a, _ in info.support})
        source = built_from(ident, pins)
        pin = pins.get(versions.version_of(ident).lock)
        stale = pin is not None and not sources.user_source_of_lock(pin.library) and pin.upstream not in info.version
        out.append(Finding(not stale, what, f"{info.version}, built from {source}; {n} algorithms",
                           f"tlsbench build --libraries {ident}   (the agent is not {pin.upstream})"
                           if stale and pin is not None else ""))
    return out


def _firmware() -> list[Finding]:
    """Which emulated targets have firmware built: optional, so a note, with the command that builds it."""
    out = []
    for board in targets.BOARDS.values():
        if board.machine is None:  # a real board: its firmware is the serial target's build
            continue
        target = targets.parse(f"qemu:{board.name}")
        built = [lib for lib in FIRMWARE_LIBRARIES if target.firmware_path(lib).exists()]
        if built:
            out.append(Finding(True, f"firmware {target.name}", f"built: {', '.join(built)}"))
        else:
            out.append(Finding(True, f"firmware {target.name}", "not built",
                               f"tlsbench build --target {target.name}", note=True))
    return out
