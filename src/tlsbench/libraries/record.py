"""What tlsbench knows about one library under test, declared once (one
module per library, registered in registry.py). Every listing, build and
check reads these records; a library's C side is its adapter folder
(agent/adapters/<name>: library.cmake, profiles/)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tlsbench.libraries.configs import ConfigMechanism


@dataclass(frozen=True)
class Version:
    library: str
    label: str
    # "system": the Debian development package; otherwise its pinned source's section (Library.pins)
    lock: str
    note: str = ""
    # families of algorithms this version has that older ones lack (for "unsupported" reasons)
    features: tuple[str, ...] = ()
    # the release its agent reports (empty: the label), as far as it tells this version from the
    # others: "3.6.6" (3.6 alone would match 3.6.7 too); "3.0" matches the system's 3.0.x
    release: str = ""
    # built only when named (tlsbench build --libraries ...): its own build takes minutes, so the
    # default build (scripts/setup, CI) leaves it out
    on_request: bool = False
    # why it lacks the features others have, where that is not the release itself
    lacks_why: str = ""


@dataclass(frozen=True)
class PinnedSource:
    """A Debian source package a library version is built from, pinned by its Debian version and checked
    by the SHA-256 of every downloaded file (targets/sources.py fetches it with apt-get source through a
    private apt state). Declared in its library's record (Library.pins); what is no library under test
    (the QEMU plugin header) in libraries.lock.toml."""
    library: str  # the section's name: the Version's lock ("mbedtls@3.6.7")
    package: str
    version: str
    suite: str
    upstream: str
    archive: str
    source_dir: str
    marker: str  # the file a user-supplied tree must contain (TLSBENCH_<NAME>_SOURCE)
    sha256: dict[str, str]
    # only these archive members are unpacked (empty: the whole archive)
    members: tuple[str, ...] = ()
    # only the upstream archive is fetched (apt-get source --tar-only): for a package whose .dsc and
    # Debian patches the mirror no longer serves (tlsbench applies no Debian patch to any library)
    tar_only: bool = False
    # where it is declared, as `tlsbench doctor` names it (empty: its record's module, libraries/<name>.py,
    # which load_lock fills in)
    declared_in: str = ""


def debian(section: str, source: str, suite: str, *, upstream: str, archive: str, tree: tuple[str, str],
           sha256: str, tar_only: bool = False, members: tuple[str, ...] = ()) -> PinnedSource:
    """A pin as Debian names it: source "PACKAGE=VERSION" (apt-get source's argument) from suite; tree: the
    folder the archive unpacks to and the file a user-supplied tree must contain; sha256: one "HASH FILE"
    a line, as a .dsc's Checksums-Sha256 lists them."""
    package, _, version = source.partition("=")
    hashes = dict(reversed(line.split()) for line in sha256.strip().splitlines())
    return PinnedSource(section, package, version, suite, upstream, archive, tree[0], tree[1], hashes, members,
                        tar_only)


@dataclass(frozen=True)
class Check:
    """One thing `tlsbench doctor` looks for on behalf of a library."""
    kind: Literal["tool", "pkgconfig", "header"]
    name: str  # the command, the pkg-config module or the header under /usr/include
    package: str  # the Debian package that brings it


@dataclass(frozen=True)
class CoreProfile:
    """A firmware build profile whose code only some cores can run
    (agent/adapters/<library>/profiles/<name>.h; library.cmake adds its sources)."""
    name: str
    what: str  # the code it builds, as the refusal names it: "wolfSSL's ARMv6-M Thumb assembly (sp_armthumb.c)"
    defines: tuple[str, ...]  # what its header turns on
    sources: tuple[str, ...]  # the library's source files it adds to the build
    cores: tuple[str, ...]  # the -mcpu values it builds for

    def builds_for(self, cpu: str) -> bool:
        return cpu in self.cores


# How the host agent of a pinned (non-system) version is built:
# "source": CMake compiles the unpacked tree itself (library.cmake);
# "build-tree": its own build system builds it once into build/libs, CMake links that build tree
#   (today OpenSSL's Configure and make, targets/prefixbuild.py);
# "prefix": it and its companion libraries are built and installed once into a prefix, CMake links
#   the prefix (today GnuTLS with nettle, targets/gnutlsbuild.py).
HostBuild = Literal["source", "build-tree", "prefix"]
# Whether a library has firmware images: built by default, only when named, or none (a PC library).
Firmware = Literal["default", "on-request", "none"]
@dataclass(frozen=True)
class Library:
    name: str  # the identifier of its default version; the adapter folder agent/adapters/<name>
    display: str  # how prose names it: "Mbed TLS"
    versions: tuple[Version, ...]  # every version tlsbench can build (the default among them)
    default: str  # the default version's label: one line of data, switching it is this one edit
    # in a plan that names no libraries (the primitive catalog's libraries); False: selected by name
    in_default_plan: bool = True
    # the Debian development package of its system version (None: no system version)
    system_package: str | None = None
    host_build: HostBuild = "source"
    firmware: Firmware = "none"
    # the firmware build profile used when none is named (agent/adapters/<name>/profiles/<profile>.h)
    default_profile: str | None = None
    # the static archives (by basename) that are the library in a linker map (families/size/maps.py)
    size_archives: tuple[str, ...] = ()
    # size probe -> why the library's public API cannot do it in its tlsbench configuration
    size_unsupported: dict[str, str] = field(default_factory=dict)
    # algorithm -> why the library has none of it in any build (an unsupported case's reason)
    lacks: dict[str, str] = field(default_factory=dict)
    # what `tlsbench doctor` checks for it, in order
    doctor_checks: tuple[Check, ...] = ()
    # pinned sections its pinned builds need beside its own (GnuTLS 3.8: nettle, in its pins)
    companion_locks: tuple[str, ...] = ()
    # its pinned sources (a Version's lock and companion_locks name one by its section); what is no
    # library under test is pinned in libraries.lock.toml
    pins: tuple[PinnedSource, ...] = ()
    # how a user's own configuration file (--config) is layered over ours, what of it the harness needs
    # and which cases each define decides (libraries/configs.py); None: the library takes none
    config_mechanism: ConfigMechanism | None = None
    # its build profile "hw" (a crypto peripheral's driver, targets/hwcrypto.py): each case algorithm
    # the driver hands to a peripheral -> the board profile's accelerators it needs ([accelerators.NAME];
    # "a|b": either, the first the driver prefers)
    hw_routes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the object files of its own modules for those primitives (AES, GCM, SHA-1, SHA-256), whose flash
    # families/size/crypto_modules.py compares between the software and the "hw" image
    hw_modules: tuple[str, ...] = ()
    # the object files of an authenticated cipher's own modules (case algorithm -> objects): what study 003's
    # Table 5 counts as that cipher's flash (studies/study003_ciphers.py)
    cipher_modules: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # its build profiles that only some cores can build (the others build anywhere)
    core_profiles: tuple[CoreProfile, ...] = ()

    def version(self, label: str) -> Version | None:
        return next((v for v in self.versions if v.label == label), None)

    def profile_refusal(self, profile: str, cpu: str, where: str) -> str | None:
        """Why a firmware build for this core (on target `where`) cannot take this profile, in one line
        (None: it can)."""
        declared = next((p for p in self.core_profiles if p.name == profile), None)
        if declared is None or declared.builds_for(cpu):
            return None
        usable = [p.name for p in self.core_profiles if p.builds_for(cpu)]
        return (f"--profile {self.name}={profile} on {where} ({cpu}): {declared.what} builds for"
                f" {'/'.join(declared.cores)} only; on {cpu}: {', '.join(usable) + ' or ' if usable else ''}"
                "a C profile")
