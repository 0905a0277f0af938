"""A firmware agent behind a pipe: reads request lines on stdin, carries
them to the firmware's UART (QEMU's emulated one, or a real board's serial
port), and writes the firmware's records to stdout as they arrive.

The firmware writes one empty line when it is ready; only then does the
bridge send, and it sends one request at a time, the next after the
previous one's ``end`` (a real USART holds one byte: nothing is sent while
the firmware computes). First ``clock`` (the frozen time libraries see),
then the requests, and for QEMU ``exit``, which stops the emulator. The
answers to clock and exit are not forwarded: the caller sees exactly one
answer per request, as from a host agent. A firmware fault arrives as a
``fault`` record; it is forwarded and named on stderr, and the exit code is
non-zero.

A serial board holds one firmware at a time. With a flash command
(``TLSBENCH_FLASH_COMMAND``, e.g. ``st-flash --reset write {firmware}
0x08000000``; split like a shell line, never run by a shell) the bridge
flashes this library's image when the board answers ``hello`` with another
library; without one, such a board is reported as holding the other library.
A labgrid place with a flashing driver is flashed through it instead, before
the bridge connects, once per image and run (targets/labgrid_places.py).

A serial board may restart in the middle of a run (its reset button, a
brown-out, a watchdog): its ready line then arrives where an answer was
expected. The bridge answers that request with ``end status=error`` (one
answer per request, so the run records the case as failed, never hangs),
re-handshakes (``hello`` for the library, then ``clock``) and goes on with
the next request. The port itself is pyserial's (targets/serialport.py):
a missing or busy port is one clear line, silence has a timeout, a port
that vanishes is reopened.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from tlsbench.engine.protocol import PREFIX, Record, parse_line
from tlsbench.errors import ProtocolError, TlsbenchError
from tlsbench.targets import board as boards
from tlsbench.targets import cyclemodel, serialport
from tlsbench.targets.board import FIRMWARE_CLOCK_ENV
from tlsbench.targets.serialport import BoardReset

FLASH_ENV = "TLSBENCH_FLASH_COMMAND"


class Ended(Exception):
    """The firmware's output ended (it exited or crashed) before an answer did."""


def clock_request(now: float | None = None) -> str:
    """The firmware's frozen clock: the run's (TLSBENCH_FIRMWARE_CLOCK, set by
    the runner from the reused test material), else this hour."""
    fixed = os.environ.get(FIRMWARE_CLOCK_ENV, "")
    if fixed.isdigit():
        return f"clock unix={fixed}"
    t = int(now if now is not None else time.time())
    return f"clock unix={t - t % 3600}"


class Session:
    """Request/answer in lockstep over a line channel to the firmware."""

    def __init__(self, lines: Iterator[str], send: Callable[[bytes], None], out=None,
                 watch_resets: bool = False):
        self.lines, self.send, self.out = lines, send, out if out is not None else sys.stdout
        self.fault: str | None = None
        # a board that can restart: its ready line (empty) mid-answer means it did
        self.watch_resets = watch_resets

    def _next(self) -> str:
        for raw in self.lines:
            # a USART can deliver a stray 0x00 or 0xff as the board resets
            line = raw.rstrip("\r\n").lstrip("\x00\xff")
            if line:
                return line
            if self.watch_resets:
                raise BoardReset
        raise Ended

    def wait_ready(self) -> None:
        """Skips whatever precedes the firmware's ready line (an empty line)."""
        for raw in self.lines:
            if raw.rstrip("\r\n") == "":
                return
        raise Ended

    def ask(self, request: str, forward: bool) -> list[Record]:
        """Sends one request and reads its answer up to its end record."""
        self.send((request + "\n").encode())
        records = []
        while True:
            line = self._next()
            try:
                rec = parse_line(line)
            except ProtocolError:  # forwarded as is: the caller's reader names the bad line
                if forward:
                    self.out.write(line + "\n")
                    self.out.flush()
                continue
            records.append(rec)
            if rec.type == "fault":
                self.fault = " ".join(f"{k}={v:#x}" if isinstance(v, int) and k != "exception" else f"{k}={v}"
                                      for k, v in rec.fields.items())
            if forward or rec.type == "fault":
                self.out.write(line + "\n")
                self.out.flush()
            if rec.type == "fault":
                raise Ended
            if rec.type == "end":
                return records


def serve(session: Session, requests: list[str], exit_after: bool) -> int:
    """Returns the number of requests answered."""
    session.ask(clock_request(), forward=False)
    answered = 0
    for r in requests:
        session.ask(r, forward=True)
        answered += 1
    if exit_after:
        session.send(b"exit\n")
    return answered


def _qemu(board: boards.Board, firmware: str, requests: list[str]) -> int:
    # a run that names a board profile runs under the cycle model (cyclemodel.py)
    profile = cyclemodel.active_profile()
    workdir = cyclemodel.private_dir() if profile is not None else None
    try:
        cmd = (cyclemodel.qemu_command(board, Path(firmware), profile, workdir) if profile and workdir
               else boards.qemu_command(board, firmware))
        return _qemu_session(cmd, requests)
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


def _qemu_session(cmd: list[str], requests: list[str]) -> int:
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr)
    assert proc.stdin is not None and proc.stdout is not None
    stdin = proc.stdin

    def send(data: bytes) -> None:
        stdin.write(data)
        stdin.flush()

    session = Session((b.decode("latin-1") for b in proc.stdout), send)
    answered = 0
    try:
        session.wait_ready()
        answered = serve(session, requests, exit_after=True)
    except (Ended, BrokenPipeError):
        pass
    finally:
        try:
            stdin.close()
        except OSError:
            pass
    try:
        rc = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    return _verdict(session, rc, answered, len(requests), cmd[0])


def _verdict(session: Session, rc: int, answered: int, asked: int, what: str) -> int:
    if session.fault is not None:
        print(f"firmware fault: {session.fault}", file=sys.stderr)
        return 3
    if answered < asked:
        print(f"{what} ended (exit {rc}) after {answered} of {asked} requests", file=sys.stderr)
        return rc or 1
    return 0


def flash_command(firmware: Path) -> list[str] | None:
    """The user's flash command as an argument list, {firmware} replaced."""
    text = os.environ.get(FLASH_ENV, "").strip()
    if not text:
        return None
    return [arg.replace("{firmware}", str(firmware)) for arg in shlex.split(text)]


def error_end(message: str) -> str:
    """An ``end status=error`` record written by the bridge itself (its
    message %-escaped as the firmware escapes)."""
    text = "".join(c if c.isalnum() or c in "-_.,:;()/" else f"%{ord(c):02x}" for c in message)
    body = f"{PREFIX} end status=error msg={text}"
    return f"{body} crc={zlib.crc32(body.encode()):08x}"


def _library_on_board(session: Session) -> str:
    hello = session.ask("hello", forward=False)
    return next((str(r["library"]) for r in hello if r.type == "hello"), "?")


def greet_board(session: Session, attempts: int = 3) -> str:
    """hello, then the frozen clock; a restart during it starts it over.
    Returns the library the board runs."""
    for _ in range(attempts):
        try:
            library = _library_on_board(session)
            session.ask(clock_request(), forward=False)
            return library
        except BoardReset:
            continue
    raise serialport.PortError(f"the board restarted {attempts} times during the handshake: check its power and"
                               " that its firmware does not fault at start (see its first lines)")


def _reset_pending(link: serialport.Lines) -> bool:
    """Whether the board restarted while no request was out (its ready line
    is waiting, or the port was reopened)."""
    restarted = any(not raw.rstrip("\r\n").lstrip("\x00\xff") for raw in link.pending())
    return restarted or link.reconnected


def serve_resilient(session: Session, link: serialport.Lines, requests: list[str], library: str,
                    port: str) -> int:
    """Every request in lockstep; a board restart fails the request it
    interrupted and the run goes on after a new handshake. Returns the
    number of requests answered."""
    answered = 0
    for r in requests:
        if _reset_pending(link):
            link.reconnected = False
            _rehandshake(session, library, port)
        try:
            session.ask(r, forward=True)
        except BoardReset:
            link.reconnected = False
            verb = r.split(" ", 1)[0]
            session.out.write(error_end(f"the board restarted during this {verb} request; its answer is lost")
                              + "\n")
            session.out.flush()
            print(f"the board on {port} restarted during a {verb} request: handshaking again, going on with the"
                  " next request", file=sys.stderr)
            _rehandshake(session, library, port)
        answered += 1
    return answered


def _rehandshake(session: Session, library: str, port: str) -> None:
    on_board = greet_board(session)
    if on_board != library:
        raise serialport.PortError(f"the board on {port} restarted with the {on_board} firmware, not {library}")


def switch_library(session: Session, link: serialport.Lines, port: str, on_board: str, library: str,
                   firmware: Path) -> str | None:
    """Flashes this library's image (TLSBENCH_FLASH_COMMAND) onto a board
    that answered hello with another, and greets it again; returns why it
    could not, or None."""
    cmd = flash_command(firmware)
    if cmd is None:
        return (f"the board on {port} runs the {on_board} firmware, not {library}: flash {firmware} "
                f"(or set {FLASH_ENV}, e.g. 'st-flash --reset write {{firmware}} 0x08000000')")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return f"flashing {firmware} failed ({done.returncode}): {done.stderr.strip()[-300:]}"
    session.wait_ready()
    link.reconnected = False
    _rehandshake(session, library, port)
    return None


def _flash_through_labgrid(place: tuple[str, str, Path], library: str, firmware: Path) -> str | None:
    """A labgrid place with a flasher gets this library's image through its
    labgrid driver before the bridge connects (a fresh board may hold no
    firmware at all). Returns why it failed, or None."""
    from tlsbench.targets import labgrid_places

    coordinator, name, state = place
    try:
        labgrid_places.ensure_image(coordinator, name, library, firmware, state)
    except (TlsbenchError, OSError) as e:
        return str(e)
    return None


def _serial(port: str, library: str, firmware: Path, requests: list[str], baud: int,
            labgrid: tuple[str, str, Path] | None = None) -> int:
    """A board already running a firmware: raw 8N1 at ``baud``. There is no
    exit on a real board: the bridge stops after the last answer.
    ``labgrid``: (coordinator, place, flash state) of a labgrid place whose
    flashing driver writes the image (else TLSBENCH_FLASH_COMMAND does)."""
    if labgrid is not None:
        why = _flash_through_labgrid(labgrid, library, firmware)
        if why is not None:
            print(why, file=sys.stderr)
            return 4
    try:
        link = serialport.Lines(port, baud)
    except serialport.PortError as e:
        print(e, file=sys.stderr)
        return 5
    session = Session(link, link.send, watch_resets=True)
    answered = 0
    try:
        link.pending()  # what the board wrote before we came (its ready line, an old run's end) is no answer
        link.reconnected = False
        on_board = greet_board(session)
        if on_board != library and labgrid is not None:
            print(f"labgrid place {labgrid[1]} runs the {on_board} firmware after its {library} image {firmware}"
                  " was flashed through its labgrid driver", file=sys.stderr)
            return 4
        if on_board != library:
            why = switch_library(session, link, port, on_board, library, firmware)
            if why is not None:
                print(why, file=sys.stderr)
                return 4
        answered = serve_resilient(session, link, requests, library, port)
    except Ended:
        pass
    except serialport.PortError as e:
        print(e, file=sys.stderr)
        return 5
    finally:
        link.close()
    return _verdict(session, 0, answered, len(requests), f"the board on {port}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tlsbench.targets.bridge")
    sub = p.add_subparsers(dest="mode", required=True)
    q = sub.add_parser("qemu")
    q.add_argument("--board", required=True, choices=sorted(boards.BOARDS))
    q.add_argument("--firmware", required=True)
    s = sub.add_parser("serial")
    s.add_argument("--port", required=True)
    s.add_argument("--board", required=True, choices=sorted(boards.BOARDS))
    s.add_argument("--library", required=True)
    s.add_argument("--firmware", required=True)
    s.add_argument("--baud", type=int, default=115200)
    s.add_argument("--labgrid-coordinator")
    s.add_argument("--labgrid-place")
    s.add_argument("--flash-state", type=Path)
    a = p.parse_args(argv)
    requests = [line.rstrip("\r\n") for line in sys.stdin if line.strip()]
    if a.mode == "qemu":
        try:
            return _qemu(boards.BOARDS[a.board], a.firmware, requests)
        except TlsbenchError as e:
            print(f"cycle model: {e}", file=sys.stderr)
            return 2
    labgrid = (a.labgrid_coordinator, a.labgrid_place, a.flash_state) if a.flash_state else None
    return _serial(a.port, a.library, Path(a.firmware), requests, a.baud, labgrid)


if __name__ == "__main__":
    sys.exit(main())
