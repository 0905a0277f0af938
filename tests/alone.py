"""A test that compares timings runs alone when the suite runs on parallel
workers (pytest-xdist): every test holds a shared lock of the checkout while
it runs, a test marked `alone` an exclusive one. A turnstile lock taken first
lets a waiting `alone` test in before the other worker's next test, so it
never starves."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager

from tlsbench import paths


@contextmanager
def holding(exclusive: bool) -> Iterator[None]:
    folder = paths.root() / "build"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".tests-turnstile.lock").open("w") as turnstile, (folder / ".tests-alone.lock").open("w") as main:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        if not exclusive:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        fcntl.flock(main, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(main, fcntl.LOCK_UN)
            fcntl.flock(turnstile, fcntl.LOCK_UN)
