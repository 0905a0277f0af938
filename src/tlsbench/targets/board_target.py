"""What every firmware target shares (emulated, serial or in a labgrid
farm): images built per board under build/, a launcher per library that
runs tlsbench.targets.bridge, does-not-fit stamps, code sizes from linker
maps and the board's metadata. The kinds add how the bridge reaches the
board."""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import tempfile
from abc import abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from tlsbench.errors import AgentError, TlsbenchError
from tlsbench.targets.base import Target

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from tlsbench.plans.model import Plan
    from tlsbench.targets.libraries import LibraryInfo


def _output(*args: str) -> str:
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out


class BoardTarget(Target):
    memory_bound: ClassVar[bool] = True
    runs_firmware: ClassVar[bool] = True
    default_preset: ClassVar[str | None] = "cortex-m"

    def describe(self) -> str:
        assert self.board is not None
        return f"{self.name}: {self.board.description}"

    @abstractmethod
    def bridge_args(self, library: str) -> list[str]:
        """The arguments of tlsbench.targets.bridge.main that reach this board."""

    def launcher(self, library: str) -> Path:
        """The executable the runner starts: it runs tlsbench.targets.bridge for this
        target and firmware. Built from our own fixed values, never from input
        (repr() quotes them)."""
        path = self.agent_path(library)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = (f"#!{sys.executable}\n"
                "# Written by tlsbench build: runs this firmware's agent behind a pipe.\n"
                "import sys\n"
                "from tlsbench.targets import bridge\n"
                f"sys.exit(bridge.main({self.bridge_args(library)!r}))\n")
        if path.exists() and path.read_text() == text and os.access(path, os.X_OK):
            return path
        # written beside it and moved into place: another process may be starting the old one just now, and
        # executing a file that is open for writing fails ("Text file busy")
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{path.name}.", delete=False) as f:
            f.write(text)
        os.chmod(f.name, 0o755)
        os.replace(f.name, path)
        return path

    def fit(self, plan: Plan) -> None:
        """A firmware target runs the embedded libraries only, and its counts are
        exact: one round and a few repeats show them (identical) without the
        rounds and repeats that a noisy clock needs."""
        from tlsbench.targets.build import FIRMWARE_LIBRARIES, FIRMWARE_ON_REQUEST, is_firmware_library

        dropped = [lib for lib in plan.libraries if not is_firmware_library(lib)]
        plan.libraries = [lib for lib in plan.libraries if is_firmware_library(lib)]
        if dropped:
            logger.info(f"note: {', '.join(dropped)} run on the host only (no firmware build): not on {self.name}")
        if not plan.libraries:
            raise TlsbenchError(f"no library of this plan has firmware for {self.name}; "
                                f"firmware libraries: {', '.join(FIRMWARE_LIBRARIES + FIRMWARE_ON_REQUEST)}")
        if self.deterministic:
            plan.method.rounds = 1
            plan.method.repeats = min(plan.method.repeats, 3)
            plan.method.warmup = min(plan.method.warmup, 1)
            plan.method.outliers = "none"

    def for_plan(self, plan: Plan) -> Target:
        """A plan with one side of its handshakes on the device runs on the
        board's one-side image (every case of it: primitives too)."""
        return dataclasses.replace(self, one_side=True) if plan.device_side else self

    def turned_off(self) -> dict[str, set[str]]:
        from tlsbench.targets.build import turned_off

        return turned_off(self)

    def does_not_fit(self, library: str) -> str | None:
        firmware = self.firmware_path(library)
        too_big = firmware.parent / f"{firmware.name}.does-not-fit"
        return too_big.read_text().strip() if too_big.exists() else None

    def probe_library(self, library: str, timeout: float | None = None) -> LibraryInfo:
        from tlsbench.targets.libraries import probe

        self._sound_image(library)
        return probe(library, path=self.launcher(library), firmware=self.firmware_path(library), timeout=timeout or 60)

    def image_sha256(self, library: str) -> str | None:
        from tlsbench.targets import firmware as firmware_stamps

        self._sound_image(library)
        return firmware_stamps.image_sha256(self.firmware_path(library))

    def _sound_image(self, library: str) -> None:
        """Raises AgentError when the library's image is missing, or damaged since its build."""
        from tlsbench.targets import firmware as firmware_stamps

        if not self.firmware_path(library).exists():
            raise AgentError(f"no {library} firmware for {self.name} (run: tlsbench build --target {self.name})")
        damaged = firmware_stamps.damaged_image(self, library)  # truncated or overwritten since its build
        if damaged:
            raise AgentError(damaged)

    def code_sizes(self, library: str) -> list[tuple[str, int, int]] | None:
        from tlsbench.families.size import maps

        return [(p.component, p.flash_bytes, p.ram_bytes) for p in maps.sizes(self.map_path(library), library)]

    def metadata(self) -> dict[str, object]:
        """What makes firmware numbers what they are: the board, its core, the
        cross-compiler and its C library (the kinds add how it runs)."""
        board = self.board
        assert board is not None
        out: dict[str, object] = {
            "board": board.name, "board_cpu": board.cpu, "board_ram_bytes": board.ram_bytes,
            "board_counter": board.counter, "profiles": dict(self.profiles),
            "one_side_image": self.one_side,  # the lean image of device-side runs
            "cross_compiler": (_output(f"{board.toolchain.prefix}gcc", "--version").splitlines()
                               or ["unknown"])[0],
        }
        if board.arch == "arm":
            out["newlib"] = _output("dpkg-query", "-W", "-f=${Version}", "libnewlib-arm-none-eabi") or "unknown"
        else:  # the C library of the RV32 class images
            out["picolibc"] = (_output("dpkg-query", "-W", "-f=${Version}", "picolibc-riscv64-unknown-elf")
                               or "unknown")
        return out

    def build(self, libraries: list[str] | None, opt: str, jobs: int | None, one_side: bool) -> None:
        from tlsbench.targets.build import build_firmware

        build_firmware(dataclasses.replace(self, one_side=one_side), libraries, opt=opt, jobs=jobs)

    def listed_libraries(self) -> list[str]:
        """The default images, and each further version's image where it is built."""
        from tlsbench.targets.build import firmware_versions

        return [lib for lib in firmware_versions() if "@" not in lib or self.firmware_path(lib).exists()]

    def listing_note(self, libraries: list[str]) -> str | None:
        return f"on {self.name}: the firmware's libraries ({', '.join(libraries)}) as built"

    def library_lines(self, library: str) -> list[str]:
        try:
            info = self.listing_probe(library)
        except TlsbenchError as e:
            return [f"{library:8}  unavailable: {e}"]
        return [f"{library:8}  {info.version}", f"          {info.source}", f"          config: {info.config}"]
