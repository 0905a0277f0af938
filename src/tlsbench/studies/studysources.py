"""The published figures of the five studies tlsbench re-runs, read from
the studies' own texts (shared/studies/NNN_*.txt beside the checkout), never
typed in: each reader takes the table as the text prints it and says which
line it could not read.

Each figure keeps the line it came from (``quote``), so a study page can
cite it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths
from tlsbench.errors import PlanError


@dataclass(frozen=True)
class Figure:
    key: tuple[str, ...]  # what it is a figure of, in the study's own terms
    value: float
    unit: str
    quote: str  # the study's line


def studies_dir() -> Path:
    """shared/studies beside the checkout (where the session's shared folder lies)."""
    return paths.root().parent / "shared" / "studies"


def study_text(number: str, where: Path | None = None) -> tuple[Path, str]:
    folder = where or studies_dir()
    found = sorted(folder.glob(f"{number}_*.txt"))
    if not found:
        raise PlanError(f"{folder}: no study {number}_*.txt (the published studies' texts: shared/studies)")
    return found[0], found[0].read_text(encoding="utf-8")


def _number(text: str) -> float:
    return float(text.replace(",", "").strip())


# ---- 000: Mbed TLS handshake time per TLS 1.2 suite (STM32F746) ----

_SUITE_ROW = re.compile(r"^`MBEDTLS_(TLS_\w+)`\s*\|\s*([0-9,.]+)\s*ms\s*$")


def handshake_by_suite(text: str) -> list[Figure]:
    """The table "Cipher | Execution Time": one handshake time per suite, in ms."""
    out = [Figure((m[1],), _number(m[2]), "ms", line.strip())
           for line in text.splitlines() if (m := _SUITE_ROW.match(line.strip()))]
    if not out:
        raise PlanError("study 000: no row of its 'Cipher | Execution Time' table")
    return out


# ---- 001: TCP vs TLS 1.2 + RSA vs TLS 1.3 + RSA / ECDSA per platform ----

_TLS13_ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*(TCP|TLS 1\.[23] \+ \w+)\s*\|\s*([0-9.]+)ms\s*\|\s*([0-9]+) bytes\s*"
                        r"\|\s*([0-9.]+)MB\s*\|$")


def connection_types(text: str) -> list[Figure]:
    """The platform table: per (platform, connection type) the handshake
    time (ms), bytes sent + received and peak memory (MB, as printed)."""
    out = []
    for line in text.splitlines():
        m = _TLS13_ROW.match(line.strip())
        if m:
            key = (m[1], m[2])
            out += [Figure((*key, "time"), float(m[3]), "ms", line.strip()),
                    Figure((*key, "bytes"), float(m[4]), "B", line.strip()),
                    Figure((*key, "memory"), float(m[5]), "MB", line.strip())]
    if not out:
        raise PlanError("study 001: no row of its platform table")
    return out


# ---- 003: the IoT paper's tables (STM32F217 at 120 MHz) ----

def _table(text: str, title: str) -> list[str]:
    """The tab-separated rows after a table's title, to the first line that is not one."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(title)), None)
    if start is None:
        raise PlanError(f"study 003: no '{title}'")
    rows: list[str] = []
    for line in lines[start + 1:]:
        if "\t" in line:
            rows.append(line)
        elif rows:
            break
    return rows


def aead_throughput(text: str) -> list[Figure]:
    """Table 3: software and hardware throughput (B/s) per AEAD at 120 MHz on 15 KB packets."""
    out = []
    for row in _table(text, "Table 3:")[1:]:
        name, sw, hw = row.split("\t")
        out.append(Figure((name, "SW"), _number(sw), "B/s", row.replace("\t", " | ")))
        if hw.strip() != "NA":
            out.append(Figure((name, "HW"), _number(hw), "B/s", row.replace("\t", " | ")))
    return out


def curve_ram(text: str) -> list[Figure]:
    """Table 4: stack and heap (bytes) per elliptic-curve operation."""
    out = []
    for row in _table(text, "Table 4:")[1:]:
        cells = row.split("\t")
        out += [Figure((cells[0], what), _number(cells[i]), "B", row.replace("\t", " | "))
                for i, what in ((1, "stack"), (2, "heap"))]
    return out


def cipher_space(text: str) -> list[Figure]:
    """Table 5: per authenticated cipher and build (SW, HW) its stack, heap, total RAM, code, constant data
    and total flash (bytes)."""
    out = []
    for row in _table(text, "Table 5:")[1:]:
        cells = row.split("\t")
        quote = row.replace("\t", " | ")
        out += [Figure((cells[0], what), _number(cells[i]), "B", quote)
                for i, what in ((1, "stack"), (2, "heap"), (3, "ram"), (4, "code"), (5, "const"), (6, "flash"))]
    return out


def handshake_ram(text: str) -> list[Figure]:
    """Table 6: per suite and authentication, each side's stack and heap (KB, as printed)."""
    out = []
    suite = ""
    for row in _table(text, "Table 6:")[2:]:
        cells = row.split("\t")
        if cells[0]:
            suite = cells[0]
        auth = cells[1]
        quote = row.strip().replace("\t", " | ")
        out += [Figure((suite, auth, side, what), _number(cells[i]), "KB", quote)
                for i, side, what in ((2, "client", "stack"), (3, "client", "heap"), (5, "server", "stack"),
                                      (6, "server", "heap"))]
    return out


def encryption_overhead(text: str) -> list[Figure]:
    """Table 2: clock cycles to encrypt a handshake's messages per certificate type."""
    out = []
    for row in _table(text, "Table 2:")[1:]:
        cert, sw, hw = row.split("\t")
        out += [Figure((cert, "SW"), _number(sw), "cycles", row.replace("\t", " | ")),
                Figure((cert, "HW"), _number(hw), "cycles", row.replace("\t", " | "))]
    return out


# ---- 004: RIOT's hash times per board, algorithm and size ----

_HASH_ROW = re.compile(r"^\|\s*(nucleo-\w+)\s*\|\s*(\w+)\s*\|\s*([0-9]+)\s*\|\s*([0-9.]+)\s*\|$")


def hash_times(text: str) -> list[Figure]:
    """The results table: microseconds per (board, algorithm, input size)."""
    out = [Figure((m[1], m[2].replace("_", "-"), m[3]), float(m[4]), "us", line.strip())
           for line in text.splitlines() if (m := _HASH_ROW.match(line.strip()))]
    if not out:
        raise PlanError("study 004: no row of its results table")
    return out


__all__ = ["Figure", "aead_throughput", "cipher_space", "connection_types", "curve_ram", "encryption_overhead",
           "handshake_by_suite", "handshake_ram", "hash_times", "studies_dir", "study_text"]
