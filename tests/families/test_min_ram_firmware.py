"""The heap cap and the minimum-RAM search on the emulated Cortex-M4
(qemu:mps2-an386, newlib's allocator): the client's least heap for a TLS 1.2
ECDHE-ECDSA handshake is found, passes again and one byte less fails again,
each probe in a fresh boot (the same instructions every time)."""

from __future__ import annotations

from conftest import needs_tools
from images import M4

from tlsbench.families.minram import search
from tlsbench.families.minram.family import UNCAPPED, _Prober
from tlsbench.families.tls import runner as tls_runner
from tlsbench.families.tls.cases import case_fields
from tlsbench.families.tls.names import TlsVariant
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")


def test_the_clients_least_heap_on_the_m4_holds_and_one_byte_less_fails(firmware_images) -> None:
    firmware_images(M4)
    keys = {"seed": "min-ram-test"}
    tc = tls_runner.tls_case("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", TlsVariant.parse("x25519/ecdsa-p256-full"),
                             keys, 0)
    p = _Prober(targets.write_launcher(M4, "wolfssl"), "wolfssl on the M4", case_fields(tc), 300)
    first = p.run("client", [UNCAPPED])[0]
    assert first is not None and first.status == "ok", first
    peak = int(first.of_type("tls_cap")[0]["client_heap_peak"])
    found = search.min_limit(p.passes("client"), peak)
    assert 0 < found.limit <= peak
    again, short = p.run("client", [found.limit, found.limit - 1])
    assert again is not None and again.status == "ok"
    assert short is not None and short.status == "error"
    assert int(again.of_type("tls_cap")[0]["client_heap_peak"]) <= found.limit
    assert int(again.of_type("tls_stack")[0]["client_stack"]) > 0
    assert not p.crashes
