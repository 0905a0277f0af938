"""A progress line on stderr: cases done, the current case, time left."""

from __future__ import annotations

import sys
import time


def _fmt(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Progress:
    def __init__(self, total: int, enabled: bool = True, stream=None):
        self.total = total
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
        if self.tty:
            width = 24
            fill = width * self.done // max(self.total, 1)
            bar = "#" * fill + "-" * (width - fill)
            line = f"\r[{bar}] {self.done}/{self.total} {pct:3d}% left ~{_fmt(left)}  {label[:50]:<50}"
            self.stream.write(line)
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()
        elif now - self.last_print > 10 or self.done == self.total:
            # not a terminal (CI, a log): a plain line every 10 s
            self.stream.write(f"progress: {self.done}/{self.total} cases ({pct}%), ~{_fmt(left)} left\n")
            self.stream.flush()
            self.last_print = now
