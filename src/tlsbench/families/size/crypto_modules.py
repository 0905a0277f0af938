"""Flash and static RAM of the primitives a "hw" build hands to a crypto
peripheral, read from one firmware image's GNU ld map (maps.parse_map): the
library's own modules for them (AES, GCM, SHA-1, SHA-256), the driver a
"hw" build adds (adapters/<lib>/hw*.c, platform/cortexm/hwcrypto.c) and,
apart, the stand-in the cycle model computes results with (Mbed TLS's
modules compiled once more, hw/standin_*.c: no product has it). The
software image and the "hw" image side by side are the paper's Table 5
comparison: the crypto code a product keeps with and without the
peripheral. The modelled register blocks (tb_hw, tb_pka) are a peripheral's memory
on a chip, never RAM: counted apart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tlsbench.errors import TlsbenchError
from tlsbench.families.size.maps import Part, component_of, parse_map
from tlsbench.libraries import registry

MODULES = "crypto modules"
DRIVER = "accelerator driver"
STANDIN = "stand-in (the model's; no product has it)"
REGISTERS = "register block (a peripheral's on a chip)"
REST = "rest of the image"
ORDER = (MODULES, DRIVER, STANDIN, REGISTERS, REST)
DRIVER_OBJECTS = ("hw.c.obj", "hw_gcm.c.obj", "hw_ecdsa.c.obj", "hwcrypto.c.obj")


def _object(path: str) -> str:
    """The object file's name: an archive member's, or a loose object's."""
    member = path.split("(", 1)[1].rstrip(")") if "(" in path else path
    return member.rsplit("/", 1)[-1]


def classifier(library: str) -> Callable[[str, str], str]:
    """parse_map's classify for this library's image."""
    record = registry.get(library)
    modules = record.hw_modules if record is not None else ()
    if not modules:
        known = ", ".join(lib.name for lib in registry.LIBRARIES if lib.hw_modules)
        raise TlsbenchError(f"no crypto modules known for {library}; known: {known}")

    def part(section: str, path: str) -> str:
        obj = _object(path)
        if section in (".bss.tb_hw", ".bss.tb_pka"):  # the CRYP/HASH's and the PKA's
            return REGISTERS
        component = component_of(path, library)
        if component == "library" and obj.startswith("standin_"):
            return STANDIN
        if obj in DRIVER_OBJECTS and (component in ("library", "adapter") or "/platform/cortexm/" in path):
            return DRIVER
        if component == "library" and obj in modules:
            return MODULES
        return REST

    return part


def crypto_parts(map_path: Path, library: str) -> dict[str, Part]:
    """The image's parts (ORDER's names; a part the image lacks is absent)."""
    classify = classifier(library)
    try:
        text = map_path.read_text()
    except OSError as e:
        raise TlsbenchError(f"cannot read the map file {map_path}: {e}") from e
    return parse_map(text, library, classify)


def object_parts(map_path: Path, library: str) -> dict[str, Part]:
    """The image's library code per object file (e.g. "aes.c.obj"), the accelerator driver as DRIVER and the
    stand-in as STANDIN: a primitive's own modules summed by its reader (study 003's Table 5)."""
    crypto = classifier(library)

    def part(section: str, path: str) -> str:
        kind = crypto(section, path)
        if kind in (DRIVER, STANDIN, REGISTERS):
            return kind
        return _object(path) if component_of(path, library) == "library" else REST

    try:
        text = map_path.read_text()
    except OSError as e:
        raise TlsbenchError(f"cannot read the map file {map_path}: {e}") from e
    return parse_map(text, library, part)
