"""The minimum-RAM search on the device's side of a handshake: the client on
the emulated Cortex-M4 (qemu:mps2-an386), its server the host agent of the
same library, uncapped, the records relayed over the UART.

The device's least heap is found with the same search as in one image and
confirmed the same way (it passes, one byte less fails, each in a fresh
boot); probed again in fresh boots it gives the same stack and one byte
less fails again. Against the in-image client's least heap on the same
firmware (the transport's buffers, the rx line and the tx and rx queues,
are the core's, never the side's, in both drivers): equal for wolfSSL TLS
1.2 ECDHE-ECDSA; 8 bytes less on the device for Mbed TLS TLS 1.3, although
every record each way has the same length: not explained yet
(docs/results-min-ram.md), held here so that a change shows."""

from __future__ import annotations

import pytest
from conftest import needs_tools

from tlsbench.families.minram import search
from tlsbench.families.minram.family import UNCAPPED, _DeviceProber, _Prober, measure_device_min_ram
from tlsbench.families.tls import device as device_tls
from tlsbench.families.tls import runner as tls_runner
from tlsbench.families.tls.cases import case_fields
from tlsbench.families.tls.names import TlsVariant
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

OP = "x25519/ecdsa-p256-full"
CASES = [  # library, suite, device minus in-image least heap (bytes)
    ("wolfssl", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 0),
    ("mbedtls", "TLS_AES_128_GCM_SHA256", -8),
]


def _values(m) -> dict[str, int]:
    return {s.counter: s.total for s in m.samples}


@pytest.mark.parametrize(("library", "suite", "difference"), CASES)
def test_the_device_clients_least_heap_against_the_in_image_one_and_again(firmware, library: str, suite: str,
                                                                          difference: int) -> None:
    tc = tls_runner.tls_case(suite, TlsVariant.parse(OP), {"seed": "min-ram-device"}, 0)
    dev = measure_device_min_ram(firmware, library, tc, "client", 0, 300)
    assert dev.status == "ok", (dev.reason, dev.transcript[-2000:])
    got = _values(dev)
    assert set(got) == {"client_conn_heap_peak_bytes", "client_endpoint_heap_bytes", "client_min_heap_bytes",
                        "client_stack_bytes", "device_harness_heap_bytes"}, got
    assert got["device_harness_heap_bytes"] == 2_100  # the rx line alone (2,096 B asked; newlib's usable size)
    assert 0 < got["client_min_heap_bytes"] <= got["client_conn_heap_peak_bytes"]
    assert got["client_stack_bytes"] > 0 and got["client_endpoint_heap_bytes"] > 0

    # the limit and one byte less again, in fresh boots against fresh peers: the same records exactly
    def probe(limit: int) -> device_tls.DeviceResult:
        return device_tls.run(firmware, library, tc, "client", repeats=0, warmup=0, timeout=300, heap_limit=limit)

    p = _DeviceProber(probe, "again")
    limit = got["client_min_heap_bytes"]
    at, short = p.run("client", [limit, limit - 1])
    assert at is not None and at.status == "ok" and short is not None and short.status != "ok", p.crashes
    cap = at.of_type("tls_cap")[0]
    assert int(cap["client_heap_peak"]) <= limit
    assert int(at.of_type("tls_stack")[0]["client_stack"]) == got["client_stack_bytes"]
    assert int(short.of_type("tls_cap")[0]["refusals"]) >= 1

    # both sides in one image of the same firmware: the client's least heap is the same
    image = _Prober(targets.write_launcher(firmware, library), "in-image", case_fields(tc), 300)
    first = image.run("client", [UNCAPPED])[0]
    assert first is not None and first.status == "ok", first
    found = search.min_limit(image.passes("client"), int(first.of_type("tls_cap")[0]["client_heap_peak"]))
    assert got["client_min_heap_bytes"] - found.limit == difference
    assert int(first.of_type("tls_endpoint")[0]["client_heap_held"]) == got["client_endpoint_heap_bytes"]
