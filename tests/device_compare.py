"""A handshake measured with one side on the emulated device, beside the same
case measured inside one image (both sides in the firmware): the tests of
the device's client and of its server compare the two, record by record."""

from __future__ import annotations

from plan_text import device_case_names

from tlsbench.families.tls import device as device_tls
from tlsbench.families.tls.cases import HandshakeResult, TlsCase, parse_records, run_handshakes
from tlsbench.targets import target as targets


def image_and_device(image_target: targets.Target, device_target: targets.Target, library: str, tc: TlsCase,
                     side: str) -> tuple[HandshakeResult, device_tls.DeviceResult]:
    """The case run in image_target's image (its transcript kept) and with
    side on device_target, each checked ok (with its message if not)."""
    image = run_handshakes(targets.write_launcher(image_target, library), tc, repeats=1, warmup=0, transcript=True,
                           timeout=300)
    assert image.status == "ok", image.message
    dev = device_tls.run(device_target, library, tc, side, repeats=1, warmup=0)
    assert dev.status == "ok", (dev.message, dev.transcript[-2000:])
    return image, dev


def record_lengths(data: bytes) -> list[tuple[int, int]]:
    """Each TLS record's content type and length, in order."""
    return [(t, len(f)) for t, f in parse_records(data)]


def server_records_differ(device: bytes, image: bytes, signed: bool) -> list[tuple[int, int]]:
    """The (device, image) lengths of the server records that differ between
    two connections of one case, after checking they sent the same record
    types and that only a signed handshake's signature record differs."""
    ours, theirs = record_lengths(device), record_lengths(image)
    assert [t for t, _ in ours] == [t for t, _ in theirs]
    differ = [(a, b) for (_, a), (_, b) in zip(ours, theirs, strict=True) if a != b]
    if signed:  # at most the signature's record, by its DER length or the 16-byte padding of TLS 1.3
        assert len(differ) <= 1 and all(abs(a - b) <= 16 for a, b in differ), differ
    else:
        assert differ == []
    return differ


def check_plan_cases(cases: dict[str, dict], side: str, figures: set[str]) -> None:
    """The stored cases of a device plan over both libraries, both suites,
    full and resumed handshakes (device_case_names): all there, all ok, each
    with figures and none of the host peer's (they are not the device's)."""
    peer = "client" if side == "server" else "server"
    assert sorted(cases) == sorted(device_case_names(["mbedtls", "wolfssl"], side))
    assert {n: c["status"] for n, c in cases.items()} == dict.fromkeys(cases, "ok")
    for c in cases.values():
        metrics = set(c["results"])
        assert figures <= metrics
        assert not any(m.startswith(f"{peer}_") for m in metrics)
