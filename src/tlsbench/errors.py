"""Typed errors: raised deep, caught once by the CLI and printed as one line."""

from __future__ import annotations

import signal


class TlsbenchError(Exception):
    """Base class: anything the user can act on."""


class PlanError(TlsbenchError):
    """A plan file or command-line selection is invalid."""


class ProtocolError(TlsbenchError):
    """An agent sent something that is not a valid protocol record."""


class AgentError(TlsbenchError):
    """An agent crashed, hung, or could not be started."""


class StoreError(TlsbenchError):
    """The results database is missing, locked or of an unknown schema."""


class SetupError(TlsbenchError):
    """A dependency (library source, build, tool) is missing or broken."""


class RunInterrupted(TlsbenchError):
    """Ctrl-C (or SIGTERM, SIGHUP) during a run: what was measured is stored, the run can be resumed."""

    def __init__(self, run_id: int, signum: int = signal.SIGINT):
        super().__init__(f"run {run_id} was interrupted")
        self.run_id = run_id
        # as a shell reports a process ended by that signal: 128 + its number
        self.exit_code = 128 + signum
        if signum != signal.SIGINT:  # Ctrl-C says "interrupted"
            self.why = f"stopped by {signal.Signals(signum).name}"
