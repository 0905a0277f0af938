"""A run stopped by a scheduler (SIGTERM) or a closed terminal (SIGHUP) ends
the way Ctrl-C ends it: the signal becomes a KeyboardInterrupt, so every
clean-up on that path runs, what was measured stays stored and the resume
command is printed."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

# the signals that end a run as Ctrl-C does (SIGINT is Python's own KeyboardInterrupt)
STOPPING = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A stopping signal arrived; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Stopped(signum)


@contextmanager
def like_ctrl_c() -> Iterator[None]:
    """Inside: SIGTERM and SIGHUP raise Stopped; their handling before is restored after. A signal
    ignored when tlsbench started (``nohup`` ignores SIGHUP) stays ignored."""
    before = {s: signal.signal(s, _raise) for s in STOPPING if signal.getsignal(s) is signal.SIG_DFL}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
