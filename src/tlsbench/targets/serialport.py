"""A board's serial port through pyserial: lines in, bytes out, with an
inactivity timeout and a reconnect when the port goes away (a board whose
USB serial port re-enumerates after a reset or a replug).

Any ``serial_for_url`` name works, so tests drive a fake firmware over a
pseudo-terminal or pyserial's ``loop://``. The port is opened exclusively
(another program holding it is named as the cause, not a silent
interleaving of two readers).
"""

from __future__ import annotations

import termios
import time
from collections.abc import Iterator

import serial

from tlsbench.errors import TlsbenchError

# termios.error is not an OSError: pyserial lets it through from tcdrain
# when the pseudo-terminal or USB port vanishes mid-write.
_GONE = (serial.SerialException, OSError, termios.error)


class BoardReset(Exception):
    """The firmware restarted (its ready line came, or its port went away
    and came back) while an answer was awaited."""


class PortError(TlsbenchError):
    """The port cannot be opened or stopped answering: one line naming the
    port and what to check."""


def _why(port: str, e: Exception) -> str:
    text = str(e)
    if "No such file" in text or "Errno 2]" in text:
        return (f"serial port {port} does not exist: check the board is plugged in and the name"
                " (ls /dev/ttyACM* /dev/ttyUSB*)")
    if "Permission denied" in text or "Errno 13]" in text:
        return f"serial port {port}: permission denied: add yourself to the dialout group (then log in again)"
    if "exclusively lock" in text or "Resource temporarily unavailable" in text or "busy" in text.lower():
        return (f"serial port {port} is busy: another program holds it (a serial monitor, another tlsbench run):"
                " close it")
    return f"serial port {port}: {text}: check the board is plugged in and nothing else uses the port"


def open_port(port: str, baud: int, read_timeout: float = 0.2) -> serial.SerialBase:
    """Opens ``port`` raw 8N1 at ``baud``; a missing, busy or forbidden port
    is a PortError with one clear line."""
    try:
        return serial.serial_for_url(port, baudrate=baud, timeout=read_timeout, write_timeout=10,
                                     exclusive=True)
    except (serial.SerialException, OSError, ValueError) as e:
        raise PortError(_why(port, e)) from e


class Lines:
    """Line reader and writer over a port that may go away and come back.

    ``silence`` is how long the board may stay quiet while an answer is
    awaited; ``reconnect`` how long to retry opening a port that vanished.
    After a reconnect, ``reconnected`` is set: the firmware restarted and
    its ready line may have been missed."""

    def __init__(self, port: str, baud: int, silence: float = 300.0, reconnect: float = 15.0):
        self.port, self.baud, self.silence, self.reconnect = port, baud, silence, reconnect
        self.ser = open_port(port, baud)
        self.buf = b""
        self.reconnected = False

    def close(self) -> None:
        try:
            self.ser.close()
        except _GONE:
            pass

    def _reopen(self, cause: Exception) -> None:
        self.close()
        deadline = time.monotonic() + self.reconnect
        while True:
            try:
                self.ser = open_port(self.port, self.baud)
                self.buf = b""
                self.reconnected = True
                return
            except PortError as e:
                if time.monotonic() >= deadline:
                    raise PortError(f"serial port {self.port} went away ({cause}) and did not come back within"
                                    f" {self.reconnect:g} s: {e}") from e
                time.sleep(0.2)

    def send(self, data: bytes) -> None:
        """Writes data; a port that went away is reopened and the write is
        not repeated: the board behind it restarted (BoardReset), so the
        caller handshakes again first."""
        try:
            self.ser.write(data)
            self.ser.flush()
        except _GONE as e:
            self._reopen(e)
            raise BoardReset from e

    def _read(self) -> bytes:
        try:
            return self.ser.read(max(1, self.ser.in_waiting))
        except _GONE as e:
            self._reopen(e)
            return b""

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        """The next line (with its newline); PortError after ``silence``
        seconds without a byte."""
        quiet_since = time.monotonic()
        while b"\n" not in self.buf:
            was = self.reconnected
            chunk = self._read()
            if self.reconnected and not was:
                raise BoardReset
            if chunk:
                self.buf += chunk
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since > self.silence:
                raise PortError(f"the board on {self.port} sent nothing for {self.silence:g} s: check it runs the"
                                f" tlsbench firmware at {self.baud} baud (press its reset button to restart it)")
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("latin-1") + "\n"

    def pending(self) -> list[str]:
        """The complete lines already received, without waiting."""
        try:
            waiting = self.ser.in_waiting
            if waiting:
                self.buf += self.ser.read(waiting)
        except _GONE as e:
            self._reopen(e)
        out = []
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            out.append(line.decode("latin-1") + "\n")
        return out
