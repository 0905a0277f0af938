"""Fidelity: OpenSSL AES-128-GCM, ChaCha20-Poly1305 and SHA-256 throughput at
16 KiB within 10% of `openssl speed -evp` measured in the same session."""

from __future__ import annotations

from tlsbench import fidelity


def test_openssl_figures_match_openssl_speed(agents) -> None:
    outside = [r for r in fidelity.compare() if abs(r.ratio - 1) > 0.10]
    for _ in range(2):
        # a pair that missed is measured again (twice at most): a busy moment on a
        # shared machine should not fail CI, a systematic difference still does
        if not outside:
            break
        again = {r.alg: r for r in fidelity.compare()}
        outside = [again[r.alg] for r in outside if abs(again[r.alg].ratio - 1) > 0.10]
    assert outside == [], fidelity.render(outside)
