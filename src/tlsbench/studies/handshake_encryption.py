"""The IoT paper's Table 2 (study 003) from two stored runs of preset
handshake-encryption, software and "hw" on one board profile: the cycles to
AES-128-GCM-encrypt a TLS 1.2 full handshake's messages, ECDSA and RSA
certificates.

The handshake's messages are its record payloads as the run's TLS case
measured them (bytes on the wire both ways, less a 5-byte header per
record), taken as one AES-128-GCM message; its cycles are the run's
measured AES-128-GCM encryptions at the two sizes around that many bytes,
linear between them (exact at a measured size). The cycles are the board
profile's cycle model, and the "hw" ones its modelled CRYP: a model, as
the page says."""

from __future__ import annotations

from dataclasses import dataclass

RECORD_HEADER = 5  # a TLS record's header: type, version, length
# the paper's certificate types -> our TLS 1.2 case (suite, op) of preset handshake-encryption
CERTIFICATES = {"ECDSA": ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "p256/ecdsa-p256-full"),
                "RSA": ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "p256/rsa2048-full")}
GCM = "aes-128-gcm"


@dataclass(frozen=True)
class Cost:
    payload_bytes: int | None  # the handshake's record payloads (None: its TLS case did not run)
    cycles: float | None  # AES-128-GCM on them (None: not measured, why: note)
    note: str = ""


def _metric(case: dict, name: str) -> float | None:
    got = case["results"].get(name)
    return None if got is None else float(got["median"])


def handshake_payload(case: dict | None) -> int | None:
    """A TLS case's record payloads both ways (bytes on the wire less the records' headers)."""
    if case is None or case["status"] != "ok":
        return None
    parts = [_metric(case, m) for m in ("c2s_bytes", "s2c_bytes", "c2s_records", "s2c_records")]
    if any(p is None for p in parts):
        return None
    c2s, s2c, rc, rs = (int(p) for p in parts)  # type: ignore[arg-type]
    return c2s + s2c - RECORD_HEADER * (rc + rs)


def between(points: dict[int, float], n: int) -> float | None:
    """points (size -> cycles) at n: linear between the two measured sizes around it; None outside them."""
    sizes = sorted(points)
    if n in points:
        return points[n]
    below = [s for s in sizes if s < n]
    above = [s for s in sizes if s > n]
    if not below or not above:
        return None
    lo, hi = below[-1], above[0]
    return points[lo] + (points[hi] - points[lo]) * (n - lo) / (hi - lo)


def cost(cases: list[dict], library: str, certificate: str) -> Cost:
    """One run's cost of one library's handshake with that certificate type."""
    suite, op = CERTIFICATES[certificate]
    tls = next((c for c in cases if c["library"] == library and c["alg"] == suite and c["op"] == op), None)
    payload = handshake_payload(tls)
    if payload is None:
        why = "its TLS case is not in the run" if tls is None else f"its TLS case: {tls['status']}"
        return Cost(None, None, why)
    points = {int(c["size"]): v for c in cases
              if c["library"] == library and c["alg"] == GCM and c["op"] == "encrypt" and c["status"] == "ok"
              and c["size"] and (v := _metric(c, "model_cycles")) is not None}
    cycles = between(points, payload)
    if cycles is None:
        span = f"{min(points):,}-{max(points):,} B" if points else "none"
        return Cost(payload, None, f"{payload:,} B is outside the measured AES-128-GCM sizes ({span})")
    return Cost(payload, cycles)
