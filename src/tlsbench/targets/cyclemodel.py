"""The cycle model: a QEMU plugin (agent/qemu-plugin/cyclemodel.c) that
gives every executed instruction its cycles on a board profile's core and
memory, and what turns its counts into a board's milliseconds.

A run names its profile (``tlsbench run --target qemu:mps2-an386 --board
nucleo-f446re``); the run records it in its environment (MODEL_ENV), which
every process of the run inherits: the bridge starts QEMU with the plugin,
the firmware reports ``model_cycles`` next to its exact instruction counts,
and the results gain ``model_time_ns`` (cycles / clock) and, where the
profile has the run current, ``model_energy_nj``. All three are a model's
figures, never measurements, and are labelled so.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from tlsbench import paths
from tlsbench.engine import metrics
from tlsbench.engine.case import Result
from tlsbench.errors import PlanError, SetupError
from tlsbench.targets import board as boards

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from tlsbench.targets.boardprofiles import Profile

MODEL_ENV = "TLSBENCH_MODEL_BOARD"
# with a user's profile file: its SHA-256 at the run's start, so no process of the run (or a resume)
# models with an edited file
MODEL_SHA_ENV = "TLSBENCH_MODEL_BOARD_SHA256"
# a debug aid, off when unset: the plugin appends its flash access counts to this file at every mark
# (docs/cycle-model.md, "Where the flash cycles go")
STATS_ENV = "TLSBENCH_MODEL_STATS"
MARK_SYMBOL = "tb_model_mark"
PLUGIN_SOURCES = ("cyclemodel.c", "cyclemodel_tables.c", "cyclemodel_m7.c", "cyclemodel_rv32.c")
# the profile's core -> the emulated cores whose firmware it can model: the
# same instruction set (ARMv6-M firmware built for the M0 runs unchanged on an M0+)
EMULATED_CORES = {
    "cortex-m0": ("cortex-m0",), "cortex-m0plus": ("cortex-m0",), "cortex-m3": ("cortex-m3",),
    "cortex-m4": ("cortex-m4",), "cortex-m7": ("cortex-m7",), "cortex-m33": ("cortex-m33",),
    "rv32imc": ("rv32imc",),
}
MODEL_SUFFIXES = ("model_cycles", "model_time_ns", "model_energy_nj")


def plugin_path() -> Path:
    return paths.root() / "build" / "qemu-plugin" / "libcyclemodel.so"


def build_plugin() -> Path:
    """Compiles the plugin against the pinned qemu-plugin.h (fetched and
    verified like the library sources); rebuilt when a source is newer."""
    out = plugin_path()
    src_dir = paths.root() / "agent" / "qemu-plugin"
    srcs = [src_dir / n for n in PLUGIN_SOURCES]
    from tlsbench.targets import sources  # here, not at the top: a bridge imports this module on every start

    header_dir = sources.ensure_sources(["qemu"])["qemu"] / "include" / "qemu"
    newest = max(p.stat().st_mtime for p in [*srcs, *src_dir.glob("*.h")])
    if out.exists() and out.stat().st_mtime >= newest:
        return out
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise SetupError("no C compiler for the cycle model plugin (apt-get install build-essential)")
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [cc, "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{header_dir}", f"-I{src_dir}",
           "-o", str(out), *map(str, srcs)]
    logger.info(f"building the cycle model plugin {out}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SetupError(f"building the cycle model plugin failed:\n{proc.stderr.strip()[-2000:]}")
    return out


def check_target(profile: Profile, board: boards.Board) -> None:
    """A profile models the firmware of an emulated board with its instruction set."""
    emulated = EMULATED_CORES[profile.core]
    if not emulated:
        raise PlanError(f"board profile {profile.name} ({profile.core}) is unsupported: no emulated target runs"
                        f" {profile.core} firmware yet")
    if board.machine is None:
        raise PlanError(f"--board {profile.name} as a cycle model needs an emulated target (qemu:...)")
    if board.cpu not in emulated:
        fits = [f"qemu:{b.name}" for b in boards.BOARDS.values() if b.machine and b.cpu in emulated]
        raise PlanError(f"board profile {profile.name} is a {profile.core}; qemu:{board.name} emulates a {board.cpu}"
                        f" (use {' or '.join(fits) or 'a matching target'})")


# ---- the firmware image: where its code and constants live, where the marker is ----

def _elf_sections(data: bytes) -> list[tuple[int, int, int, int]]:
    """(type, flags, address, size) of every section of a 32-bit little-endian ELF."""
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise SetupError("not a 32-bit little-endian ELF image")
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    out = []
    for i in range(shnum):
        _name, typ, flags, addr, _off, size = struct.unpack_from("<IIIIII", data, shoff + i * shentsize)
        out.append((typ, flags, addr, size))
    return out


def code_range(firmware: Path) -> tuple[int, int]:
    """The span of the image's read-only loaded sections (code and
    constants): on a board, its flash."""
    SHF_WRITE, SHF_ALLOC, SHT_NOBITS = 1, 2, 8
    spans = [(a, a + s) for typ, flags, a, s in _elf_sections(firmware.read_bytes())
             if flags & SHF_ALLOC and not flags & SHF_WRITE and typ != SHT_NOBITS and s]
    if not spans:
        raise SetupError(f"{firmware}: no read-only sections")
    return min(a for a, _ in spans), max(b for _, b in spans)


def symbols(firmware: Path, prefix: str = "arm-none-eabi-") -> dict[str, int]:
    """The image's symbols and their addresses (a Thumb function's bit 0 cleared)."""
    nm = shutil.which(f"{prefix}nm")
    if nm is None:
        raise SetupError(f"{prefix}nm not found (apt-get install binutils-{prefix.rstrip('-')})")
    proc = subprocess.run([nm, str(firmware)], capture_output=True, text=True)
    out = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            out[parts[2]] = int(parts[0], 16) & ~1
    return out


def mark_address(firmware: Path, prefix: str = "arm-none-eabi-") -> int:
    found = symbols(firmware, prefix).get(MARK_SYMBOL)
    if found is None:
        raise SetupError(f"{firmware} has no {MARK_SYMBOL} (rebuild it: tlsbench build --target ...)")
    return found


L1_LINE = 32  # bytes in a Cortex-M7 L1 cache line (ST AN4839)


def plugin_args(profile: Profile, firmware: Path, out_file: Path, nm_prefix: str = "arm-none-eabi-") -> list[str]:
    """The plugin's arguments for this profile and image. The memory model
    (docs/cycle-model.md): a taken branch refetches from flash and pays its
    wait states unless ART or an instruction cache hides them; a data load
    from the code range pays them unless ART or a data cache does; without
    prefetch every instruction pays them; SRAM has none. A profile that
    describes its ART accelerator's caches has them modelled line by line
    instead (a miss pays the wait states, less what the prefetch hid)."""
    ws = profile.flash_wait_states
    branch_ws = 0 if profile.art or profile.icache else ws
    load_ws = 0 if profile.art or profile.dcache else ws
    seq_ws = 0 if profile.prefetch or profile.art or profile.icache else ws
    lo, hi = code_range(firmware)
    args = [f"core={profile.core}", f"mark={mark_address(firmware, nm_prefix):#x}", f"out={out_file}",
            f"branch_ws={branch_ws}", f"load_ws={load_ws}", f"seq_ws={seq_ws}", f"flash={lo:#x}-{hi:#x}",
            f"muls={profile.multiplier_cycles}"]
    # line by line: the ART's caches (an always-hitting icache would hide them), or a flash instruction
    # cache without ART and without a data cache (the STM32G0's: art_dcache_lines = 0, loads pay load_ws)
    if profile.art_icache_lines and profile.art != profile.icache:
        args += [f"art_ws={ws}", f"art_fetch={profile.flash_line_bytes}", f"art_ilines={profile.art_icache_lines}",
                 f"art_dlines={profile.art_dcache_lines}", f"art_prefetch={int(profile.prefetch)}"]
    if profile.icache_bytes and profile.dcache_bytes:
        # the Cortex-M7's L1 caches (docs/cycle-model.md, "The Cortex-M7 L1 caches"): 32-byte lines,
        # 2-way I, 4-way D (ST AN4839); a miss pays one flash access (critical word first, DDI 0489F
        # 5.9) in core cycles (the H7's flash runs on the slower AXI clock), no next-line prefetch
        args += [f"art_ws={profile.flash_access_cycles}", f"art_fetch={L1_LINE}",
                 f"art_ilines={profile.icache_bytes // L1_LINE}", "art_iways=2",
                 f"art_dlines={profile.dcache_bytes // L1_LINE}", "art_dways=4", "art_prefetch=0"]
    if stats := os.environ.get(STATS_ENV, "").strip():
        args.append(f"stats={stats}")
    from tlsbench.targets import hwcrypto  # here, not at the top: only a board profile's run needs it

    args += hwcrypto.plugin_args(profile, symbols(firmware, nm_prefix))  # an accelerated build's peripheral
    for a in args:
        if "," in a:  # QEMU splits -plugin options at commas
            raise SetupError(f"a cycle model argument cannot contain a comma: {a!r}")
    return args


def qemu_command(board: boards.Board, firmware: Path, profile: Profile, workdir: Path) -> list[str]:
    """The emulator command with the plugin: the firmware learns the model's
    file from the semihosting command line."""
    plugin = plugin_path()
    if not plugin.exists():
        raise SetupError(f"the cycle model plugin is not built ({plugin}): tlsbench build --target qemu:{board.name}")
    count_file = workdir / "model-cycles"
    if not re.fullmatch(r"[A-Za-z0-9_./-]+", str(count_file)):
        raise SetupError(f"the model's file path {count_file} has characters QEMU's options cannot carry")
    cmd = boards.qemu_command(board, firmware)
    i = cmd.index("-semihosting-config")
    cmd[i + 1] += f",arg=tlsbench,arg={count_file}"
    return [*cmd, "-plugin", ",".join([str(plugin), *(f"{a}" for a in plugin_args(profile, firmware, count_file,
                                                                                board.toolchain.prefix))])]


def private_dir() -> Path:
    """A directory of this process's own (0700) for the model's file."""
    return Path(tempfile.mkdtemp(prefix="tlsbench-model-"))


def run_env(profile: Profile) -> dict[str, str]:
    """What a run records in its environment to model on this profile: a
    shipped profile by name, a user's file by its absolute path and hash."""
    if profile.shipped:
        return {MODEL_ENV: profile.name}
    return {MODEL_ENV: str(profile.path.resolve()), MODEL_SHA_ENV: profile.sha256}


def active_profile() -> Profile | None:
    """The run's profile (from its environment), or None; a user's file
    edited since the run started is refused."""
    from tlsbench.targets import boardprofiles

    ref = os.environ.get(MODEL_ENV, "").strip()
    if not ref:
        return None
    profile = boardprofiles.resolve(ref)
    want = os.environ.get(MODEL_SHA_ENV, "").strip()
    if want and profile.sha256 != want:
        raise PlanError(f"{ref}: the board profile changed since this run started (sha256 {want[:12]}... then,"
                        f" {profile.sha256[:12]}... now); restore it, or start a new run")
    return profile


# ---- results ----

def legend(env: dict[str, str], stored: Profile | None = None) -> str | None:
    """What a run's model figures are, for a table's legend (None: no model);
    ``stored``: the profile as the run stored it (runs before that: read now)."""
    name = env.get(MODEL_ENV)
    if not name:
        return None
    from tlsbench.targets import boardprofiles

    try:
        profile = stored or boardprofiles.resolve(name)
    except PlanError as e:
        return f"model: board profile {name} (cannot be read now: {e})"
    source = ("the SiFive E31 manual's pipeline figures for an RV32 class core (its error not measured)"
              if profile.core.startswith("rv32") else "the Arm TRM tables and the board's wait states")
    return (f"model: cycles and time (cycles / clock) from the cycle model of board profile {profile.summary()}"
            f" (docs/cycle-model.md): a model from {source}, not a measurement on the board")

def derived_results(results: list[Result], profile: Profile | None = None) -> list[Result]:
    """model_time_ns (and model_energy_nj) results from every *model_cycles
    result: a fixed scale of each of its statistics (units from the metric
    registry)."""
    profile = profile or active_profile()
    if profile is None:
        return []
    scales = [("model_time_ns", 1e9 / profile.clock_hz)]
    if profile.energy_nj_per_cycle is not None:
        scales.append(("model_energy_nj", profile.energy_nj_per_cycle))
    out = []
    for r in results:
        if not r.metric.endswith("model_cycles"):
            continue
        for suffix, k in scales:
            name = r.metric.replace("model_cycles", suffix)

            def scaled(v: float | None, k: float = k) -> float | None:
                return None if v is None else v * k

            out.append(Result.of(name, metrics.unit(name), r.n, r.removed, r.median * k, r.mean * k, scaled(r.stdev),
                              r.min * k, r.max * k, scaled(r.ci95_low), scaled(r.ci95_high)))
    return out
