"""Code size per primitive: the size probes (agent/sizeprobe) are minimal
firmware images, one per library and primitive, that call only that
primitive through the library's own API; each is measured from its linker
map (sizes.parse_map, checked against the toolchain's size) and the library's
empty probe (same start-up, runtime and main, no library call) is
subtracted. The probe's own object (its calls and test vectors) is left
out, so a figure is what the primitive pulls in: library code and tables,
the C runtime it reaches (malloc, memcpy, ...; tlsbench's own platform
code, such as its _sbrk, is left out) and
alignment. Measured one case at a time by the size family (measure_case),
through the runner; `tlsbench sizes` (families.size.probes) builds the
images and stores them as a run of plan "code-size" (a case per library
and primitive, kind "size", results flash_bytes and ram_bytes)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.engine.case import Measured, Sample
from tlsbench.errors import PlanError, SetupError, TlsbenchError
from tlsbench.families.size.maps import parse_map
from tlsbench.libraries import registry
from tlsbench.targets import build
from tlsbench.targets import target as targets

# Rows of the table, in order: probe name -> what the image does.
PRIMITIVES: dict[str, str] = {
    "drbg": "the library's DRBG, seeded, one 32-byte output (in every probe that needs randomness)",
    "sha256": "SHA-256 of 64 bytes",
    "sha512": "SHA-512 of 64 bytes",
    "sha3-256": "SHA3-256 of 64 bytes",
    "hmac-sha256": "HMAC-SHA-256 (through the library's generic HMAC, which reaches every hash it has)",
    "aes-128": "AES-128 key schedule and one block encrypted (the raw block cipher)",
    "aes-128-gcm": "AES-128-GCM encrypt and decrypt",
    "aes-128-ccm": "AES-128-CCM encrypt and decrypt",
    "chacha20-poly1305": "ChaCha20-Poly1305 encrypt and decrypt",
    "aes-128-cbc": "AES-128-CBC encrypt and decrypt",
    "aes-128-cbc-hmac-sha1": "AES-128-CBC encrypt and decrypt + HMAC-SHA1 (a TLS 1.2 CBC record)",
    "x25519": "X25519: two key pairs and one shared secret (with the DRBG)",
    "p256-ecdh": "ECDH P-256: two key pairs and one shared secret (with the DRBG)",
    "ecdsa-p256-sign": "ECDSA P-256 sign (DER) from a raw private key (with the DRBG)",
    "ecdsa-p256-verify": "ECDSA P-256 verify (DER) from a raw public key",
    "ecdsa-p256-sign-verify": "ECDSA P-256 sign and verify",
    "ed25519-sign": "Ed25519 sign from a raw key pair",
    "ed25519-verify": "Ed25519 verify from a raw public key",
    "ed25519-sign-verify": "Ed25519 sign and verify",
    "rsa2048-verify": "RSA-2048 PKCS#1 v1.5 SHA-256 verify from the raw modulus and exponent",
    "rsa2048-sign": "RSA-2048 PKCS#1 v1.5 SHA-256 sign from the raw key parts (with the DRBG)",
    # post-quantum (FIPS 203/204), every random input given: seeds and the encapsulation message fixed
    "mlkem768-keygen": "ML-KEM-768 key pair from a fixed seed, public key encoded",
    "mlkem768": "ML-KEM-768 key pair, encapsulation to it and decapsulation (secrets compared)",
    "mldsa44-keygen": "ML-DSA-44 key pair from a fixed seed",
    "mldsa44": "ML-DSA-44 key pair, deterministic sign and verify",
    "mldsa65": "ML-DSA-65 key pair, deterministic sign and verify",
}
PQ_PROBES = ("mlkem768-keygen", "mlkem768", "mldsa44-keygen", "mldsa44", "mldsa65")
# What a library's public API cannot do in its tlsbench configuration.
UNSUPPORTED: dict[tuple[str, str], str] = {
    (lib.name, probe): why for lib in registry.LIBRARIES for probe, why in lib.size_unsupported.items()}
EMPTY = "empty"
PROBE_COMPONENT = "size probe"  # the probe's own object: left out of every figure
HARNESS_COMPONENT = "tlsbench core + platform"  # the harness's own code: left out of a figure


@dataclass
class Image:
    library: str
    probe: str
    path: Path
    parts: dict[str, tuple[int, int]]  # component -> (flash, ram)
    size_tool: tuple[int, int, int]  # the toolchain's size: text, data, bss

    @property
    def flash(self) -> int:
        return sum(f for f, _ in self.parts.values())

    @property
    def ram(self) -> int:
        return sum(r for _, r in self.parts.values())


@dataclass
class Delta:
    library: str
    probe: str
    flash_bytes: int  # image - empty image, without the probe's own object
    ram_bytes: int
    parts: dict[str, tuple[int, int]]  # per component, image - empty
    probe_own: tuple[int, int]  # the probe's own object (calls, vectors), left out
    size_tool: tuple[int, int, int]  # the image's text, data, bss by the toolchain's size


def unsupported(library: str, probe: str) -> str | None:
    """Why a library version has no such probe (None: it should have one)."""
    why = UNSUPPORTED.get((versions.base(library), probe))
    if why is None and probe in PQ_PROBES:
        having = [v for v in versions.having("kem") if versions.base(v) == versions.base(library)]
        if versions.canonical(library) in having:
            return None
        why = (f"{library} ({versions.version_of(library).note}) has no ML-KEM or ML-DSA"
               + (f"; {', '.join(having)} has" if having else ""))
    return why


def manifest(cmake_dir: Path) -> list[tuple[str, str, str]]:
    """(library, probe, executable) as sizeprobe.cmake configured them."""
    path = cmake_dir / "sizeprobes.txt"
    try:
        lines = path.read_text().split("\n")
    except OSError as e:
        raise SetupError(f"no size probes in {cmake_dir} ({e}); build them with tlsbench sizes") from e
    return [tuple(line.split()) for line in lines if line.strip()]  # type: ignore[misc]


def size_tool(path: Path, prefix: str = "arm-none-eabi-") -> tuple[int, int, int]:
    """text, data and bss by the toolchain's own size (GNU binutils, Berkeley
    format). A thread-local .tbss (picolibc's errno on RV32) takes no address
    space of its own: the image's .bss reserves its bytes (rv32-virt.ld), so
    it is taken out of Berkeley's bss, which would count it twice."""
    tool = f"{prefix}size"
    if shutil.which(tool) is None:
        raise SetupError(f"{tool} not found (scripts/setup installs it with the firmware toolchain)")
    out = subprocess.run([tool, "-B", str(path)], capture_output=True, text=True, check=False)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or len(lines) < 2:
        raise TlsbenchError(f"{tool} {path} failed: {out.stderr.strip()}")
    text, data, bss = (int(v) for v in lines[1].split()[:3])
    sysv = subprocess.run([tool, "-A", str(path)], capture_output=True, text=True, check=False).stdout
    tbss = re.search(r"^\.tbss\s+(\d+)\s", sysv, re.M)
    return text, data, bss - (int(tbss.group(1)) if tbss else 0)


def measure_image(cmake_dir: Path, library: str, probe: str, exe: str, prefix: str = "arm-none-eabi-") -> Image:
    path = cmake_dir / exe
    map_path = cmake_dir / f"{exe}.map"
    try:
        text = map_path.read_text()
    except OSError as e:
        raise TlsbenchError(f"size probe {library}/{probe}: cannot read {map_path}: {e}") from e
    parts = {p.component: (p.flash_bytes, p.ram_bytes) for p in parse_map(text, library).values()}
    img = Image(library, probe, path, parts, size_tool(path, prefix))
    t, d, b = img.size_tool
    if (img.flash, img.ram) != (t + d, d + b):
        raise TlsbenchError(f"size probe {library}/{probe}: the map's parts ({img.flash} flash, {img.ram} RAM)"
                            f" do not add up to {prefix}size (text {t}, data {d}, bss {b})")
    return img


def delta(image: Image, empty: Image) -> Delta:
    parts = {}
    for c in sorted(set(image.parts) | set(empty.parts)):
        f1, r1 = image.parts.get(c, (0, 0))
        f0, r0 = empty.parts.get(c, (0, 0))
        parts[c] = (f1 - f0, r1 - r0)
    own = parts.pop(PROBE_COMPONENT, (0, 0))
    # tlsbench's own platform code a primitive reaches (e.g. _sbrk and its
    # "heap arena full" message, reached through malloc) is the harness's,
    # not the library's: a product has its own. Kept in the parts, not summed.
    harness = parts.pop(HARNESS_COMPONENT, (0, 0))
    parts[f"{HARNESS_COMPONENT} (not counted)"] = harness
    counted = {c: v for c, v in parts.items() if not c.endswith("(not counted)")}
    return Delta(image.library, image.probe, sum(f for f, _ in counted.values()),
                 sum(r for _, r in counted.values()), parts, own, image.size_tool)


def too_big(exe: str) -> str:
    """Why a probe image is missing: the linker's overflow lines for it in the
    build log ("does not fit", with the bytes), or '' when none is found."""
    try:
        log = (paths.data_dir() / "logs" / "build.log").read_text()
    except OSError:
        return ""
    start = log.rfind(f"FAILED: {exe}")
    if start < 0:
        return ""
    block = log[start:].split("\nFAILED: ", 1)[0]
    return build.overflows(block)


def library_config(target: targets.Target, library: str) -> str:
    """The agent build's configuration line (the probes link the same library build)."""
    header = target.cmake_dir() / "generated" / library.replace("@", "-") / "tb_build_config.h"
    try:
        m = re.search(r'TB_LIBRARY_CONFIG "(.*)"', header.read_text())
    except OSError:
        m = None
    return m.group(1) if m else "unknown (no generated/tb_build_config.h)"


def chosen(probes: list[str] | None) -> tuple[str, ...]:
    """The table's rows to measure, in its order: every one, or these (an
    unknown name is a PlanError listing the known ones)."""
    if probes is None:
        return tuple(PRIMITIVES)
    unknown = [p for p in probes if p not in PRIMITIVES]
    if unknown or not probes:
        raise PlanError(f"unknown size probe {unknown[0] if unknown else '(none given)'!r}; known: "
                        + ", ".join(PRIMITIVES))
    return tuple(p for p in PRIMITIVES if p in probes)


def check_built(target: targets.Target, libraries: list[str], rows: tuple[str, ...], only: bool) -> None:
    """Every probe asked for is an image, one too big for the board (the
    build log says so) or one the library has not; each library built its
    empty image (subtracted from the others). only: the rows were chosen
    (else every image of the manifest is checked). Raises TlsbenchError."""
    cmake_dir = target.cmake_dir()
    entries = manifest(cmake_dir)
    built: dict[str, set[str]] = {}
    for library, probe, exe in entries:
        if only and probe not in (EMPTY, *rows):
            continue
        if not (cmake_dir / exe).exists():
            if not too_big(exe):
                raise TlsbenchError(f"size probe {library}/{probe} was not built (see .tlsbench/logs/build.log)")
            continue
        built.setdefault(library, set()).add(probe)
    for library, probes in built.items():
        if EMPTY not in probes:
            raise TlsbenchError(f"size probes of {library}: no empty probe to subtract")
        for p in sorted(probes - {EMPTY}):
            if p not in PRIMITIVES:
                raise TlsbenchError(f"size probe {library}/{p} is not in sizeprobes.PRIMITIVES")
    missing = [lib for lib in libraries if lib not in built]
    if missing:
        raise TlsbenchError(f"no size probes were built for {', '.join(missing)}")
    named = {(library, probe) for library, probe, _exe in entries}
    for lib in libraries:
        for probe in rows:
            if (lib, probe) not in named and unsupported(lib, probe) is None:
                raise TlsbenchError(f"no size probe {lib}/{probe} was built and none is known unsupported")


def measure_case(target: targets.Target, library: str, probe: str) -> Measured:
    """One probe of one library: its image minus the library's empty image
    (flash_bytes, ram_bytes, with the parts in the case's params), or why it
    has none: too big for the board (does_not_fit), or the library has no
    such call (unsupported)."""
    cmake_dir = target.cmake_dir()
    exes = {(lib, p): exe for lib, p, exe in manifest(cmake_dir)}
    config = library_config(target, library)
    params: dict = {"probe": probe, "what": PRIMITIVES[probe],
                    "profile": dict(target.profiles).get(versions.base(library), "default"), "library_config": config}
    exe = exes.get((library, probe))
    if exe is None:
        why = unsupported(library, probe)
        if why is None:
            raise TlsbenchError(f"no size probe {library}/{probe} was built and none is known unsupported")
        return Measured("unsupported", why, None, "", [], [], params=params)
    if not (cmake_dir / exe).exists():
        why = too_big(exe)
        if not why:
            raise TlsbenchError(f"size probe {library}/{probe} was not built (see .tlsbench/logs/build.log)")
        return Measured("does_not_fit", f"does not fit {target.board.name}: {why}", None, "", [], [], params=params)
    prefix = target.board.toolchain.prefix
    empty = measure_image(cmake_dir, library, EMPTY, exes[(library, EMPTY)], prefix)
    d = delta(measure_image(cmake_dir, library, probe, exe, prefix), empty)
    params["components"] = {c: {"flash_bytes": f, "ram_bytes": r} for c, (f, r) in d.parts.items()}
    params["probe_own"] = {"flash_bytes": d.probe_own[0], "ram_bytes": d.probe_own[1]}
    params["empty_image"] = {"flash_bytes": empty.flash, "ram_bytes": empty.ram}
    size = f"{prefix}size"
    transcript = (f"{empty.path.name}: {size} text/data/bss {empty.size_tool}\n"
                  f"tb-sizeprobe-{library.replace('@', '-')}-{probe}: {size} text/data/bss {d.size_tool}\n")
    samples = [Sample.one(0, m, v) for m, v in (("flash_bytes", d.flash_bytes), ("ram_bytes", d.ram_bytes))]
    return Measured("ok", "", 1, transcript, samples, [], params=params)
