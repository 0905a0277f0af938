"""The serial bridge over pyserial, against a fake firmware on the other
end of a pseudo-terminal (a thread, no board, no emulator): one request at
a time, a board that restarts mid-run (its ready line arrives where an
answer was due: that request ends in error, the bridge handshakes again and
goes on), and one clear line for a missing or busy port."""

from __future__ import annotations

import io
import os
import pty
import threading
import tty
import zlib
from pathlib import Path

import pytest
import serial

from tlsbench.engine.protocol import parse_line
from tlsbench.targets import bridge, serialport


def rec(body: str) -> bytes:
    return f"tb1 {body} crc={zlib.crc32(('tb1 ' + body).encode()):08x}\n".encode()


class FakeBoard(threading.Thread):
    """Speaks the firmware's side: a ready line at boot, then one answer per
    request line. ``reset_at``: the calibrate requests (by n) during which
    the board restarts instead of answering (it writes its ready line and
    forgets its clock)."""

    # the boards started on board_pty's terminal: its teardown waits for them to stop before it closes the
    # master, whose fd number the next test's terminal may get (a board still reading it would answer there)
    started: list[FakeBoard] = []

    def __init__(self, fd: int, library: str = "mbedtls", reset_at: tuple[int, ...] = ()):
        super().__init__(daemon=True)
        self.fd, self.library, self.reset_at = fd, library, set(reset_at)
        self.requests: list[str] = []
        self.boots = 0
        self.clock: str | None = None
        self.boot()  # before the bridge opens the port: it finds the ready line waiting

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def start(self) -> None:
        FakeBoard.started.append(self)
        super().start()

    def boot(self) -> None:
        self.boots += 1
        self.clock = None
        self.write(b"\n")

    def run(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.answer(line.decode())

    def answer(self, line: str) -> None:
        self.requests.append(line)
        verb, *rest = line.split(" ")
        f = dict(t.split("=", 1) for t in rest)
        if verb == "hello":
            self.write(rec(f"hello proto=2 library={self.library} version=fake config=fake platform=board:fake"
                           " counters=cycles"))
        elif verb == "clock":
            self.clock = f["unix"]
        elif verb == "calibrate":
            n = int(f["n"])
            if n in self.reset_at:
                self.reset_at.discard(n)
                self.boot()
                return
            # the answer a board gives only once its clock was set again after a restart
            assert self.clock is not None
            self.write(rec(f"calibrate n={n} loop_instructions={2 * n} empty=0 measured={2 * n + 3} read_cost=9"))
        self.write(rec("end status=ok"))


@pytest.fixture
def board_pty():
    master, slave = pty.openpty()
    tty.setraw(master)
    yield master, os.ttyname(slave)
    os.close(slave)  # the master's reads now fail (EIO): every board on it stops
    for board in FakeBoard.started:
        board.join(timeout=30)
        assert not board.is_alive(), "a fake board still reads the terminal"
    FakeBoard.started.clear()
    os.close(master)


def run_bridge(port: str, requests: list[str], library: str = "mbedtls") -> tuple[int, list[str]]:
    out = io.StringIO()
    old = bridge.Session.__init__.__defaults__
    bridge.Session.__init__.__defaults__ = (out, False)
    try:
        rc = bridge._serial(port, library, Path("fw"), requests, 115200)
    finally:
        bridge.Session.__init__.__defaults__ = old
    return rc, out.getvalue().splitlines()


def test_requests_go_one_at_a_time_and_every_one_is_answered(board_pty) -> None:
    master, port = board_pty
    fake = FakeBoard(master)
    fake.start()
    rc, lines = run_bridge(port, ["hello", "calibrate n=1", "calibrate n=2"])
    assert rc == 0
    assert [parse_line(x).type for x in lines] == ["hello", "end", "calibrate", "end", "calibrate", "end"]
    assert [r.split(" ")[0] for r in fake.requests] == ["hello", "clock", "hello", "calibrate", "calibrate"]
    assert fake.boots == 1


def test_a_board_reset_mid_run_fails_that_request_and_the_run_goes_on(board_pty, capsys) -> None:
    master, port = board_pty
    fake = FakeBoard(master, reset_at=(2,))
    fake.start()
    rc, lines = run_bridge(port, ["calibrate n=1", "calibrate n=2", "calibrate n=3"])
    assert rc == 0
    recs = [parse_line(x) for x in lines]
    assert [(r.type, r.get("n") or r.get("status")) for r in recs] == [
        ("calibrate", 1), ("end", "ok"), ("end", "error"), ("calibrate", 3), ("end", "ok")]
    assert recs[2]["msg"] == "the board restarted during this calibrate request; its answer is lost"
    # after the restart: hello (same library?) and the clock again, then the next request
    assert [r.split(" ")[0] for r in fake.requests] == [
        "hello", "clock", "calibrate", "calibrate", "hello", "clock", "calibrate"]
    assert fake.boots == 2
    assert "restarted during a calibrate request: handshaking again" in capsys.readouterr().err


def test_a_board_restarted_with_another_library_stops_the_run(board_pty, capsys) -> None:
    master, port = board_pty
    fake = FakeBoard(master, reset_at=(1,))
    fake.start()
    orig = fake.boot

    def boot_other() -> None:  # the restart comes back with another firmware
        if fake.boots:
            fake.library = "wolfssl"
        orig()

    fake.boot = boot_other  # type: ignore[method-assign]
    rc, lines = run_bridge(port, ["calibrate n=1", "calibrate n=2"])
    assert rc == 5
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"the board on {port} restarted with the wolfssl firmware, not mbedtls")


def test_a_silent_board_times_out_naming_the_port(board_pty) -> None:
    _, port = board_pty  # nothing answers
    link = serialport.Lines(port, 115200, silence=0.3)
    with pytest.raises(serialport.PortError, match=rf"^the board on {port} sent nothing for 0.3 s: check it runs"):
        next(link)
    link.close()


def test_a_missing_port_is_one_line_naming_it(capsys) -> None:
    rc, _ = run_bridge("/dev/ttyNOSUCHBOARD9", ["hello"])
    assert rc == 5
    assert capsys.readouterr().err == ("serial port /dev/ttyNOSUCHBOARD9 does not exist: check the board is plugged"
                                       " in and the name (ls /dev/ttyACM* /dev/ttyUSB*)\n")


def test_a_busy_port_is_one_line_naming_it(board_pty, capsys) -> None:
    _, port = board_pty
    holder = serial.Serial(port, exclusive=True)
    try:
        rc, _ = run_bridge(port, ["hello"])
    finally:
        holder.close()
    assert rc == 5
    assert capsys.readouterr().err == (f"serial port {port} is busy: another program holds it (a serial monitor,"
                                       " another tlsbench run): close it\n")


def test_lines_work_over_pyserials_loop_url() -> None:
    link = serialport.Lines("loop://", 115200, silence=1)
    link.send(b"tb1 a\n\nrest")
    assert [next(link), next(link)] == ["tb1 a\n", "\n"]
    assert link.pending() == []
    link.close()


def test_a_port_that_vanishes_is_reopened_and_the_run_goes_on(tmp_path: Path) -> None:
    """A USB serial port that re-enumerates: the port's name (here a
    symlink, as udev's /dev/serial/by-id names are) points at a new
    pseudo-terminal with a freshly booted board behind it."""
    link = tmp_path / "ttyBOARD"
    fds: list[int] = []

    def plug() -> FakeBoard:
        master, slave = pty.openpty()
        tty.setraw(master)
        fds.extend((master, slave))
        link.unlink(missing_ok=True)
        link.symlink_to(os.ttyname(slave))
        return FakeBoard(master)

    first = plug()
    second: list[FakeBoard] = []
    orig = first.answer

    def unplug_at_2(line: str) -> None:
        if line == "calibrate n=2":
            first.requests.append(line)
            second.append(plug())  # before the old pty closes: its fd numbers are not reused
            gone, first.fd = first.fd, -1  # this thread's next read fails: it stops
            os.close(gone)  # the bridge's end reads EIO: the port is gone
            second[0].start()
            return
        orig(line)

    first.answer = unplug_at_2  # type: ignore[method-assign]
    first.start()
    try:
        rc, lines = run_bridge(str(link), ["calibrate n=1", "calibrate n=2", "calibrate n=3"])
    finally:
        for fd in fds[1:]:
            try:
                os.close(fd)
            except OSError:
                pass
    assert rc == 0
    recs = [parse_line(x) for x in lines]
    assert [(r.type, r.get("n") or r.get("status")) for r in recs] == [
        ("calibrate", 1), ("end", "ok"), ("end", "error"), ("calibrate", 3), ("end", "ok")]
    assert [r.split(" ")[0] for r in second[0].requests] == ["hello", "clock", "calibrate"]


def test_a_write_whose_drain_fails_reopens_the_port_and_says_the_board_restarted(tmp_path: Path) -> None:
    """pyserial's flush lets termios.error (not an OSError) through when the
    port vanishes between the write and the drain; that is a gone port too."""
    import termios

    master, slave = pty.openpty()
    tty.setraw(slave)
    link = tmp_path / "ttyBOARD"
    link.symlink_to(os.ttyname(slave))
    lines = serialport.Lines(str(link), 115200, reconnect=2.0)
    first = lines.ser

    class DrainFails:
        is_open = True

        def write(self, data: bytes) -> int:
            return len(data)

        def flush(self) -> None:
            raise termios.error(5, "Input/output error")

        def close(self) -> None:
            first.close()

    lines.ser = DrainFails()  # type: ignore[assignment]
    try:
        with pytest.raises(serialport.BoardReset):
            lines.send(b"calibrate n=1\n")
        assert lines.reconnected and lines.ser is not first and lines.ser.is_open
    finally:
        lines.close()
        os.close(master)
        os.close(slave)
