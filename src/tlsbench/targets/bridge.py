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
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tlsbench.engine.protocol import Record, parse_line
from tlsbench.errors import ProtocolError, TlsbenchError
from tlsbench.families.primitive.keys import FIRMWARE_CLOCK_ENV
from tlsbench.targets import cyclemodel
from tlsbench.targets import target as targets

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

    def __init__(self, lines: Iterator[str], send: Callable[[bytes], None], out=sys.stdout):
        self.lines, self.send, self.out = lines, send, out
        self.fault: str | None = None

    def _next(self) -> str:
        for raw in self.lines:
            line = raw.rstrip("\r\n")
            if line:
                return line
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


def _qemu(board: targets.Board, firmware: str, requests: list[str]) -> int:
    # a run that names a board profile runs under the cycle model (cyclemodel.py)
    profile = cyclemodel.active_profile()
    workdir = cyclemodel.private_dir() if profile is not None else None
    try:
        cmd = (cyclemodel.qemu_command(board, Path(firmware), profile, workdir) if profile and workdir
               else targets.qemu_command(board, firmware))
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


def _serial_lines(fd: int) -> Iterator[str]:
    buf = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # a pty whose other end closed reads EIO
            chunk = b""
        if not chunk:
            if buf:
                yield buf.decode("latin-1")
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode("latin-1") + "\n"


def _open_serial(port: str, baud: int) -> int:
    import termios
    import tty

    fd = os.open(port, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    attrs = termios.tcgetattr(fd)
    speed = getattr(termios, f"B{baud}")
    attrs[4] = attrs[5] = speed
    termios.tcsetattr(fd, termios.TCSANOW, attrs)
    return fd


def flash_command(firmware: Path) -> list[str] | None:
    """The user's flash command as an argument list, {firmware} replaced."""
    text = os.environ.get(FLASH_ENV, "").strip()
    if not text:
        return None
    return [arg.replace("{firmware}", str(firmware)) for arg in shlex.split(text)]


def _serial(port: str, library: str, firmware: Path, requests: list[str], baud: int) -> int:
    """A board already running a firmware: raw 8N1 at ``baud``. There is no
    exit on a real board: the bridge stops after the last answer."""
    fd = _open_serial(port, baud)

    def send(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    session = Session(_serial_lines(fd), send)
    answered = 0
    try:
        hello = session.ask("hello", forward=False)
        on_board = next((str(r["library"]) for r in hello if r.type == "hello"), "?")
        if on_board != library:
            cmd = flash_command(firmware)
            if cmd is None:
                print(f"the board on {port} runs the {on_board} firmware, not {library}: flash {firmware} "
                      f"(or set {FLASH_ENV}, e.g. 'st-flash --reset write {{firmware}} 0x08000000')", file=sys.stderr)
                return 4
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                print(f"flashing {firmware} failed ({done.returncode}): {done.stderr.strip()[-300:]}",
                      file=sys.stderr)
                return 4
            session.wait_ready()
        answered = serve(session, requests, exit_after=False)
    except Ended:
        pass
    finally:
        os.close(fd)
    return _verdict(session, 0, answered, len(requests), f"the board on {port}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tlsbench.targets.bridge")
    sub = p.add_subparsers(dest="mode", required=True)
    q = sub.add_parser("qemu")
    q.add_argument("--board", required=True, choices=sorted(targets.BOARDS))
    q.add_argument("--firmware", required=True)
    s = sub.add_parser("serial")
    s.add_argument("--port", required=True)
    s.add_argument("--board", required=True, choices=sorted(targets.BOARDS))
    s.add_argument("--library", required=True)
    s.add_argument("--firmware", required=True)
    s.add_argument("--baud", type=int, default=115200)
    a = p.parse_args(argv)
    requests = [line.rstrip("\r\n") for line in sys.stdin if line.strip()]
    if a.mode == "qemu":
        try:
            return _qemu(targets.BOARDS[a.board], a.firmware, requests)
        except TlsbenchError as e:
            print(f"cycle model: {e}", file=sys.stderr)
            return 2
    return _serial(a.port, a.library, Path(a.firmware), requests, a.baud)


if __name__ == "__main__":
    sys.exit(main())
