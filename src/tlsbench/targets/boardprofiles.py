"""Board profiles: what the cycle model needs to know about a real board
(its core, clock, flash wait states, accelerators, memory sizes, optionally
its run current), one small TOML file per board under
``src/tlsbench/targets/boards/``, every figure with its source.

A profile is data, never code: a wrong key, type or value is an error that
names the file, the line and what is allowed. ``--board`` takes a shipped
name or the path of the user's own file (``resolve``), checked alike; a
figure the user vouches for without a document has the source "user".
"""

from __future__ import annotations

import difflib
import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench.errors import PlanError
from tlsbench.targets.accelerators import Accelerator, parse_table

BOARDS_DIR = Path(__file__).with_name("boards")

# the cores the cycle model has tables for (agent/qemu-plugin/cyclemodel_tables.c),
# and one it does not (RISC-V: a profile may exist before an emulated target does)
CORES = ("cortex-m0", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "rv32imc")

# key -> (type, required); every figure also needs an entry in [sources]
FIELDS: dict[str, tuple[type, bool]] = {
    "description": (str, True),
    "core": (str, True),
    "clock_hz": (int, True),
    "flash_wait_states": (int, True),
    "prefetch": (bool, True),  # sequential instruction fetch hidden by a prefetch buffer
    "art": (bool, True),  # ST's adaptive real-time accelerator (instruction and literal cache)
    "icache": (bool, True),
    "dcache": (bool, True),
    "flash_bytes": (int, True),
    "ram_bytes": (int, True),
    "multiplier_cycles": (int, False),  # ARMv6-M MULS: 1 (fast multiplier) or 32 (small)
    # the ART accelerator's caches, modelled line by line (else the model assumes it always hits)
    "flash_line_bytes": (int, False),  # bytes one flash access returns: an ART line
    "art_icache_lines": (int, False),
    "art_dcache_lines": (int, False),
    "run_current_ma": (float, False),  # with supply_v: energy per cycle
    "supply_v": (float, False),
    # the Cortex-M7's L1 caches, modelled line by line (else the model assumes they always hit)
    "icache_bytes": (int, False),
    "dcache_bytes": (int, False),
    # the flash interface's clock when it is slower than the core's (the STM32H7's AXI clock): its wait
    # states are counted in its own cycles, so a flash access costs more core cycles
    "flash_clock_hz": (int, False),
}
# Cortex-M7 L1 cache sizes the core can be built with (DDI 0489F, 5.9 "L1 caches": configurable;
# ST AN4839: 32-byte lines, instruction cache 2-way, data cache 4-way set associative)
M7_CACHE_BYTES = (4096, 8192, 16384, 32768, 65536)
FIGURES = tuple(k for k in FIELDS if k != "description")
# the source of a figure the user gives from their own knowledge (their clock set-up, a measurement)
USER_SOURCE = "user"
# sanity bounds: a value outside is a typo, never a board (a clock of 2**63 Hz once gave 7.8e-07 ns).
# key -> (lowest, highest, what the range is)
BOUNDS: dict[str, tuple[float, float, str]] = {
    # a 32.768 kHz watch crystal is the slowest clock a core runs from; NXP's i.MX RT1170 (Cortex-M7 at
    # 1 GHz) is the fastest Cortex-M part
    "clock_hz": (32_768, 1_000_000_000, "32.768 kHz to 1 GHz"),
    # on-chip memories: 1 KiB to 256 MiB
    "flash_bytes": (1024, 256 << 20, "1 KiB to 256 MiB"),
    "ram_bytes": (1024, 256 << 20, "1 KiB to 256 MiB"),
    # a microcontroller's typical run current, in mA (the largest Cortex-M7 parts draw a few hundred)
    "run_current_ma": (0.001, 1000.0, "1 uA to 1 A"),
    "supply_v": (0.5, 5.5, "0.5 V to 5.5 V"),
}


@dataclass(frozen=True)
class Profile:
    name: str
    path: Path
    description: str
    core: str
    clock_hz: int
    flash_wait_states: int
    prefetch: bool
    art: bool
    icache: bool
    dcache: bool
    flash_bytes: int
    ram_bytes: int
    sources: dict[str, str]
    multiplier_cycles: int = 1
    flash_line_bytes: int | None = None
    art_icache_lines: int | None = None
    art_dcache_lines: int | None = None
    run_current_ma: float | None = None
    supply_v: float | None = None
    icache_bytes: int | None = None
    dcache_bytes: int | None = None
    # crypto peripherals by algorithm ([accelerators.NAME]; targets/accelerators.py)
    accelerators: dict[str, Accelerator] = field(default_factory=dict)
    flash_clock_hz: int | None = None
    text: str = field(default="", repr=False, compare=False)  # the file as read: stored with a run
    shipped: bool = False  # one of src/tlsbench/targets/boards/, else the user's own file

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def ref(self) -> str:
        """How a run names it to its processes: a shipped name, or the file's path."""
        return self.name if self.shipped else str(self.path)

    @property
    def origin(self) -> str:
        """Where it came from, as a run stores it: "shipped", or the file's absolute path."""
        return "shipped" if self.shipped else str(self.path.resolve())

    def described(self) -> str:
        """One line for a run's context: the model's inputs, where they came from, the user's own figures."""
        mine = f"; source \"{USER_SOURCE}\": {', '.join(self.user_figures)}" if self.user_figures else ""
        where = "shipped" if self.shipped else f"file {self.origin}"
        return f"{self.summary()} ({where}, sha256 {self.sha256[:16]}{mine})"

    @property
    def user_figures(self) -> list[str]:
        """The figures whose source is the user's own word (an accelerator's as accelerators.NAME)."""
        return [*(k for k in FIGURES if self.sources.get(k, "").strip() == USER_SOURCE),
                *(f"accelerators.{n}" for n, a in self.accelerators.items() if a.source.strip() == USER_SOURCE)]

    @property
    def flash_access_cycles(self) -> int:
        """Core cycles a flash access adds beyond the core's own: its wait states, or, where the flash
        runs on a slower clock, its (wait states + 1) cycles in core cycles, less the one the core pays."""
        if self.flash_clock_hz is None or self.flash_clock_hz == self.clock_hz:
            return self.flash_wait_states
        return -(-(self.flash_wait_states + 1) * self.clock_hz // self.flash_clock_hz) - 1

    @property
    def energy_nj_per_cycle(self) -> float | None:
        """V * I / f, when the datasheet gives the run current at this clock and voltage."""
        if self.run_current_ma is None or self.supply_v is None:
            return None
        return self.supply_v * self.run_current_ma * 1e-3 / self.clock_hz * 1e9

    def summary(self) -> str:
        """The model's inputs, for a result's legend."""
        accel = [n for n, on in (("prefetch", self.prefetch), ("ART", self.art), ("I-cache", self.icache),
                                 ("D-cache", self.dcache)) if on]
        flash_clock = f" (at {self.flash_clock_hz / 1e6:g} MHz)" if self.flash_clock_hz else ""
        return (f"{self.name}: {self.core} at {self.clock_hz / 1e6:g} MHz, {self.flash_wait_states} flash wait"
                f" states{flash_clock}, {', '.join(accel) or 'no prefetch or cache'}")


def _line_of(text: str, table: str | None, key: str | None) -> int:
    current = None
    header = 0
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("["):
            current = line.strip("[] ")
            if current == table:
                header = i
            continue
        if key and current == table and line.split("=", 1)[0].strip().strip('"') == key:
            return i
    return header or 1


def _toml_error(path: Path, message: str) -> str:
    """tomllib's "... (at line N, column M)" as FILE:N: ...; not valid TOML."""
    m = re.search(r" \(at line (\d+), column \d+\)$", message)
    if m is None:
        return f"{path}: {message}; not valid TOML"
    return f"{path}:{m.group(1)}: {message[:m.start()]}; not valid TOML (https://toml.io)"


def _number(v: float) -> str:
    return f"{int(v):,}" if float(v).is_integer() else f"{v:g}"


def _type_name(t: type) -> str:
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string"}[t]


def parse(path: Path, text: str | None = None) -> Profile:
    """Reads and checks one profile; any fault is a PlanError naming file:line."""
    try:
        text = path.read_text() if text is None else text
        data = tomllib.loads(text)
    except OSError as e:
        raise PlanError(f"{path}: cannot read: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise PlanError(f"{path}: not UTF-8 text (byte {e.start}); a board profile is a TOML file") from e
    except ValueError as e:  # TOMLDecodeError, and dates out of range
        raise PlanError(_toml_error(path, str(e))) from e
    except RecursionError:
        raise PlanError(f"{path}: arrays or tables nested too deeply; not a board profile") from None

    def err(key: str | None, message: str, table: str | None = None) -> PlanError:
        return PlanError(f"{path}:{_line_of(text, table, key)}: {key or table}: {message}")

    allowed = [*FIELDS, "sources", "accelerators"]
    for key in data:
        if key not in allowed:
            near = difflib.get_close_matches(key, allowed, n=2)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise err(key, f"unknown key{hint}; allowed: {', '.join(allowed)}")
    values: dict[str, object] = {}
    for key, (kind, required) in FIELDS.items():
        if key not in data:
            if required:
                raise PlanError(f"{path}:1: {key}: missing (every profile sets: "
                                f"{', '.join(k for k, (_, r) in FIELDS.items() if r)})")
            continue
        v = data[key]
        ok = isinstance(v, kind) and not (kind is int and isinstance(v, bool))
        if kind is float and isinstance(v, int) and not isinstance(v, bool):
            v, ok = float(v), True
        if not ok:
            raise err(key, f"must be {_type_name(kind)}, got {v!r}")
        values[key] = v
    if values["core"] not in CORES:
        near = difflib.get_close_matches(str(values["core"]), CORES, n=2)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise err("core", f"unknown core {values['core']!r}{hint}; allowed: {', '.join(CORES)}")
    for key in ("clock_hz", "flash_bytes", "ram_bytes"):
        if int(values[key]) <= 0:  # type: ignore[call-overload]
            raise err(key, f"must be a positive integer, got {values[key]!r}")
    if not 0 <= int(values["flash_wait_states"]) <= 15:  # type: ignore[call-overload]
        raise err("flash_wait_states", f"must be 0..15, got {values['flash_wait_states']!r}")
    if "multiplier_cycles" in values and values["multiplier_cycles"] not in (1, 32):
        raise err("multiplier_cycles", f"must be 1 or 32, got {values['multiplier_cycles']!r}")
    art_keys = [k for k in ("flash_line_bytes", "art_icache_lines", "art_dcache_lines") if k in values]
    # without ART, the same keys describe a flash instruction cache with no data cache (the STM32G0's)
    icache_only = bool(values["icache"]) and not values["art"]
    if art_keys and not values["art"] and not icache_only:
        raise err(art_keys[0], "describes the flash's caches: only with art = true (the ART accelerator's), or"
                  " icache = true and art_dcache_lines = 0 (an instruction cache without a data cache)")
    if art_keys and len(art_keys) != 3:
        raise err(art_keys[0], "flash_line_bytes, art_icache_lines and art_dcache_lines go together")
    if "flash_line_bytes" in values and values["flash_line_bytes"] not in (4, 8, 16, 32):
        raise err("flash_line_bytes", f"must be 4, 8, 16 or 32, got {values['flash_line_bytes']!r}")
    for key in ("art_icache_lines", "art_dcache_lines"):
        if key not in values or (icache_only and key == "art_dcache_lines"):
            continue  # without ART the data cache's lines must be 0 (below)
        if not 1 <= int(values[key]) <= 256:  # type: ignore[call-overload]
            raise err(key, f"must be 1..256, got {values[key]!r}")
    if icache_only and art_keys and values["art_dcache_lines"] != 0:
        raise err("art_dcache_lines", f"must be 0 without ART (icache = true, art = false: no data cache),"
                  f" got {values['art_dcache_lines']!r}")
    l1_keys = [k for k in ("icache_bytes", "dcache_bytes") if k in values]
    if l1_keys and values["core"] != "cortex-m7":
        raise err(l1_keys[0], "describes the Cortex-M7's L1 caches: only with core = \"cortex-m7\"")
    if l1_keys and art_keys:
        raise err(art_keys[0], "a flash cache (flash_line_bytes, art_*) and the Cortex-M7's L1 caches"
                  " (icache_bytes, dcache_bytes) do not go together")
    if l1_keys and len(l1_keys) != 2:
        raise err(l1_keys[0], "icache_bytes and dcache_bytes go together")
    for key in l1_keys:
        if not values[key.replace("_bytes", "")]:
            raise err(key, f"gives a cache size: only with {key.replace('_bytes', '')} = true")
        if values[key] not in M7_CACHE_BYTES:
            raise err(key, f"must be one of {', '.join(map(str, M7_CACHE_BYTES))}, got {values[key]!r}")
    if "flash_clock_hz" in values and not 0 < int(values["flash_clock_hz"]) <= int(values["clock_hz"]):  # type: ignore[call-overload]
        raise err("flash_clock_hz", f"must be 1..clock_hz ({values['clock_hz']}), the flash interface's clock,"
                  f" got {values['flash_clock_hz']!r}")
    for key in ("run_current_ma", "supply_v"):
        if key in values and not float(values[key]) > 0:  # type: ignore[arg-type]
            raise err(key, f"must be a positive number, got {values[key]!r}")
    for key, (low, high, what) in BOUNDS.items():
        if key in values and not low <= values[key] <= high:  # type: ignore[operator]
            raise err(key, f"must be {_number(low)}..{_number(high)} ({what}), got {values[key]!r}")
    if ("run_current_ma" in values) != ("supply_v" in values):
        raise err("run_current_ma" if "run_current_ma" in values else "supply_v",
                  "run_current_ma and supply_v go together (energy per cycle needs both)")
    sources = data.get("sources")
    if not isinstance(sources, dict):
        raise PlanError(f"{path}:1: sources: missing [sources] table (a source for every figure: "
                        f"{', '.join(FIGURES)})")
    for key, v in sources.items():
        if key not in FIGURES:
            raise err(key, f"a source for an unknown figure; allowed: {', '.join(FIGURES)}", "sources")
        if not isinstance(v, str) or not v.strip():
            raise err(key, "must be a non-empty string naming the document (and table) the figure comes from,"
                      f' or "{USER_SOURCE}" for a figure you give yourself', "sources")
    for key in FIGURES:
        if key in values and key not in sources:
            raise err(key, "has no source: add it to [sources]")
    accelerators = parse_table(data["accelerators"], err) if "accelerators" in data else {}
    shipped = path.resolve().parent == BOARDS_DIR.resolve()
    return Profile(name=path.stem, path=path, sources=dict(sources), text=text, shipped=shipped,
                   accelerators=accelerators, **values)  # type: ignore[arg-type]


def names() -> list[str]:
    return sorted(p.stem for p in BOARDS_DIR.glob("*.toml"))


def is_file(ref: str) -> bool:
    """--board names a file (a path, or a name ending in .toml), else a shipped profile."""
    return "/" in ref or ref.endswith(".toml")


def resolve(ref: str) -> Profile:
    """A shipped profile by name, or the user's own file by its path."""
    return parse(Path(ref).expanduser()) if is_file(ref) else load(ref)


def from_stored(name: str, origin: str, text: str) -> Profile:
    """A profile as a run stored it (origin: "shipped" or the file's path)."""
    return parse(BOARDS_DIR / f"{name}.toml" if origin == "shipped" else Path(origin), text)


def load(name: str) -> Profile:
    path = BOARDS_DIR / f"{name}.toml"
    if not path.is_file():
        near = difflib.get_close_matches(name, names(), n=3)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise PlanError(f"unknown board profile {name!r}{hint}; known: {', '.join(names())}, or the path of"
                        " your own .toml file")
    return parse(path)
