"""Request handling findings of the agent's fuzzing and sanitizer work
(agent/fuzz, tests/test_fuzz.py), each kept as a regression test against
the real host agent (the selftest double: no crypto needed)."""

from __future__ import annotations

from tlsbench import paths
from tlsbench.engine import agent

HANDSHAKE = "handshake version=13 suite=TLS_AES_128_GCM_SHA256 group=x25519 name=localhost " \
            "chain=2d2d key=2d2d trust=2d2d stack=0"


def call(requests: list[str]) -> list[agent.Response]:
    return agent.call(paths.agent_path("selftest"), requests, 60, "selftest agent").responses


def test_warmup_plus_repeats_beyond_64_bits_is_refused(agents) -> None:
    """10 + 18446744073709551609 wraps to 3: the agent ran 3 warm-up
    handshakes, measured none and answered ok."""
    (r,) = call([f"{HANDSHAKE} warmup=10 repeats=18446744073709551609"])
    assert (r.status, r.message) == ("bad_input", "warmup + repeats is beyond 64 bits")
    assert r.records == []


def test_warmup_plus_repeats_at_the_limit_is_still_parsed(agents) -> None:
    """The check refuses only a sum that wraps: the same fields as a
    tls-client request (parsed by the same code) still reach the socket
    side, which asks for the server's port."""
    (r,) = call(["tls-client plain=1 warmup=0 repeats=18446744073709551609"])
    assert (r.status, r.message) == ("bad_input", "tls-client needs the server's port, and repeats >= 1 or duration_ms")


def test_measured_handshakes_follow_the_warmups(agents) -> None:
    (r,) = call([f"{HANDSHAKE} warmup=2 repeats=3"])
    assert r.status == "ok", r.message
    assert [int(x["i"]) for x in r.of_type("tls_warmup")] == [0, 1]
    assert [int(x["i"]) for x in r.of_type("tls")] == [0, 1, 2]
