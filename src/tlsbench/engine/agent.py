"""Running an agent: one process per call, a kill timer, validated output.

A call sends request lines, closes the agent's input and reads records until
the process exits. A crash, a hang (killed after the timeout) or a malformed
line becomes an AgentError / ProtocolError naming what was asked; the
responses completed before it are kept on the error (``partial``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench import versions
from tlsbench.engine.protocol import Record, parse_line
from tlsbench.errors import AgentError, ProtocolError


@dataclass
class Response:
    records: list[Record]
    end: Record

    @property
    def status(self) -> str:
        return str(self.end["status"])

    @property
    def message(self) -> str:
        return str(self.end.get("msg", ""))

    def of_type(self, rtype: str) -> list[Record]:
        return [r for r in self.records if r.type == rtype]


@dataclass
class CallResult:
    responses: list[Response]
    stdout: str
    stderr: str


@dataclass
class _Partial:
    responses: list[Response] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""


# agents running now (several at once under `run --jobs`): a stopped run ends them all
_running: set[subprocess.Popen] = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


def stop_all() -> None:
    """Kills every agent running now (each with its children): the calls waiting on them fail at once,
    and none starts until allow_calls()."""
    _stopping.set()
    with _running_lock:
        procs = list(_running)
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def allow_calls() -> None:
    """Agents may start again (after stop_all)."""
    _stopping.clear()


class AgentCallError(AgentError):
    def __init__(self, message: str, partial: _Partial):
        super().__init__(message)
        self.partial = partial


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def split_responses(stdout: str) -> tuple[list[Response], list[Record]]:
    """Groups validated records into responses; returns trailing records too."""
    responses: list[Response] = []
    pending: list[Record] = []
    for line in stdout.splitlines():
        rec = parse_line(line)
        if rec.type == "end":
            responses.append(Response(pending, rec))
            pending = []
        else:
            pending.append(rec)
    return responses, pending


def call(executable: Path, requests: list[str], timeout: float, what: str,
         wrapper: tuple[str, ...] = ()) -> CallResult:
    """Runs the agent on these requests. ``what`` names them in errors;
    ``wrapper`` is a command the agent runs under (e.g. valgrind)."""
    if not executable.exists():
        ident = versions.of_agent(executable.name)
        on_request = bool(ident) and versions.version_of(ident).on_request
        how = f"tlsbench build --libraries {ident}" if on_request else "tlsbench build"
        raise AgentError(f"agent {executable} is not built (run: {how})")
    if _stopping.is_set():
        raise AgentError(f"{what}: not started, the run is stopping")
    try:
        proc = subprocess.Popen(
            [*wrapper, str(executable)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # so a hung agent and its children die together
        )
    except OSError as e:
        raise AgentError(f"cannot start agent {executable}: {e}") from e
    payload = "".join(r + "\n" for r in requests).encode()
    with _running_lock:
        _running.add(proc)
        if _stopping.is_set():  # stopped while it started: it goes with the others
            os.killpg(proc.pid, signal.SIGKILL)
    try:
        out_b, err_b = proc.communicate(payload, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out_b, err_b = proc.communicate()
        timed_out = True
    except BaseException:  # Ctrl-C, SIGTERM: the agent's own session never saw it, so it goes with us
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        with _running_lock:
            _running.discard(proc)
    stdout = out_b.decode("latin-1")
    stderr = err_b.decode("utf-8", "replace")
    partial = _Partial(stdout=stdout, stderr=stderr)
    try:
        lines_ok = stdout if stdout.endswith("\n") or not stdout else stdout[: stdout.rfind("\n") + 1]
        responses, _ = split_responses(lines_ok)
    except ProtocolError as e:
        raise AgentCallError(f"{what}: malformed agent output: {e}", partial) from e
    partial.responses = responses
    if timed_out:
        raise AgentCallError(
            f"{what}: agent hung and was killed after {timeout:g} s "
            f"({len(responses)} of {len(requests)} requests answered)",
            partial,
        )
    if proc.returncode != 0:
        how = _signal_name(proc.returncode) if proc.returncode < 0 else f"exit code {proc.returncode}"
        tail = stderr.strip().splitlines()[-1:] or [""]
        raise AgentCallError(
            f"{what}: agent crashed ({how}) after {len(responses)} of {len(requests)} requests"
            + (f": {tail[0][:200]}" if tail[0] else ""),
            partial,
        )
    if stdout and not stdout.endswith("\n"):
        raise AgentCallError(f"{what}: agent output ends in a truncated line", partial)
    if len(responses) != len(requests):
        raise AgentCallError(
            f"{what}: agent answered {len(responses)} of {len(requests)} requests", partial
        )
    return CallResult(responses, stdout, stderr)
