"""An emulated board under QEMU: exact instruction counts, a fresh boot per
launch, images built on demand."""

from __future__ import annotations

import difflib
from typing import ClassVar

from tlsbench.errors import AgentError, PlanError
from tlsbench.targets import board_target, devicelink
from tlsbench.targets.base import DeviceLink, Target
from tlsbench.targets.board import BOARDS, ICOUNT


class QemuTarget(board_target.BoardTarget):
    kind: ClassVar[str] = "qemu"
    fresh_per_launch: ClassVar[bool] = True
    models_cycles: ClassVar[bool] = True
    builds_on_demand: ClassVar[bool] = True
    builds_user_images: ClassVar[bool] = True
    concurrent_sessions: ClassVar[bool] = True  # each launch boots its own emulator

    @classmethod
    def known_names(cls) -> list[str]:
        return [f"qemu:{b}" for b, v in BOARDS.items() if v.machine]

    @classmethod
    def listing(cls) -> list[tuple[str, str]]:
        return [(f"qemu:{b.name}", b.summary()) for b in BOARDS.values() if b.machine]

    @classmethod
    def from_spec(cls, name: str, rest: str, board: str | None, profiles: tuple[tuple[str, str], ...],
                  coordinator: str | None) -> Target:
        b = BOARDS.get(rest)
        if b is None or b.machine is None:
            emulated = [n for n, v in BOARDS.items() if v.machine]
            near = difflib.get_close_matches(rest, emulated, n=3)
            hint = f" (did you mean {', '.join('qemu:' + n for n in near)}?)" if near else ""
            raise PlanError(f"unknown emulated board {rest!r}{hint}; known: {', '.join(emulated)}")
        return cls(name, b, profiles=profiles)

    @property
    def deterministic(self) -> bool:
        return True

    def bridge_args(self, library: str) -> list[str]:
        assert self.board is not None
        return ["qemu", "--board", self.board.name, "--firmware", str(self.firmware_path(library))]

    def prepare_images(self, libraries: list[str]) -> None:
        from tlsbench.targets import firmware
        from tlsbench.targets.build import build_firmware

        firmware.ensure(self, libraries, build_firmware)

    def metadata(self) -> dict[str, object]:
        board = self.board
        assert board is not None and board.machine is not None
        qemu = board.toolchain.qemu
        return {**super().metadata(),
                "emulator": (board_target._output(qemu[0], "--version").splitlines() or ["unknown"])[0],
                "emulator_options": " ".join([*qemu[1:], "-M", board.machine, "-icount", ICOUNT])}

    def device_link(self, library: str, timeout: float) -> DeviceLink | None:
        assert self.board is not None
        firmware = self.firmware_path(library)
        if not firmware.exists():
            raise AgentError(f"no {library} firmware for {self.name} (run: tlsbench build --target {self.name})")
        return devicelink.QemuLink(self.board, firmware, timeout)
