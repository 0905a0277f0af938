"""The TLS server alone on the device: the one-side image of qemu:mps2-an386,
its client the host agent of the same library, the records relayed over the
UART. The server's chain and key do not fit the one-side image's 4 KiB
request line: they are uploaded first in bounded lines and held on the
firmware's heap for the request, which the firmware reports (tls_harness).

For the same suite, group and certificates, what the device server counts
(bytes and records each way, flights) equals the in-image handshake, record
by record, except the one record that carries the server's ECDSA signature
(its DER length follows the random nonce, and a TLS 1.3 server may pad the
record to 16 bytes); a plan with device_side = "server" stores the server's
own figures and nothing of the client's."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import needs_tools
from device_compare import check_plan_cases, image_and_device, record_lengths, server_records_differ
from images import M4, ONE_SIDE
from plan_text import TLS12_SUITE, TLS13_SUITE, device_plan

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.families.tls import device as device_tls
from tlsbench.families.tls.cases import case_fields
from tlsbench.families.tls.runner import TlsVariant, tls_case
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import build
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

CASES = [  # suite, variant, whether the server signs in the measured handshake
    ("TLS_AES_128_GCM_SHA256", "x25519/ecdsa-p256-full", True),
    ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "x25519/ecdsa-p256-full", True),
    ("TLS_AES_128_GCM_SHA256", "x25519/ecdsa-p256-full/resume-psk-only", False),
]
RX_LINE = 2 * 1024 + 48  # core/tls_device.c: a 1 KiB chunk in hex and the line around it


def usable(n: int) -> int:
    """newlib's usable size of a malloc(n) block on these images (8-byte
    chunks with a 4-byte header; the selftest's 100,000 B block reads 100,004)."""
    return max(16, (n + 4 + 7) & ~7) - 4


@pytest.fixture(scope="module")
def images(agents, firmware_images) -> tuple[targets.Target, targets.Target]:
    firmware_images(M4)
    firmware_images(ONE_SIDE)
    return M4, ONE_SIDE


@pytest.fixture(scope="module")
def material() -> dict:
    return {}  # one set of chains for every case of the module


@pytest.mark.parametrize("library", build.FIRMWARE_LIBRARIES)
@pytest.mark.parametrize(("suite", "op", "signed"), CASES)
def test_the_device_server_counts_what_the_in_image_server_does(images, material, library: str, suite: str,
                                                                op: str, signed: bool) -> None:
    full, one_side = images
    tc = tls_case(suite, TlsVariant.parse(op), material, 0)
    image, dev = image_and_device(full, one_side, library, tc, "server")
    i, d = image.samples[0], dev.of_type("tls")[0]
    assert d["side"] == "server" and d["server_instructions"] > 0 and "client_instructions" not in d.fields
    assert "round_trips" not in d.fields  # the client's to count
    assert d["resumed"] == (1 if "resume" in op else 0)
    for f in ("c2s_bytes", "c2s_records", "s2c_records", "flights", "total_c2s_bytes"):
        assert d[f] == i[f], (f, d[f], i[f])
    # the device counted exactly the bytes the relay carried (the measured connection is the last)
    c2s, s2c = dev.connections[-1]
    assert (d["total_c2s_bytes"], d["total_s2c_bytes"]) == (len(c2s), len(s2c))
    m = image.memory
    assert m is not None
    assert record_lengths(c2s[: d["c2s_bytes"]]) == record_lengths(image.wire["client"][: m["c2s_bytes"]])
    differ = server_records_differ(s2c[: d["s2c_bytes"]], image.wire["server"][: m["s2c_bytes"]], signed)
    assert d["s2c_bytes"] - m["s2c_bytes"] == sum(a - b for a, b in differ)
    stack = dev.of_type("tls_stack")
    assert len(stack) == 1 and stack[0]["server_stack"] > 256 and "client_stack" not in stack[0].fields
    # the harness's heap beside the server: its rx line and the uploaded chain and key, block by block
    fields = case_fields(tc)
    (harness,) = dev.of_type("tls_harness")
    assert harness.fields == {"rx_line": usable(RX_LINE),
                              "upload": usable(len(fields["chain"])) + usable(len(fields["key"]))}


def test_the_server_request_is_too_long_for_the_one_side_line_without_the_upload(material) -> None:
    """What the upload is for: the server's request with its chain and key
    inline is longer than the one-side image's request line (4,095
    characters); with them uploaded it is short, and each upload line fits."""
    from tlsbench.engine.protocol import encode_request

    tc = tls_case(CASES[0][0], TlsVariant.parse(CASES[0][1]), material, 0)
    inline = encode_request("tls-device", side="server", **device_tls.device_fields(tc, "server"))
    fields, lines = device_tls.uploads(device_tls.device_fields(tc, "server"), "server")
    short = encode_request("tls-device", side="server", **fields)
    assert len(inline) > 4095 and len(short) < 1024
    assert (fields["chain"], fields["key"]) == ("@", "@")
    assert lines and max(map(len, lines)) <= 2047  # the smallest one-side line of any board (nucleo-f103rb)
    assert [ln.split()[1] for ln in lines if " size=" in ln] == ["name=chain", "name=key"]


PLAN = device_plan("device-server", ["mbedtls", "wolfssl"], [TLS13_SUITE, TLS12_SUITE], ["full", "resume-psk-only"],
                  device_side="server")


def test_a_plan_puts_the_server_on_the_device_and_stores_its_figures(images, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    run = runner.run(parse_plan(PLAN, "test plan"), PLAN, store, show_progress=False, target=M4)
    cases = {c["name"]: c for c in report.load(store, run).cases}
    check_plan_cases(cases, "server", {"server_instructions", "server_heap_peak_bytes", "server_stack_bytes",
                                       "c2s_bytes", "s2c_bytes", "flights", "device_harness_heap_bytes"})
    assert not any("round_trips" in c["results"] for c in cases.values())  # the host peer's to count
    for lib in ("mbedtls", "wolfssl"):  # a resumed TLS 1.3 handshake (PSK without ECDHE) costs far less
        base = f"{lib}/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full/"
        full, psk = (cases[base + o + "device=server"]["results"]["server_instructions"]["median"]
                     for o in ("", "resume-psk-only+"))
        assert psk < full / 5, (lib, full, psk)
    store.close()
