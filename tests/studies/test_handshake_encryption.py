"""Study 003's Table 2 from stored cases: the handshake's record payloads and
the AES-128-GCM cycles on them, linear between measured sizes (no run)."""

from __future__ import annotations

from tlsbench.studies import handshake_encryption as he


def tls(lib: str, cert: str, c2s: int, s2c: int, rc: int, rs: int, status: str = "ok") -> dict:
    suite, op = he.CERTIFICATES[cert]
    results = {k: {"median": v} for k, v in
               (("c2s_bytes", c2s), ("s2c_bytes", s2c), ("c2s_records", rc), ("s2c_records", rs))}
    return {"library": lib, "alg": suite, "op": op, "size": None, "status": status, "results": results}


def gcm(lib: str, size: int, cycles: float) -> dict:
    return {"library": lib, "alg": "aes-128-gcm", "op": "encrypt", "size": size, "status": "ok",
            "results": {"model_cycles": {"median": cycles}}}


def test_the_payload_is_the_bytes_on_the_wire_less_each_records_header() -> None:
    assert he.handshake_payload(tls("mbedtls", "ECDSA", 249, 1641, 4, 6)) == 249 + 1641 - 5 * 10
    assert he.handshake_payload(tls("mbedtls", "ECDSA", 249, 1641, 4, 6, status="failed")) is None
    assert he.handshake_payload(None) is None


def test_the_cycles_are_linear_between_the_measured_sizes_around_the_payload() -> None:
    cases = [tls("wolfssl", "RSA", 257, 2573, 4, 6), gcm("wolfssl", 2688, 1000.0), gcm("wolfssl", 2816, 2000.0),
             gcm("mbedtls", 2816, 5.0)]
    got = he.cost(cases, "wolfssl", "RSA")  # 2,780 bytes: 92 of the 128 between 2,688 and 2,816
    assert (got.payload_bytes, got.cycles, got.note) == (2780, 1000.0 + 1000.0 * 92 / 128, "")
    assert he.between({1024: 7.0, 1152: 9.0}, 1024) == 7.0  # a measured size: its own figure


def test_what_cannot_be_computed_says_why() -> None:
    cases = [tls("wolfssl", "RSA", 257, 2573, 4, 6), gcm("wolfssl", 1024, 1.0), gcm("wolfssl", 1152, 2.0)]
    assert he.cost(cases, "wolfssl", "RSA") == he.Cost(
        2780, None, "2,780 B is outside the measured AES-128-GCM sizes (1,024-1,152 B)")
    assert he.cost(cases, "wolfssl", "ECDSA") == he.Cost(None, None, "its TLS case is not in the run")
    assert he.cost([tls("mbedtls", "ECDSA", 1, 1, 0, 0, status="unsupported")], "mbedtls", "ECDSA") == he.Cost(
        None, None, "its TLS case: unsupported")
