"""Code size of a firmware image from its GNU ld map file: every input
section the linker kept, attributed to a component (the library under test,
its adapter, tlsbench's core and platform, the C runtime), split into flash
(text + rodata + initialised data) and RAM (data + bss), as `size` counts
them. Alignment fill is its own component, so the parts add up to the
image exactly."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tlsbench.errors import TlsbenchError
from tlsbench.libraries import registry

# archives (by basename) that are the library under test
LIBRARY_ARCHIVES = {
    **{lib.name: lib.size_archives for lib in registry.LIBRARIES if lib.size_archives},
    "selftest": (),
}
# tlsbench's core: the post-quantum images link their own (agent/CMakeLists.txt, tb_core_for)
CORE_ARCHIVES = ("libtb_core.a", "libtb_core_pq.a")
RUNTIME = re.compile(r"(^|/)(libc|libg|libgcc|libm|libnosys|libc_nano)\.a$|(^|/)crt[^/]*\.o$")
FLASH_ONLY = (".text", ".ARM.exidx", ".rodata")
FLASH_AND_RAM = (".data",)
RAM_ONLY = (".bss", ".stacks")  # .stacks: the painted stacks some boards place below the main stack

_OUTPUT = re.compile(r"^(\.[A-Za-z0-9_.]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)")
_INPUT = re.compile(r"^ (\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
_FILL = re.compile(r"^ \*fill\*\s+0x[0-9a-f]+\s+0x([0-9a-f]+)")


@dataclass
class Part:
    component: str
    flash_bytes: int = 0
    ram_bytes: int = 0


# a further version's archives (agent/adapters/*/library.cmake): Mbed TLS's
# targets prefixed "v<label>_" (libv3_6_7_mbedcrypto.a), wolfSSL's suffixed
# "-<label>" (libtb_wolfssl-5.9.a)
_VERSION_ARCHIVE = re.compile(r"^libv[0-9_]+_|-[0-9.]+(?=\.a$)")


def component_of(path: str, library: str) -> str:
    archive = path.split("(", 1)[0]
    library = library.split("@", 1)[0]  # "mbedtls@3.6.7": the library's own archives and adapter
    base = _VERSION_ARCHIVE.sub(lambda m: "lib" if m.group(0).startswith("lib") else "", archive.rsplit("/", 1)[-1])
    if base in LIBRARY_ARCHIVES.get(library, ()):
        return "library"
    if "/sizeprobe/" in path:  # a size probe's own object (agent/sizeprobe)
        return "size probe"
    if f"/adapters/{library}/" in path:
        return "adapter"
    if base in CORE_ARCHIVES or "/platform/" in path:
        return "tlsbench core + platform"
    if RUNTIME.search(archive):
        return "C runtime (newlib, libgcc)"
    return "other"


def _kind(output: str) -> str | None:
    if output.startswith(FLASH_ONLY):
        return "flash"
    if output.startswith(FLASH_AND_RAM):
        return "both"
    if output.startswith(RAM_ONLY):
        return "ram"
    return None  # debug and attribute sections: not in the image


def parse_map(text: str, library: str, classify: Callable[[str, str], str] | None = None) -> dict[str, Part]:
    """Input sections per output section; each counts from its address to the
    next one's (merged string sections overlap, and the map lists them at
    their size before merging), the last up to the end of its output section.
    classify(input section, file) names a section's part (default: its
    component, component_of)."""
    if "Linker script and memory map" not in text:
        raise TlsbenchError("not a GNU ld map file (no 'Linker script and memory map')")
    body = text.split("Linker script and memory map", 1)[1].splitlines()
    sections: dict[str, tuple[int, int, list[tuple[int, int, str]]]] = {}
    current: list[tuple[int, int, str]] | None = None
    pending = ""
    for line in body:
        if pending:  # a long section name puts its address, size and file on the next line
            line, pending = pending + line, ""
        m = _OUTPUT.match(line)
        if m and not line.startswith(" "):
            start = int(line.split()[1], 16)
            current = []
            sections[m.group(1)] = (start, start + int(m.group(2), 16), current)
            continue
        if current is None:
            continue
        if re.fullmatch(r" [.A-Za-z_][^\s]*", line) and not line.startswith(" *"):
            pending = line
            continue
        m = _FILL.match(line)
        if m:
            current.append((int(line.split()[1], 16), int(m.group(1), 16), "alignment"))
            continue
        m = _INPUT.match(line)
        if m and not m.group(1).startswith("*"):
            path = m.group(4).strip()
            part = classify(m.group(1), path) if classify is not None else component_of(path, library)
            current.append((int(m.group(2), 16), int(m.group(3), 16), part))

    parts: dict[str, Part] = {}
    for output, (start, end, entries) in sections.items():
        kind = _kind(output)
        if kind is None:
            continue
        entries = sorted(e for e in entries if e[1] > 0 and start <= e[0] < end)
        for i, (addr, size, component) in enumerate(entries):
            limit = entries[i + 1][0] if i + 1 < len(entries) else end
            size = max(0, min(size, limit - addr))
            p = parts.setdefault(component, Part(component))
            if kind in ("flash", "both"):
                p.flash_bytes += size
            if kind in ("ram", "both"):
                p.ram_bytes += size
    return parts


def sizes(map_path: Path, library: str) -> list[Part]:
    try:
        text = map_path.read_text()
    except OSError as e:
        raise TlsbenchError(f"cannot read the map file {map_path}: {e}") from e
    order = ["library", "adapter", "tlsbench core + platform", "C runtime (newlib, libgcc)", "other", "alignment"]
    parts = parse_map(text, library)
    return [parts[c] for c in order if c in parts]
