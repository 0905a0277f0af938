"""`tlsbench board new` and `board show`: a user's own board profile written
as a commented starting point from a shipped one, and a profile shown figure
by figure with its source.

The starting point is valid as written (a copy of the shipped figures); the
figures that depend on the user's firmware (clock, wait states, accelerators)
get the source "user", the chip's own figures keep the shipped profile's
sources, and every field says what it is and where to find it.
"""

from __future__ import annotations

import json
from pathlib import Path

from tlsbench.errors import PlanError
from tlsbench.targets import boardprofiles
from tlsbench.targets.accelerators import KEYS as ACCELERATOR_KEYS
from tlsbench.targets.boardprofiles import CORES, FIELDS, USER_SOURCE, Profile

# what each field is and where an engineer finds it for their board
HELP: dict[str, str] = {
    "description": "what the board is, shown in reports: board, chip, core and clock",
    "core": f"the CPU core, one of: {', '.join(CORES)} (the datasheet's first page)",
    "clock_hz": "the core clock (HCLK) your firmware sets, in Hz: your clock set-up code (STM32Cube:"
                " SystemClock_Config), at most the datasheet's maximum",
    "flash_wait_states": "flash wait states at that clock (STM32: FLASH_ACR LATENCY as your firmware sets it): the"
                         " reference manual's table of wait states per HCLK frequency, for your supply voltage",
    "prefetch": "true if the flash prefetch buffer is on (STM32: FLASH_ACR PRFTEN; STM32Cube: PREFETCH_ENABLE in"
                " the *_hal_conf.h)",
    "art": "true if ST's ART accelerator caches are on (FLASH_ACR ICEN/DCEN; STM32Cube: INSTRUCTION_CACHE_ENABLE,"
           " DATA_CACHE_ENABLE); false on chips without one",
    "icache": "true if an instruction cache in front of the flash is on (Cortex-M7: SCB_EnableICache(); other"
              " vendors' flash caches, e.g. Nordic NVMC ICACHECNF); the ART accelerator is `art`",
    "dcache": "true if the core's data cache is on (Cortex-M7: SCB_EnableDCache())",
    "flash_bytes": "the chip's flash in bytes: the datasheet's device summary or ordering information",
    "ram_bytes": "the chip's SRAM in bytes (every bank the firmware uses): the datasheet's device summary",
    "multiplier_cycles": "ARMv6-M (Cortex-M0/M0+) only: MULS cycles, 1 (fast multiplier) or 32 (small): the"
                         " reference manual's core description",
    "flash_line_bytes": "with art = true: bytes one flash read returns (an ART line: 4, 8, 16 or 32): the"
                        " reference manual's embedded flash section",
    "art_icache_lines": "with art = true: the ART instruction cache's lines (1..256): the reference manual's ART"
                        " accelerator section",
    "art_dcache_lines": "with art = true: the ART data cache's lines (1..256): the reference manual's ART"
                        " accelerator section; 0 for a flash instruction cache without ART (icache = true, art ="
                        " false: the STM32G0's)",
    "run_current_ma": "with supply_v: typical run current at this clock, in mA (energy = cycles x V x I / f):"
                      " the datasheet's 'current consumption in Run mode' table at your clock",
    "supply_v": "with run_current_ma: the supply voltage of that datasheet row, in V",
    "icache_bytes": "Cortex-M7 only, with icache = true: L1 instruction cache size (4096..65536): the datasheet",
    "dcache_bytes": "Cortex-M7 only, with dcache = true: L1 data cache size (4096..65536): the datasheet",
    "flash_clock_hz": "the flash interface's clock, when slower than clock_hz (the wait states count its cycles):"
                      " your clock set-up (an STM32H7's AXI clock, half the core's at 480 MHz)",
}
# figures your firmware decides (its clock set-up), so they are yours to vouch for
FIRMWARE_FIGURES = ("clock_hz", "flash_wait_states", "prefetch", "art", "icache", "dcache", "flash_clock_hz")


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:_}"
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)  # a TOML basic string: JSON's escapes are TOML's


def starting_point(base: Profile, out_name: str) -> str:
    """The commented TOML of a new profile copied from ``base``."""
    lines = [
        f"# A cycle-model board profile for your board, started from {base.name} (tlsbench board new).",
        "# Change every figure to your board's and give its source in [sources]: a document, section and",
        f'# table (e.g. "RM0390 rev 6, 3.4 Table 5"), or "{USER_SOURCE}" for a figure you vouch for yourself.',
        f"# Check it: tlsbench board show ./{out_name}",
        f"# Use it:   tlsbench run --target qemu:BOARD --board ./{out_name}   (tlsbench list targets)",
        "",
    ]
    present = [k for k in FIELDS if getattr(base, k) is not None and (k != "multiplier_cycles" or
                                                                        "multiplier_cycles" in base.sources)]
    for key in present:
        value = f"your board, started from {base.description}" if key == "description" else getattr(base, key)
        lines += [f"# {HELP[key]}", f"{key} = {_toml(value)}"]
    absent = [k for k in FIELDS if k not in present]
    if absent:
        lines += ["", "# optional, not set in " + base.name + ":"]
        lines += [f"#   {k}: {HELP[k]}" for k in absent]
    lines += ["", "[sources]"]
    for key in (k for k in present if k != "description"):
        if key in FIRMWARE_FIGURES:
            lines += [f"# set by your firmware: \"{USER_SOURCE}\" (or the document of your clock set-up)",
                      f"{key} = {_toml(USER_SOURCE)}"]
        else:
            lines += [f"# {base.name}'s source: replace it if your chip differs",
                      f"{key} = {_toml(base.sources[key])}"]
    for a in base.accelerators.values():
        lines += ["", f"# {base.name}'s {a.peripheral} for {a.algorithm}: keep it only if your chip has the same"
                  " peripheral (docs/cycle-model.md, \"Crypto accelerators\")", f"[accelerators.{a.algorithm}]"]
        for key in ACCELERATOR_KEYS:
            value = getattr(a, key)
            if value is None or value == 0:  # 0: unset (a block's figure on an operation, or the other way)
                continue
            lines.append(f"{key} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def write_new(base_ref: str, out: Path) -> Profile:
    """Writes the starting point to ``out`` (never over an existing file) and returns it, checked."""
    base = boardprofiles.resolve(base_ref)
    text = starting_point(base, out.name)
    try:
        with out.open("x") as f:
            f.write(text)
    except FileExistsError:
        raise PlanError(f"{out}: exists; give another -o path (board new never overwrites a file)") from None
    except OSError as e:
        raise PlanError(f"{out}: cannot write: {e.strerror or e}") from None
    return boardprofiles.parse(out)


def show(profile: Profile) -> str:
    """Every figure with its source."""
    where = "shipped" if profile.shipped else f"file {profile.origin}"
    lines = [profile.summary(), f"  {where}, sha256 {profile.sha256}", f"  {profile.description}"]
    for key in boardprofiles.FIGURES:
        value = getattr(profile, key)
        if value is None or (key == "multiplier_cycles" and key not in profile.sources):
            continue
        lines.append(f"  {key:18} {_toml(value):14} {profile.sources.get(key, '')}")
    for a in profile.accelerators.values():
        lines.append(f"  accelerator {a.summary()}")
        lines.append(f"    source: {a.source}")
    if not profile.accelerators:
        lines.append("  accelerators: none declared (every algorithm in software)")
    energy = profile.energy_nj_per_cycle
    lines.append(f"  model energy per cycle: {energy:g} nJ" if energy is not None
                 else "  model energy per cycle: n/a (no run_current_ma and supply_v)")
    return "\n".join(lines) + "\n"
