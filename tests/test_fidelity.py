"""Fidelity: OpenSSL AES-128-GCM, ChaCha20-Poly1305 and SHA-256 throughput at
16 KiB against `openssl speed -evp ALG -bytes 16384` measured in the same
session.

AES-128-GCM and SHA-256 must agree within 10%. ChaCha20-Poly1305 sits 6-13%
below `openssl speed` on our host, consistently, also with the agent running
alone and with in-place buffers, and we have not found why: its bound here
is 15%, and docs/method.md says so. A looser bound is recorded, never hidden.
"""

from __future__ import annotations

from tlsbench import fidelity

BOUND = {"aes-128-gcm": 0.10, "sha256": 0.10, "chacha20-poly1305": 0.15}


def test_openssl_figures_match_openssl_speed(agents) -> None:
    def outside(rows: list[fidelity.Comparison]) -> list[fidelity.Comparison]:
        return [r for r in rows if abs(r.ratio - 1) > BOUND[r.alg]]

    missed = outside(fidelity.compare())
    for _ in range(2):
        # a pair that missed is measured again (twice at most): a busy moment on a
        # shared machine should not fail CI, a systematic difference still does
        if not missed:
            break
        again = {r.alg: r for r in fidelity.compare()}
        missed = outside([again[r.alg] for r in missed])
    assert missed == [], fidelity.render(missed)
