"""Fetching the pinned library sources from Debian source packages.

apt-get runs with a private source list and a private state folder under
third_party/apt, so the system's package configuration is never touched;
the mirror is read from the system's own apt configuration. Every
downloaded file must match the SHA-256 its pin declares (a library's record,
src/tlsbench/libraries/<name>.py, or libraries.lock.toml for the rest).

A user on another distribution points tlsbench at an unpacked upstream
release instead: TLSBENCH_MBEDTLS_SOURCE=/path, TLSBENCH_WOLFSSL_SOURCE=/path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.errors import PlanError, SetupError
from tlsbench.libraries import registry
from tlsbench.libraries.record import PinnedSource

VERIFIED_MARK = ".tlsbench-verified"
# libraries taken from the system, and the development package that brings them
SYSTEM_PACKAGES = {lib.name: lib.system_package for lib in registry.LIBRARIES if lib.system_package}


def _dpkg_version(package: str) -> str:
    try:
        proc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    except OSError:
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def load_lock(path: Path | None = None) -> dict[str, PinnedSource]:
    """Every pinned source by its section: those the library records declare (Library.pins), then the
    lock file's (what is no library under test: the QEMU plugin header)."""
    pins: dict[str, PinnedSource] = {}
    for lib in registry.LIBRARIES:
        for pin in lib.pins:
            where = pin.declared_in or f"libraries/{lib.name}.py"
            if pin.library in pins:
                raise SetupError(f"{where}: [{pin.library}] is also pinned in {pins[pin.library].declared_in}:"
                                 " declare it once")
            if pin.archive not in pin.sha256:
                raise SetupError(f"{where}: pin {pin.library} archive {pin.archive} has no sha256")
            pins[pin.library] = dataclasses.replace(pin, declared_in=where)
    path = path or paths.lock_file()
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SetupError(f"cannot read lock file {path}: {e}") from e
    for lib, entry in data.items():
        if lib in pins:
            raise SetupError(f"{path}: [{lib}] is also pinned in {pins[lib].declared_in}: declare it once")
        try:
            pins[lib] = PinnedSource(library=lib, **{**entry, "members": tuple(entry.get("members", ())),
                                                     "declared_in": path.name})
        except TypeError as e:
            raise SetupError(f"{path}: entry [{lib}] is malformed: {e}") from e
        if entry["archive"] not in entry["sha256"]:
            raise SetupError(f"{path}: [{lib}] archive {entry['archive']} has no sha256")
    return pins


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def system_mirror() -> str:
    """The Debian mirror the system's apt configuration uses."""
    override = os.environ.get("TLSBENCH_DEBIAN_MIRROR")
    if override:
        return override
    candidates: list[Path] = [Path("/etc/apt/sources.list")]
    d = Path("/etc/apt/sources.list.d")
    if d.is_dir():
        candidates += sorted(p for p in d.iterdir() if p.suffix in (".list", ".sources"))
    for p in candidates:
        try:
            text = p.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            line = line.strip()
            m = re.match(r"URIs:\s*(\S+)", line) or re.match(r"deb(?:-src)?\s+(?:\[[^]]*\]\s+)?(\S+)", line)
            if m and "/debian" in m.group(1) and "security" not in m.group(1):
                return m.group(1).rstrip("/")
    raise SetupError(
        "no Debian mirror found in /etc/apt/sources.list(.d); set TLSBENCH_DEBIAN_MIRROR, "
        "or point TLSBENCH_MBEDTLS_SOURCE / TLSBENCH_WOLFSSL_SOURCE at unpacked releases"
    )


def _apt_options(state: Path) -> list[str]:
    return [
        "-o", f"Dir::Etc::sourcelist={state / 'sources.list'}",
        "-o", "Dir::Etc::sourceparts=-",
        "-o", f"Dir::State::Lists={state / 'lists'}",
        "-o", f"Dir::Cache={state / 'cache'}",
        "-o", "Dir::State::status=/var/lib/dpkg/status",
        "-o", "APT::Sandbox::User=root",
    ]


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
        raise SetupError(f"{what} failed (exit {proc.returncode}):\n{tail}")


def _download(pins: list[PinnedSource], downloads: Path) -> None:
    if shutil.which("apt-get") is None:
        raise SetupError(
            "apt-get not found: on a non-Debian system set TLSBENCH_MBEDTLS_SOURCE and "
            "TLSBENCH_WOLFSSL_SOURCE to unpacked upstream releases"
        )
    state = paths.third_party() / "apt"
    for sub in ("lists/partial", "cache/archives/partial"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    mirror = system_mirror()
    suites = sorted({p.suite for p in pins})
    keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
    lines = [f"deb-src [signed-by={keyring}] {mirror} {s} main" for s in suites]
    (state / "sources.list").write_text("\n".join(lines) + "\n")
    opts = _apt_options(state)
    _run(["apt-get", *opts, "update"], downloads, "apt-get update (private state)")
    for tar_only in (False, True):
        wanted = [f"{p.package}={p.version}" for p in pins if p.tar_only == tar_only]
        if wanted:
            extra = ["--tar-only"] if tar_only else []
            _run(["apt-get", *opts, "source", "--download-only", *extra, *wanted], downloads, "apt-get source")


def _verify(pin: PinnedSource, downloads: Path) -> None:
    for name, want in pin.sha256.items():
        f = downloads / name
        if not f.exists():
            raise SetupError(f"{pin.library}: {f} is missing after download")
        got = sha256_of(f)
        if got != want:
            raise SetupError(
                f"{pin.library}: checksum mismatch for {name}: expected {want}, got {got}. "
                "The file was not used; delete it to fetch again."
            )


def _tree_manifest(dest: Path) -> dict[str, str]:
    """SHA-256 of every file of an unpacked tree (but our own marker)."""
    out = {}
    for f in sorted(dest.rglob("*")):
        if f.is_file() and f.name != VERIFIED_MARK:
            with f.open("rb") as fh:
                out[f.relative_to(dest).as_posix()] = hashlib.file_digest(fh, "sha256").hexdigest()
    return out


def still_verified(dest: Path, want: str) -> bool:
    """The marker names the archive and holds the tree's manifest; the tree
    must still match it file by file (an edited, added or removed file means
    the tree is unpacked again, not trusted on the marker's word)."""
    try:
        mark = json.loads((dest / VERIFIED_MARK).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(mark, dict) and mark.get("archive_sha256") == want and mark.get("files") == _tree_manifest(dest)


def _extract(pin: PinnedSource, downloads: Path, dest_root: Path) -> Path:
    dest = dest_root / pin.source_dir
    want = pin.sha256[pin.archive]
    if still_verified(dest, want):
        return dest
    if dest.exists():
        print(f"{pin.library}: {dest} differs from its verified archive: unpacking it again", file=sys.stderr)
        shutil.rmtree(dest)
    with tarfile.open(downloads / pin.archive) as tar:
        if pin.members:
            tar.extractall(dest_root, members=[tar.getmember(m) for m in pin.members], filter="data")
        else:
            tar.extractall(dest_root, filter="data")
    if not (dest / pin.marker).exists():
        raise SetupError(f"{pin.library}: {pin.archive} did not unpack to {dest}")
    (dest / VERIFIED_MARK).write_text(json.dumps({"archive_sha256": want, "files": _tree_manifest(dest)}))
    return dest


def source_variable(library: str) -> str:
    """The variable naming a user-supplied tree: TLSBENCH_WOLFSSL_SOURCE,
    TLSBENCH_WOLFSSL_5_9_SOURCE for wolfssl@5.9."""
    return "TLSBENCH_" + re.sub(r"[^A-Z0-9]", "_", library.upper()) + "_SOURCE"


def user_source(library: str) -> Path | None:
    value = os.environ.get(source_variable(library))
    return Path(value) if value else None


def lock_variable(lock: str) -> str:
    """The variable naming a user-supplied tree for a lock section: that of the
    identifier built from it, so TLSBENCH_WOLFSSL_SOURCE replaces the default
    wolfSSL's tree whichever section that is."""
    idents = [versions.identifier(v) for v in versions.all_versions() if v.lock == lock]
    return source_variable(idents[0] if idents else lock)


def user_source_of_lock(lock: str) -> Path | None:
    value = os.environ.get(lock_variable(lock))
    return Path(value) if value else None


def ensure_sources(libraries: list[str] | None = None) -> dict[str, Path]:
    """Returns lock section -> unpacked source tree, fetching what is missing:
    these lock sections (an empty list: none, so a build that needs no pinned
    source never touches the network), or every pinned source when None."""
    pins = load_lock()
    wanted = [pins[lib] for lib in (list(pins) if libraries is None else libraries) if lib in pins]
    result: dict[str, Path] = {}
    fetch: list[PinnedSource] = []
    downloads = paths.third_party() / "downloads"
    for pin in wanted:
        custom = user_source_of_lock(pin.library)
        if custom is not None:
            if not (custom / pin.marker).exists():
                raise SetupError(
                    f"{lock_variable(pin.library)}={custom} does not look like a "
                    f"{pin.package} source tree (no {pin.marker})"
                )
            result[pin.library] = custom
        elif not all((downloads / n).exists() for n in pin.sha256):
            fetch.append(pin)
    if fetch:
        downloads.mkdir(parents=True, exist_ok=True)
        _download(fetch, downloads)
    src_root = paths.third_party() / "src"
    src_root.mkdir(parents=True, exist_ok=True)
    for pin in wanted:
        if pin.library in result:
            continue
        _verify(pin, downloads)
        result[pin.library] = _extract(pin, downloads, src_root)
    return result


def lock_key(library: str) -> str:
    """The lock section of a library identifier (versions.py; itself when it names none)."""
    try:
        lock = versions.version_of(library).lock
    except PlanError:
        return library
    return library if lock == "system" else lock


def describe(library: str) -> str:
    """Where a library's source comes from, for the record."""
    custom = user_source(library)
    if custom is not None:
        return f"user-supplied source tree {custom} (not checksum-verified)"
    pin = load_lock().get(lock_key(library))
    if pin is None:
        package = SYSTEM_PACKAGES.get(versions.base(library), library)
        version = _dpkg_version(package)
        return f"system package {package} {version}" if version else "system library"
    return (
        f"Debian source package {pin.package} {pin.version} ({pin.suite}), "
        f"{pin.archive} sha256 {pin.sha256[pin.archive][:16]}..."
    )
