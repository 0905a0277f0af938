"""The link model against real handshakes: OpenSSL host agents over loopback
through a user-space link relay (fixed one-way latency, paced bandwidth).
Latency dominates, so compute noise is small: the model must be within 25%
of the measured time to the last handshake byte (measured here: +1..+8%)."""

from __future__ import annotations

import statistics
from dataclasses import replace

import pytest

from tlsbench.families.tls.cases import TlsCase
from tlsbench.links.profiles import get_profile
from tlsbench.links.validate import through_link

T13 = (13, "TLS_AES_128_GCM_SHA256", "x25519", 3)
T12 = (12, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "p256", 4)


@pytest.mark.parametrize("latency_ms, kbit_s", [(20, 1000), (50, 250)])
@pytest.mark.parametrize("version, suite, group, flights", [T13, T12])
def test_model_predicts_a_real_handshake_over_an_emulated_link(agents, chain, latency_ms, kbit_s, version, suite,
                                                               group, flights) -> None:
    link = replace(get_profile("ethernet-100m"), one_way_latency_ms=latency_ms, up_kbit_s=kbit_s,
                   down_kbit_s=kbit_s)
    checks = through_link(agents["openssl"], agents["openssl"], TlsCase(version, suite, group, chain), link,
                          repeats=3)
    assert len(checks) == 3
    for c in checks:
        b = c.predicted
        assert (b.c2s.flights + b.s2c.flights) == flights  # TLS 1.3: 1.5 round trips; TLS 1.2: 2
        assert b.tcp_handshake_ns == 0  # the relay does not delay the TCP handshake
        # the link alone forbids anything faster than its latency and serialisation
        assert c.measured_ns >= b.latency_ns + b.serialisation_ns
    error = statistics.median(c.error for c in checks)
    assert abs(error) < 0.25, [f"{c.error:+.1%}" for c in checks]
