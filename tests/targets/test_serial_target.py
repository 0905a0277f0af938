"""The serial runner end to end without hardware: QEMU's netduinoplus2
(STM32F405, the same USART code as the Nucleo-F446RE port) runs the Mbed TLS
firmware with its USART on a pseudo-terminal, and `tlsbench run --target
serial:/dev/pts/N --board netduinoplus2` measures through that port exactly
as it would through a board's /dev/ttyACM0: the firmware is never exited
between requests (a real board is not), and asking it for a library it does
not hold, without a flash command, is a clear error."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools

from tlsbench.targets import target as targets

pytestmark = [needs_tools("qemu-system-arm", "arm-none-eabi-gcc"), builds_in_set_up]
BOARD = targets.BOARDS["netduinoplus2"]


@pytest.fixture
def board_on_pty(firmware_images):
    # both tests' images in one configuration: another library list reconfigures the folder and
    # recompiles the selftest double
    t = firmware_images(targets.parse("qemu:netduinoplus2"), ["mbedtls", "wolfssl"])
    cmd = targets.qemu_command(BOARD, t.firmware_path("mbedtls"), serial="pty")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    port = None
    deadline = time.monotonic() + 30
    assert proc.stdout is not None
    while port is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        m = re.search(r"char device redirected to (/dev/pts/\d+)", line)
        if m:
            port = m.group(1)
    assert port, "QEMU did not report its pseudo-terminal"
    time.sleep(0.5)  # the firmware boots and enables its USART
    yield port
    proc.kill()
    proc.wait()


def tlsbench(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tlsbench", "--db", str(db), *args], capture_output=True,
                          text=True, timeout=600)


def test_a_run_over_a_serial_port_measures_like_the_emulator(board_on_pty: str, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    res = tlsbench("run", "--target", f"serial:{board_on_pty}", "--board", "netduinoplus2", "--libraries", "mbedtls",
                   "--kinds", "hash,kex", "--algorithms", "sha256,x25519", "--sizes", "64", "--json", db=db)
    assert res.returncode == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    sha = [r for r in rows if r["case"] == "mbedtls/hash/sha256/hash/64" and r["metric"] == "instructions"]
    assert sha and sha[0]["target"] == f"serial:{board_on_pty}" and sha[0]["median"] > 1000
    assert all(r["status"] == "ok" for r in rows), [r for r in rows if r["status"] != "ok"]
    # the same operation through the emulator's stdio (qemu target): the same exact count
    direct = tlsbench("run", "--target", "qemu:netduinoplus2", "--libraries", "mbedtls", "--kinds", "hash",
                      "--algorithms", "sha256", "--sizes", "64", "--json", db=db)
    assert direct.returncode == 0, direct.stderr
    same = [json.loads(x) for x in direct.stdout.splitlines()]
    assert [r["median"] for r in same if r["metric"] == "instructions"] == [sha[0]["median"]]


def test_a_board_holding_another_library_is_named(board_on_pty: str, tmp_path: Path, firmware_images) -> None:
    firmware_images(targets.parse("qemu:netduinoplus2"), ["wolfssl"])
    res = tlsbench("run", "--target", f"serial:{board_on_pty}", "--board", "netduinoplus2", "--libraries", "wolfssl",
                   "--kinds", "hash", "--algorithms", "sha256", "--sizes", "64", db=tmp_path / "r.sqlite")
    assert "runs the mbedtls firmware, not wolfssl" in res.stderr
    assert "TLSBENCH_FLASH_COMMAND" in res.stderr
