"""A firmware agent behind a pipe: reads request lines on stdin, carries
them to the firmware's UART (QEMU's emulated one, or a real board's serial
port), and writes the firmware's records to stdout as they arrive.

Before the requests it sends ``clock`` (the frozen time libraries see: this
hour, so test certificates made now are valid and runs stay identical); for
QEMU it ends with ``exit``, which stops the emulator. The answers to these
two are not forwarded: the caller sees exactly one answer per request, as
from a host agent. A firmware fault arrives as a ``fault`` record; it is
forwarded and named on stderr, and the exit code is non-zero.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator

from . import targets
from .keys import FIRMWARE_CLOCK_ENV
from .protocol import parse_line


def clock_request(now: float | None = None) -> str:
    """The firmware's frozen clock: the run's (TLSBENCH_FIRMWARE_CLOCK, set by
    the runner from the reused test material), else this hour."""
    fixed = os.environ.get(FIRMWARE_CLOCK_ENV, "")
    if fixed.isdigit():
        return f"clock unix={fixed}"
    t = int(now if now is not None else time.time())
    return f"clock unix={t - t % 3600}"


def relay(lines: Iterable[str], n_requests: int, out) -> tuple[int, str | None]:
    """Forwards records; drops the answer to the leading clock request and
    stops after n_requests more answers. Returns (answers forwarded, the
    fault text if the firmware reported one)."""
    ends = 0
    fault = None
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            continue
        try:
            rec = parse_line(line)
        except Exception:  # noqa: BLE001 - forwarded as is: the caller's reader names the bad line
            out.write(line + "\n")
            out.flush()
            continue
        if rec.type == "fault":
            fault = " ".join(f"{k}={v:#x}" if isinstance(v, int) and k != "exception" else f"{k}={v}"
                             for k, v in rec.fields.items())
        if ends > 0 or rec.type == "fault":
            out.write(line + "\n")
            out.flush()
        if rec.type == "end":
            ends += 1
            if ends == n_requests + 1:
                break
    return max(ends - 1, 0), fault


def _qemu(board: targets.Board, firmware: str, requests: list[str]) -> int:
    cmd = targets.qemu_command(board, firmware)
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr)
    payload = "".join(r + "\n" for r in [clock_request(), *requests, "exit"]).encode()

    def feed() -> None:  # the UART takes input only as fast as the firmware reads it
        try:
            assert proc.stdin is not None
            proc.stdin.write(payload)
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    threading.Thread(target=feed, daemon=True).start()
    assert proc.stdout is not None
    lines = (b.decode("latin-1") for b in proc.stdout)
    answered, fault = relay(lines, len(requests), sys.stdout)
    rc = proc.wait()
    if fault is not None:
        print(f"firmware fault: {fault}", file=sys.stderr)
        return 3
    if rc != 0:
        print(f"qemu-system-arm exited with {rc} after {answered} of {len(requests)} requests", file=sys.stderr)
        return rc
    return 0


def _serial_lines(fd: int) -> Iterator[str]:
    buf = b""
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            if buf:
                yield buf.decode("latin-1")
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode("latin-1")


def _serial(port: str, requests: list[str], baud: int) -> int:
    """A board already flashed with the firmware: raw 8N1 at ``baud``.
    There is no exit on a real board: the bridge stops after the last answer."""
    import termios
    import tty

    fd = os.open(port, os.O_RDWR | os.O_NOCTTY)
    try:
        tty.setraw(fd)
        attrs = termios.tcgetattr(fd)
        speed = getattr(termios, f"B{baud}")
        attrs[4] = attrs[5] = speed
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
        termios.tcflush(fd, termios.TCIOFLUSH)
        payload = "".join(r + "\n" for r in [clock_request(), *requests]).encode()

        def feed() -> None:
            view = memoryview(payload)
            while view:
                n = os.write(fd, view)
                view = view[n:]

        threading.Thread(target=feed, daemon=True).start()
        answered, fault = relay(_serial_lines(fd), len(requests), sys.stdout)
    finally:
        os.close(fd)
    if fault is not None:
        print(f"firmware fault: {fault}", file=sys.stderr)
        return 3
    return 0 if answered == len(requests) else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tlsbench.bridge")
    sub = p.add_subparsers(dest="mode", required=True)
    q = sub.add_parser("qemu")
    q.add_argument("--board", required=True, choices=sorted(targets.BOARDS))
    q.add_argument("--firmware", required=True)
    s = sub.add_parser("serial")
    s.add_argument("--port", required=True)
    s.add_argument("--board", required=True, choices=sorted(targets.BOARDS))
    s.add_argument("--baud", type=int, default=115200)
    a = p.parse_args(argv)
    requests = [line.rstrip("\r\n") for line in sys.stdin if line.strip()]
    if a.mode == "qemu":
        return _qemu(targets.BOARDS[a.board], a.firmware, requests)
    return _serial(a.port, requests, a.baud)


if __name__ == "__main__":
    sys.exit(main())
