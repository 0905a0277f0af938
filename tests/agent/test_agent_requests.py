"""Request handling findings of the agent's fuzzing and sanitizer work
(agent/fuzz, tests/agent/test_fuzz.py), each kept as a regression test against
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


# ---- byte fields uploaded in several lines (core/upload.c) ----

UPLOADED = HANDSHAKE.replace("chain=2d2d key=2d2d", "chain=@ key=@")


def test_uploaded_fields_serve_the_next_request(agents) -> None:
    ups = ["upload name=chain size=2", "upload name=chain data=2d", "upload name=chain data=2d",
           "upload name=key size=2", "upload name=key data=2d2d"]
    *answers, hs, again = call([*ups, f"{UPLOADED} warmup=0 repeats=1", f"{UPLOADED} warmup=0 repeats=1"])
    assert [(r.status, r.records) for r in answers] == [("ok", [])] * len(ups)
    assert hs.status == "ok", hs.message
    # used once: the request after the one they served finds none
    assert (again.status, again.message) == ("bad_input", "field chain=@: nothing was uploaded as chain")


def test_an_upload_is_refused_with_the_reason(agents) -> None:
    cases = [
        (["upload name=chain data=00"], "upload chain: data before the upload's size (upload name=... size=... first)"),
        (["upload name=chain size=2", "upload name=chain data=001122"],
         "upload chain: more data than the upload's size"),
        (["upload name=chain size=2", "upload name=chain data=0g"], "upload chain: data is not hex"),
        (["upload name=chain size=0"], "upload chain: size must be 1..65536"),
        (["upload name=chain size=65537"], "upload chain: size must be 1..65536"),
        (["upload name=chain size=1 data=00"], "upload chain: give size (to start) or data (to append), not both"),
        (["upload name=a_name_too_long_x size=1"], "upload a_name_too_long_x: name must be 1..15 characters"),
        (["upload name=chain size=1 at=0"], "unknown field at (upload takes name, and size or data)"),
        ([f"upload name=n{i} size=1" for i in range(5)],
         "upload n4: no upload slot free (at most 4 before the request that uses them)"),
        (["upload name=chain size=2", "upload name=chain data=2d", "upload name=key size=2",
          "upload name=key data=2d2d", UPLOADED], "field chain=@: its upload is incomplete (1 of 2 B)"),
        (["upload name=chain size=2", "upload name=chain data=2d2d", "hello",
          UPLOADED], "field chain=@: nothing was uploaded as chain"),
    ]
    for requests, message in cases:
        last = call(requests)[-1]
        assert (last.status, last.message) == ("bad_input", message), requests
