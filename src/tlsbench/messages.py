"""Progress and build messages: each module logs them (logging.getLogger(__name__).info), the process that
starts (the CLI's main, a script) says once where they are shown."""

import logging
import sys

ROOT = "tlsbench"


class _TextTo(logging.Handler):
    """Writes a message's text alone (no level, no logger name), as print did, to sys.stdout or sys.stderr
    as they are when it is written (a test's capture, a redirect made after set-up)."""

    def __init__(self, stream_name: str) -> None:
        super().__init__(logging.INFO)
        self.stream_name = stream_name

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = getattr(sys, self.stream_name)
            stream.write(record.getMessage() + "\n")
            stream.flush()
        except Exception:  # a closed stream: logging's own policy (raiseExceptions), as for any handler
            self.handleError(record)


def show_on(stream_name: str = "stderr") -> None:
    """Shows tlsbench's info messages on sys.stdout or sys.stderr; called again, it replaces the stream."""
    logger = logging.getLogger(ROOT)
    for handler in [h for h in logger.handlers if isinstance(h, _TextTo)]:
        logger.removeHandler(handler)
    logger.addHandler(_TextTo(stream_name))
    logger.setLevel(logging.INFO)
