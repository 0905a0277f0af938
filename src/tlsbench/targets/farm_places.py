"""A labgrid target's places as the boards of one run (held for the whole
run and made ready by the target: targets/kinds/labgrid.py), each with its
own target and launchers (flashed through its labgrid driver where it has
one), the runner's pending rounds shared among them (engine/farm.py, which
knows no labgrid), a board that stops answering power-cycled once and its
case measured again."""

from __future__ import annotations

import copy
import dataclasses
import logging
from typing import Any

from tlsbench.engine import farm
from tlsbench.engine.case import Case, Measured
from tlsbench.targets import labgrid_places
from tlsbench.targets.base import Target

logger = logging.getLogger(__name__)


def _view(session: Any, target: Target) -> Any:
    """The session as one place sees it: its own target and launchers, the
    same libraries, checks and verdicts."""
    view = copy.copy(session)
    view.target = target
    view.infos = {lib: dataclasses.replace(info, path=target.launcher(lib))
                  for lib, info in session.infos.items()}
    return view


def share(session: Any, places: list[labgrid_places.Place], pending: list[tuple[int, Case]],
          progress_of: dict, progress: Any, run_id: int) -> None:
    """Measures the pending rounds on every place; results stored by this thread."""
    address = session.target.coordinator
    assert address is not None
    boards, states = [], {}
    for place in places:
        view = _view(session, session.target.on_place(place))
        states[place.name] = view.target.flash_state()
        recover = (lambda p=place: labgrid_places.recover(address, p)) if place.power is not None else None
        boards.append(farm.Board(place.name, view.outcome, lambda url=place.url: labgrid_places.answers(url),
                                 recover))

    def wanted(rnd: int, case: Case) -> bool:
        entry = progress_of.get(case.name)
        return entry is None or (entry[1] == "partial" and entry[2] <= rnd)

    def store(case: Case, rnd: int, measured: Measured, started: float, board: str) -> None:
        # the image the place held for this case, when tlsbench flashed it in this run ("": no board ran it)
        image = labgrid_places.flashed(states[board]).get("sha256") if board else None
        progress_of[case.name] = session.store_round(case, rnd, progress_of.get(case.name), measured, started,
                                                     board or None, image)

    dead = farm.share(boards, pending, wanted, store, run_id, on_done=lambda c: progress.update(c.name),
                      known=session.known)
    if dead:
        logger.info(f"run {run_id}: {len(dead)} of {len(places)} place(s) stopped answering: "
                    + "; ".join(f"{n}: {w}" for n, w in dead.items()))


__all__ = ["share"]
