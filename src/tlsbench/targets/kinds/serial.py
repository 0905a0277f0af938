"""A real board behind a serial port, already running its firmware (flashed
by the user's command when it holds another library's image)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from tlsbench.errors import PlanError
from tlsbench.targets import board_target, devicelink
from tlsbench.targets.base import DeviceLink, Target
from tlsbench.targets.board import BOARDS


class SerialTarget(board_target.BoardTarget):
    kind: ClassVar[str] = "serial"
    builds_cycle_plugin: ClassVar[bool] = False  # a real core's counter: no emulator to model

    @classmethod
    def known_names(cls) -> list[str]:
        return ["serial:PORT --board BOARD"]

    @classmethod
    def listing(cls) -> list[tuple[str, str]]:
        return [(f"serial:PORT --board {b.name}", b.summary()) for b in BOARDS.values() if not b.machine]

    @classmethod
    def from_spec(cls, name: str, rest: str, board: str | None, profiles: tuple[tuple[str, str], ...],
                  coordinator: str | None) -> Target:
        if not re.fullmatch(r"/dev/[A-Za-z0-9_./-]+", rest):
            raise PlanError(f"serial target needs a device path, e.g. serial:/dev/ttyACM0 (got {name!r})")
        if board is None or board not in BOARDS:
            raise PlanError(f"serial target needs --board, one of: {', '.join(BOARDS)}")
        return cls(name, BOARDS[board], rest, profiles=profiles)

    def agent_path(self, library: str) -> Path:
        port = re.sub(r"[^A-Za-z0-9]+", "_", self.port or "")
        return self.build_dir() / f"serial{port}" / f"tlsbench-agent-{library}"

    def bridge_args(self, library: str) -> list[str]:
        assert self.board is not None and self.port is not None
        return ["serial", "--port", self.port, "--board", self.board.name, "--library", library,
                "--firmware", str(self.firmware_path(library))]

    def device_link(self, library: str, timeout: float) -> DeviceLink | None:
        assert self.port is not None
        return devicelink.SerialLink(self.port, self.firmware_path(library), timeout)
