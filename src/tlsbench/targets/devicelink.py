"""The firmware's line channel for one side of a handshake on the device
(families/tls/device.py relays TLS bytes over it): QEMU's UART on its stdio,
started with the bridge's own emulator command line, or a serial board
greeted and flashed as the bridge does."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from tlsbench.errors import AgentError
from tlsbench.targets import cyclemodel, serialport
from tlsbench.targets.board import Board, qemu_command
from tlsbench.targets.bridge import Session, clock_request, greet_board, switch_library

BAUD = 115200  # the firmware's USART rate (the serial bridge's too)


class QemuLink:
    """The emulated board's UART on QEMU's stdio; a watchdog kills QEMU when
    the firmware or the peer hangs."""

    resets = False  # an empty line is only the ready line

    def __init__(self, board: Board, firmware: Path, timeout: float):
        # a run that names a board profile runs under its cycle model, as the bridge does
        profile = cyclemodel.active_profile()
        self.workdir = cyclemodel.private_dir() if profile is not None else None
        cmd = (cyclemodel.qemu_command(board, firmware, profile, self.workdir)
               if profile is not None and self.workdir is not None else qemu_command(board, firmware))
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.lines: Iterator[str] = (b.decode("latin-1") for b in self.proc.stdout)
        self.watchdog = threading.Timer(timeout, self.proc.kill)
        self.watchdog.start()

    def send(self, data: bytes) -> None:
        self.stdin.write(data)
        self.stdin.flush()

    def greet(self, session: Session, library: str) -> None:
        session.wait_ready()
        session.ask(clock_request(), forward=False)

    def close(self) -> None:
        self.watchdog.cancel()
        try:
            self.stdin.write(b"exit\n")
            self.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


class SerialLink:
    """A board already running its firmware, behind a serial port
    (targets/serialport.py): never exited, greeted with hello (it must hold
    this library's image, else it is flashed as the bridge flashes) and the
    frozen clock. The run's timeout is the longest silence allowed; an
    empty line or a port that went away mid-run is the board restarting."""

    resets = True

    def __init__(self, port: str, firmware: Path, timeout: float):
        self.port, self.firmware = port, firmware
        self.link = serialport.Lines(port, BAUD, silence=timeout)
        self.lines: Iterator[str] = self.link

    def send(self, data: bytes) -> None:
        self.link.send(data)

    def greet(self, session: Session, library: str) -> None:
        self.link.pending()  # what the board wrote before we came (its ready line, an old run's end) is no answer
        self.link.reconnected = False
        on_board = greet_board(session)
        if on_board != library:  # flashed by the user's command, as the bridge does, or named
            why = switch_library(session, self.link, self.port, on_board, library, self.firmware)
            if why is not None:
                raise AgentError(why)

    def close(self) -> None:
        self.link.close()
