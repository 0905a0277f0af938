"""One side of the handshake on a board behind a serial port, without
hardware: QEMU's mps2-an386 runs the one-side Mbed TLS image with its UART
on a pseudo-terminal, and the relay talks to it through
`serial:/dev/pts/N --board mps2-an386` as it would to a board's
/dev/ttyACM0 (the firmware booted before the run and is never exited).
What the device counts (instructions, heap, stack, bytes, records,
flights) is exactly what the same image counts under the qemu: target."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import needs_tools
from images import ONE_SIDE
from plan_text import TLS13_SUITE, device_plan

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.families.minram import family as minram
from tlsbench.families.tls import device as device_tls
from tlsbench.families.tls.runner import TlsVariant, tls_case
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import serialport
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

TLS13 = ("TLS_AES_128_GCM_SHA256", "x25519/ecdsa-p256-full")
PSK = ("TLS_PSK_WITH_AES_128_GCM_SHA256", "psk-kx/psk-none")


@pytest.fixture(scope="module")
def image(agents, firmware_images) -> targets.Target:
    firmware_images(ONE_SIDE, ["mbedtls"])
    return ONE_SIDE


@pytest.fixture
def board_on_pty(image: targets.Target) -> Iterator[targets.Target]:
    """A booted board behind a pseudo-terminal, as a serial: target."""
    assert image.board is not None
    cmd = targets.qemu_command(image.board, image.firmware_path("mbedtls"), serial="pty")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    port = None
    deadline = time.monotonic() + 30
    while port is None and time.monotonic() < deadline:
        m = re.search(r"char device redirected to (/dev/pts/\d+)", proc.stdout.readline())
        port = m.group(1) if m else None
    assert port, "QEMU did not report its pseudo-terminal"
    time.sleep(0.5)  # the firmware boots and writes its ready line
    yield dataclasses.replace(targets.parse(f"serial:{port}", board="mps2-an386"), one_side=True)
    proc.kill()
    proc.wait()


def _figures(r: device_tls.DeviceResult) -> dict[str, list[dict]]:
    return {t: [rec.fields for rec in r.of_type(t)] for t in ("tls", "tls_stack", "tls_harness")}


@pytest.mark.parametrize("side", ["client", "server"])
def test_the_device_side_over_a_serial_port_counts_what_it_counts_under_qemu(image, board_on_pty, side: str) -> None:
    tc = tls_case(TLS13[0], TlsVariant.parse(TLS13[1]), {}, 0)
    direct = device_tls.run(image, "mbedtls", tc, side, repeats=1, warmup=0)
    assert direct.status == "ok", (direct.message, direct.transcript[-2000:])
    serial = device_tls.run(board_on_pty, "mbedtls", tc, side, repeats=1, warmup=0)
    assert serial.status == "ok", (serial.message, serial.transcript[-2000:])
    d, s = _figures(direct), _figures(serial)
    assert len(s["tls"]) == 1 and s["tls"][0][f"{side}_instructions"] > 0 and len(s["tls_stack"]) == 1
    # a server's chain and key went first in upload lines sized for the one-side image's request line
    assert (s["tls_harness"][0]["upload"] > 0) == (side == "server")
    assert s == d  # instructions, heap, stack, bytes, records, flights: every field
    assert serial.connections == direct.connections  # the very bytes relayed, each way


PLAN = device_plan("device-side-serial", ["mbedtls"], [TLS13_SUITE], ["full"], device_side="client")


def test_a_plan_runs_the_device_side_over_a_serial_port(board_on_pty, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    plain = dataclasses.replace(board_on_pty, one_side=False)  # the runner picks the one-side image itself
    run = runner.run(parse_plan(PLAN, "test plan"), PLAN, store, show_progress=False, target=plain)
    (case,) = report.load(store, run).cases
    assert (case["name"], case["status"]) == (
        "mbedtls/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full/device=client", "ok")
    assert {"client_instructions", "client_heap_peak_bytes", "client_stack_bytes", "c2s_bytes", "s2c_bytes",
            "flights", "round_trips", "device_harness_heap_bytes"} <= set(case["results"])
    assert case["results"]["flights"]["median"] == 3  # TLS 1.3 full handshake: ClientHello, server flight, Finished
    store.close()


def test_a_board_holding_another_library_is_named(image, board_on_pty) -> None:
    tc = tls_case(PSK[0], TlsVariant.parse(PSK[1]), {}, 0)
    r = device_tls.run(board_on_pty, "wolfssl", tc, "client", repeats=1, warmup=0)
    assert r.status == "error"
    assert f"the board on {board_on_pty.port} runs the mbedtls firmware, not wolfssl: flash " in r.message


def test_a_busy_port_is_one_clear_line(board_on_pty) -> None:
    tc = tls_case(PSK[0], TlsVariant.parse(PSK[1]), {}, 0)
    held = serialport.open_port(str(board_on_pty.port), device_tls.BAUD)
    try:
        r = device_tls.run(board_on_pty, "mbedtls", tc, "client", repeats=1, warmup=0)
    finally:
        held.close()
    assert (r.status, r.message) == ("error", f"serial port {board_on_pty.port} is busy: another program holds it "
                                              "(a serial monitor, another tlsbench run): close it")


def test_a_missing_port_is_one_clear_line() -> None:
    t = targets.parse("serial:/dev/tlsbench-no-such-port", board="mps2-an386")
    tc = tls_case(PSK[0], TlsVariant.parse(PSK[1]), {}, 0)
    r = device_tls.run(t, "mbedtls", tc, "client", repeats=1, warmup=0)
    assert r.status == "error" and r.message.startswith("serial port /dev/tlsbench-no-such-port does not exist")


def test_the_min_ram_search_says_why_it_does_not_run_over_a_serial_port() -> None:
    t = targets.parse("serial:/dev/ttyACM0", board="mps2-an386")
    tc = tls_case(PSK[0], TlsVariant.parse(PSK[1]), {}, 0)
    m = minram.measure_device_min_ram(t, "mbedtls", tc, "client", 0, 300)
    assert (m.status, m.samples) == ("unsupported", [])
    assert m.reason == ("unsupported over a serial port: each probe needs a fresh boot and the firmware has no "
                         "reset request (search on qemu:BOARD)")
