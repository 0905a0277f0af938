"""On the emulated Cortex-M4, the timed passes run the plain allocator: the
allocation hooks only forward. Mbed TLS X25519 allocates about 3,000 times
per shared secret; asked to count inside the timed passes (count_timed=1, as
every build before did), the same operation costs exactly the accounting's
instructions more. Each request runs in a freshly started firmware, so the
deterministic DRBG gives the same work to both."""

from __future__ import annotations

import pytest
from conftest import needs_tools
from images import M4

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

X25519_BASE = (9).to_bytes(32, "little")


@pytest.fixture(scope="module")
def mbedtls_m4(firmware_images):
    firmware_images(M4)
    return targets.write_launcher(M4, "mbedtls")


def _derive(launcher, count_timed: int) -> agent.Response:
    req = encode_request("bench", kind="kex", alg="x25519", op="derive", key=bytes(range(32)), peer=X25519_BASE,
                         warmup=0, repeats=2, count_timed=count_timed)
    resp = agent.call(launcher, [req], 300, "x25519 derive on the M4").responses[0]
    assert resp.status == "ok", resp.message
    return resp


def test_the_hooks_cost_nothing_inside_the_timed_passes(mbedtls_m4) -> None:
    off, on = _derive(mbedtls_m4, 0), _derive(mbedtls_m4, 1)
    assert off.of_type("calib")[0]["timed_heap_calls"] == 0
    calls = on.of_type("calib")[0]["timed_heap_calls"]
    allocs = off.of_type("memory")[0]["allocs"]
    assert allocs > 1000  # an allocating operation: the case this is about
    # calibration batch + 2 samples, an alloc and a free each (plus a few of the records' own)
    assert 3 * 2 * allocs <= calls <= 3 * 2 * allocs + 16
    inst_off = [s["instructions"] for s in off.of_type("sample")]
    inst_on = [s["instructions"] for s in on.of_type("sample")]
    drops = {b - a for a, b in zip(inst_off, inst_on, strict=True)}
    assert len(drops) == 1  # the same deterministic amount for every sample
    drop = drops.pop()
    # the accounting's own instructions: tens per call, never zero
    assert 10 * 2 * allocs <= drop <= 100 * 2 * allocs, (drop, allocs)
    assert off.of_type("memory")[0].fields == on.of_type("memory")[0].fields
    assert off.of_type("calib")[0]["stack_shift"] == 0  # firmware keeps its layout


def test_timed_handshakes_on_the_m4_reach_no_accounting(mbedtls_m4) -> None:
    from tlsbench.families.primitive.keys import MATERIAL_SEED
    from tlsbench.families.primitive.randomness import Source
    from tlsbench.families.tls.cases import TlsCase, handshake_request
    from tlsbench.families.tls.certs import make_chain

    # the seeded chain (valid 2026-2045) holds whatever clock the firmware is given
    chain = make_chain("ecdsa-p256", src=Source(MATERIAL_SEED))
    req = handshake_request(TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519", chain),
                            repeats=1, warmup=0) + " stack=0"
    resp = agent.call(mbedtls_m4, [req], 300, "handshake on the M4").responses[0]
    assert resp.status == "ok", resp.message
    assert resp.of_type("process_heap")[0]["timed_heap_calls"] == 0
    assert resp.of_type("tls_memory")[0]["client_heap_peak"] > 0
