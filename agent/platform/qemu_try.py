#!/usr/bin/env python3
"""Runs a firmware under QEMU by hand: waits for the firmware's ready line
(one empty line), then sends the request lines given on stdin, one at a
time, each after the previous one's "end" record; prints every line and
exits with QEMU's code. (tlsbench's bridge is the real host side; this is
for trying a board, and for tests/targets/test_boards.py.)

    printf 'hello\\ncalibrate n=1000\\nexit\\n' | \\
        agent/platform/qemu_try.py -M netduinoplus2 build/tlsbench-agent-selftest
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence


def session(machine: str, firmware: str, requests: list[str],
            echo: Callable[[str], None] = lambda line: None, timeout: float | None = None,
            uart: int = 0, qemu_args: Sequence[str] = ()) -> tuple[list[str], int]:
    """The non-empty lines the firmware wrote, and QEMU's exit code (QEMU
    is killed after timeout seconds: the code is then negative). uart: which
    -serial port the firmware talks on; qemu_args: more machine options."""
    todo = list(requests)
    proc = subprocess.Popen(
        ["qemu-system-arm", "-M", machine, *qemu_args, "-display", "none", "-monitor", "none",
         *["-serial", "null"] * uart, "-serial", "stdio",
         "-semihosting-config", "enable=on,target=native", "-icount", "shift=7,sleep=off", "-kernel", firmware],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(timeout, proc.kill) if timeout else None
    if watchdog:
        watchdog.start()
    lines: list[str] = []
    ready = False
    for raw in proc.stdout:
        line = raw.decode("latin-1").rstrip("\r\n")
        if line:
            lines.append(line)
            echo(line)
        if (not ready and not line) or line.startswith("tb1 end "):
            ready = True
            if todo:
                try:
                    proc.stdin.write((todo.pop(0) + "\n").encode())
                    proc.stdin.flush()
                except BrokenPipeError:
                    break
    rc = proc.wait()
    if watchdog:
        watchdog.cancel()
    return lines, rc


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("-M", dest="machine", required=True)
    p.add_argument("--uart", type=int, default=0, help="the -serial port the firmware uses (netduino2 USART2: 1)")
    p.add_argument("--global", dest="globals", action="append", default=[],
                   help="a QEMU -global option, e.g. nrf51-soc.sram-size=20480")
    p.add_argument("firmware")
    a = p.parse_args()
    requests = [r for r in sys.stdin.read().splitlines() if r.strip()]
    extra = [x for g in a.globals for x in ("-global", g)]
    _, rc = session(a.machine, a.firmware, requests, echo=lambda line: print(line, flush=True), uart=a.uart,
                    qemu_args=extra)
    return rc


if __name__ == "__main__":
    sys.exit(main())
