"""A progress line on stderr: cases done, the current case, time left.

The count is what the user asked for: cases (and the round a case is in
when the plan spreads its repeats over rounds), not case-rounds."""

from __future__ import annotations

import sys
import time


def _fmt(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Progress:
    def __init__(self, total: int, enabled: bool = True, stream=None, rounds: int = 1):
        self.total = total  # steps: cases x rounds
        self.rounds = max(rounds, 1)
        self.cases = max(total // self.rounds, 1) if total % self.rounds == 0 else total
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.enabled and self.stream.isatty()
        self.start = time.monotonic()
        self.last_print = 0.0

    def update(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        elapsed = now - self.start
        left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        pct = 100 * self.done // max(self.total, 1)
        if self.rounds > 1 and self.cases * self.rounds == self.total:
            rnd, case = divmod(self.done - 1, self.cases)
            count = f"case {case + 1}/{self.cases} of round {rnd + 1}/{self.rounds}"
        else:
            count = f"{self.done}/{self.total} cases"
        if self.tty:
            width = 24
            fill = width * self.done // max(self.total, 1)
            bar = "#" * fill + "-" * (width - fill)
            line = f"\r[{bar}] {count} {pct:3d}% left ~{_fmt(left)}  {label[:50]:<50}"
            self.stream.write(line)
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()
        elif now - self.last_print > 10 or self.done == self.total:
            # not a terminal (CI, a log): a plain line every 10 s
            self.stream.write(f"progress: {count} ({pct}%), ~{_fmt(left)} left\n")
            self.stream.flush()
            self.last_print = now
