#!/usr/bin/env python3
"""Runs a firmware under QEMU by hand: waits for the firmware's ready line
(one empty line), then sends the request lines given on stdin, one at a
time, each after the previous one's "end" record; prints every line and
exits with QEMU's code. (tlsbench's bridge is the real host side; this is
for trying a board.)

    printf 'hello\\ncalibrate n=1000\\nexit\\n' | \\
        agent/platform/qemu_try.py -M netduinoplus2 build/tlsbench-agent-selftest
"""
import argparse
import subprocess
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("-M", dest="machine", required=True)
    p.add_argument("firmware")
    a = p.parse_args()
    requests = [r for r in sys.stdin.read().splitlines() if r.strip()]
    proc = subprocess.Popen(
        ["qemu-system-arm", "-M", a.machine, "-display", "none", "-monitor", "none", "-serial", "stdio",
         "-semihosting-config", "enable=on,target=native", "-icount", "shift=7,sleep=off", "-kernel", a.firmware],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ready = False
    for raw in proc.stdout:
        line = raw.decode("latin-1").rstrip("\r\n")
        if line:
            print(line, flush=True)
        if (not ready and not line) or line.startswith("tb1 end "):
            ready = True
            if requests:
                proc.stdin.write((requests.pop(0) + "\n").encode())
                proc.stdin.flush()
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main())
