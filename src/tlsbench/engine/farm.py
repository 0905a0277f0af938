"""One run's cases shared among several boards (the places of a labgrid
target): each case on one board, one case at a time per board, every
result stored by the calling thread in the order it comes, with the board
that measured it.

The runner hands over its pending rounds and a way to measure one on a
given board; nothing here knows a family. A board whose case fails is
asked whether it still answers (``alive``). One that does not is
power-cycled where it can be (``recover``) and, when it answers again,
its round is measured once more; otherwise that board is dead: its case
stays failed with the reason, its later cases go to the others, and when
no board is left the run stops resumable (PlacesLost).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from tlsbench.engine.case import Case, Measured
from tlsbench.errors import RunInterrupted

logger = logging.getLogger(__name__)


class PlacesLost(RunInterrupted):
    """Every board of the run stopped answering: what was measured is kept."""

    def __init__(self, run_id: int, why: str):
        super().__init__(run_id)
        self.why = why
        self.args = (why,)


@dataclass
class Board:
    name: str
    measure: Callable[[Case, int], Measured]  # one round of a case on this board (never raises)
    alive: Callable[[], str | None]  # None: it answers; else why not
    # power-cycles a board that stopped answering: None when it answers again, else why not (None: no power)
    recover: Callable[[], str | None] | None = None


Done = tuple[str, int, Case, float, Measured]


def share(boards: list[Board], pending: list[tuple[int, Case]], wanted: Callable[[int, Case], bool],
          store: Callable[[Case, int, Measured, float, str], None], run_id: int,
          on_done: Callable[[Case], None] = lambda c: None,
          known: Callable[[Case, int], Measured | None] = lambda c, r: None) -> dict[str, str]:
    """Measures ``pending`` (round, case) on the boards; ``wanted`` says whether
    a round still needs measuring once its turn comes (an earlier round may
    have decided the case); ``known`` gives a round's outcome that needs no
    board (e.g. its library is unavailable), stored with no board's name and
    saying nothing about any board; ``store`` keeps one outcome with its
    board's name. Returns the boards that died, with why."""
    todo = deque(pending)
    idle = [b.name for b in boards]
    by_name = {b.name: b for b in boards}
    busy: dict[str, str] = {}  # board -> the case it measures
    dead: dict[str, str] = {}
    retried: set[tuple[int, str]] = set()  # rounds measured again after their board's power cycle
    done: queue.Queue[Done] = queue.Queue()

    def work(board: Board, rnd: int, case: Case, started: float) -> None:
        done.put((board.name, rnd, case, started, board.measure(case, rnd)))

    def next_for_a_board() -> tuple[int, Case] | None:
        """The next round a board must measure; rounds that need none are settled on the way."""
        while True:
            # a case's next round waits while its previous round is out
            pick = next((i for i, (_r, c) in enumerate(todo) if c.name not in busy.values()), None)
            if pick is None:
                return None
            rnd, case = todo[pick]
            del todo[pick]
            if wanted(rnd, case):
                outcome = known(case, rnd)
                if outcome is None:
                    return rnd, case
                store(case, rnd, outcome, time.time(), "")
            on_done(case)

    while todo or busy:
        for name in list(idle):
            picked = next_for_a_board()
            if picked is None:
                break
            rnd, case = picked
            idle.remove(name)
            busy[name] = case.name
            threading.Thread(target=work, args=(by_name[name], rnd, case, time.time()), daemon=True,
                             name=f"board {name}").start()
        if not busy:
            if todo:
                raise PlacesLost(run_id, "every board of the run stopped answering ("
                                 + "; ".join(f"{n}: {w}" for n, w in dead.items()) + ")")
            break
        name, rnd, case, started, measured = done.get()
        del busy[name]
        board = by_name[name]
        if measured.status == "failed":
            why = board.alive()
            if why is not None and board.recover is not None and (rnd, case.name) not in retried:
                again = board.recover()
                if again is None:  # it answers after a power cycle: its case is measured once more
                    logger.info(f"board {name} stopped answering ({why}): power-cycled, it answers again; measuring"
                                f" {case.name} once more")
                    retried.add((rnd, case.name))
                    todo.appendleft((rnd, case))
                    idle.append(name)
                    continue
                why = f"{why}; power-cycled: {again}"
            if why is not None:
                dead[name] = why
                measured.reason = f"board {name} stopped answering ({why}): {measured.reason}"
                logger.info(f"board {name} stopped answering ({why}): its remaining cases go to the others")
        if name not in dead:
            idle.append(name)
        store(case, rnd, measured, started, name)
        on_done(case)
    return dead


__all__ = ["Board", "PlacesLost", "share"]
