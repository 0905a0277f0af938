"""Boards in a labgrid farm: the places are held for the whole run, each a
serial board of its own (flashed through its labgrid driver where it has
one); the cases are shared among them (targets/farm_places.py)."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from tlsbench.errors import PlanError
from tlsbench.targets import board_target, farm_places, labgrid_places
from tlsbench.targets.base import Target
from tlsbench.targets.board import BOARDS

logger = logging.getLogger(__name__)


class LabgridTarget(board_target.BoardTarget):
    kind: ClassVar[str] = "labgrid"

    @classmethod
    def known_names(cls) -> list[str]:
        return ["labgrid:PLACE[,PLACE...] or labgrid:tag=KEY=VALUE [--board BOARD]"]

    @classmethod
    def listing(cls) -> list[tuple[str, str]]:
        return [("labgrid:PLACE[,PLACE...]", "places of a labgrid coordinator (--labgrid-coordinator or"
                 " LG_COORDINATOR), any board above via --board or the places' board= tag;"
                 " labgrid:tag=KEY=VALUE selects by tag (docs/labgrid.md)")]

    @classmethod
    def from_spec(cls, name: str, rest: str, board: str | None, profiles: tuple[tuple[str, str], ...],
                  coordinator: str | None) -> Target:
        labgrid_places.parse_selection(rest)
        address = labgrid_places.coordinator(coordinator)
        # the places must exist before a run is stored for them
        board = labgrid_places.board_of(labgrid_places.resolve(address, rest), board)
        if board not in BOARDS:
            raise PlanError(f"labgrid target: unknown board {board!r} (--board or the places' board tag); known:"
                            f" {', '.join(BOARDS)}")
        return cls(name, BOARDS[board], rest, profiles=profiles, coordinator=address)

    @property
    def deterministic(self) -> bool:
        # a place whose board is an emulated one (QEMU behind the farm) counts instructions exactly too
        return self.board is not None and self.board.machine is not None

    def agent_path(self, library: str) -> Path:
        place = re.sub(r"[^A-Za-z0-9]+", "_", self.place or "")
        return self.build_dir() / f"labgrid_{place}" / f"tlsbench-agent-{library}"

    def bridge_args(self, library: str) -> list[str]:
        """One place's serial resource (its port), flashed through its driver when it has one."""
        assert self.board is not None and self.port is not None
        args = ["serial", "--port", self.port, "--board", self.board.name, "--library", library,
                "--firmware", str(self.firmware_path(library))]
        if self.flasher is not None:  # flashed through the place's labgrid driver, not TLSBENCH_FLASH_COMMAND
            args += ["--labgrid-coordinator", str(self.coordinator), "--labgrid-place", str(self.place),
                     "--flash-state", str(self.flash_state())]
        return args

    def on_place(self, place: labgrid_places.Place) -> LabgridTarget:
        """One place's own target: its serial resource as the port its launchers open, its flasher if any."""
        return dataclasses.replace(self, port=place.url, place=place.name, flasher=place.flasher)

    @contextmanager
    def held(self) -> Iterator[tuple[Target, list | None]]:
        """The places, acquired and made ready (below) for the whole run, the
        first one's target to probe and check on."""
        assert self.coordinator is not None and self.port is not None
        names = list(labgrid_places.resolve(self.coordinator, self.port))
        with labgrid_places.acquired(self.coordinator, names) as places:
            for place in places:
                self._ready(place)
            yield self.on_place(places[0]), places

    def measure_on_places(self, places: list | None, session: Any, pending: list, progress_of: dict,
                          progress: Any, run_id: int) -> bool:
        if not places:
            return False
        farm_places.share(session, places, pending, progress_of, progress, run_id)
        return True

    def _ready(self, place: labgrid_places.Place) -> None:
        """Before the first case: a place with a flasher has nothing flashed by
        this run yet (its first image is always written); one with power is
        power-cycled, so every run starts from a freshly booted board."""
        self.on_place(place).flash_state().unlink(missing_ok=True)
        if place.power is not None:
            assert self.coordinator is not None
            logger.info(f"labgrid place {place.name}: power-cycling the board ({place.power})")
            labgrid_places.power_cycle(self.coordinator, place.name)
