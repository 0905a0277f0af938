"""TLS handshakes in one agent (client and server joined in memory): round
trips, bytes and records from the actual exchange, checked by an independent
parse of the bytes that crossed."""

from __future__ import annotations

from dataclasses import replace as dc_replace

import pytest
from cryptography.hazmat.primitives import serialization

from tlsbench.families.tls.cases import TlsCase, parse_records, run_handshakes
from tlsbench.families.tls.certs import make_chain

TLS13 = ("TLS_AES_128_GCM_SHA256", 13)
TLS12 = ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 12)


@pytest.fixture(scope="module")
def p256_chain():
    return make_chain("ecdsa-p256", "full", "server")


LIBS = ("mbedtls", "wolfssl", "openssl", "gnutls")


@pytest.mark.parametrize("library", LIBS)
@pytest.mark.parametrize("suite, version, rtt", [(*TLS13, 1), (*TLS12, 2)])
def test_round_trips_and_counts_match_the_bytes(agents, p256_chain, library: str, suite: str, version: int,
                                                rtt: int) -> None:
    r = run_handshakes(agents[library], TlsCase(version, suite, "p256", p256_chain), repeats=3, transcript=True)
    assert r.status == "ok", r.message
    first = r.memory  # the transcript is of the memory pass's connection: its own counts
    assert first is not None
    assert all(s["round_trips"] == rtt for s in r.samples)  # measured, not assumed from the version
    client, server = r.wire["client"], r.wire["server"]
    # the counters agree exactly with an independent parse of the same bytes
    assert first["total_c2s_bytes"] == len(client) and first["total_s2c_bytes"] == len(server)
    hs_c2s = parse_records(client[: first["c2s_bytes"]])
    hs_s2c = parse_records(server[: first["s2c_bytes"]])
    assert len(hs_c2s) == first["c2s_records"] and len(hs_s2c) == first["s2c_records"]
    # and the bytes are a TLS handshake: a ClientHello first, the server's certificate sent
    assert hs_c2s[0][0] == 22 and hs_c2s[0][1][0] == 1
    if version == 12:  # TLS 1.2 sends the certificate in the clear
        leaf = p256_chain.leaf.cert.public_bytes(serialization.Encoding.DER)
        assert leaf in server
    assert all(s["client_cpu_ns"] > 0 and s["server_cpu_ns"] > 0 for s in r.samples)


def test_an_unknown_suite_is_unsupported(agents, p256_chain) -> None:
    r = run_handshakes(agents["openssl"], TlsCase(13, "TLS_AES_512_OCB_SHA1024", None, p256_chain), repeats=1)
    assert r.status == "unsupported" and "TLS_AES_512_OCB_SHA1024" in r.message


def test_a_failing_handshake_reports_why(agents, p256_chain) -> None:
    stranger = make_chain("ecdsa-p256", "full", "server")  # another root: the client must refuse
    mixed = type(p256_chain)(p256_chain.key_type, "full", "server", stranger.root, p256_chain.intermediate,
                             p256_chain.leaf)
    r = run_handshakes(agents["openssl"], TlsCase(13, TLS13[0], "x25519", mixed), repeats=1)
    assert r.status == "error" and "certificate" in r.message and r.samples == []


def test_a_library_without_tls_says_so(agents, p256_chain) -> None:
    from tlsbench import paths

    # this selftest double implements no TLS: the core's default answers
    r = run_handshakes(paths.agent_path("selftest-notls"), TlsCase(13, TLS13[0], "x25519", p256_chain), repeats=1)
    assert r.status == "unsupported" and "no TLS" in r.message


def test_a_tls_plan_runs_and_stores_per_side_results(agents, tmp_path) -> None:
    from tlsbench.engine import runner
    from tlsbench.engine.store import Store
    from tlsbench.plans.plan import parse_plan

    plan = parse_plan('[select]\nlibraries = ["openssl"]\nkinds = ["tls"]\n'
                      '[tls]\nsuites = ["TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"]\n'
                      'groups = ["x25519"]\ncerts = ["rsa2048", "ecdsa-p256"]\n'
                      '[method]\nrepeats = 4\nrounds = 2\nwarmup = 1\n', "tls.toml")
    store = Store(tmp_path / "r.sqlite")
    run_id = runner.run(plan, "", store, show_progress=False)
    cases = {c["name"]: c for c in store.cases(run_id)}
    # the ECDHE_RSA suite cannot use an ECDSA certificate: that case is not made at all
    assert sorted(cases) == [
        "openssl/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full",
        "openssl/tls/TLS_AES_128_GCM_SHA256/x25519/rsa2048-full",
        "openssl/tls/TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256/x25519/rsa2048-full",
    ]
    assert all(c["status"] == "ok" and c["rounds_done"] == 2 for c in cases.values())
    res = {(r["alg"], r["metric"]): r for r in store.results(run_id) if r["op"].endswith("rsa2048-full")}
    assert res[("TLS_AES_128_GCM_SHA256", "round_trips")]["median"] == 1
    assert res[("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "round_trips")]["median"] == 2
    assert res[("TLS_AES_128_GCM_SHA256", "s2c_bytes")]["n"] == 4  # 2 + 2 handshakes over the rounds
    # the certificate chains are kept with the run, so a resume uses the same ones
    assert set(store.get_run(run_id).keys["tls"]) == {"rsa2048-full", "ecdsa-p256-full"}


def test_openssl_completes_every_suite_of_the_catalog(agents) -> None:
    """`tlsbench list suites`: a real handshake per library and suite."""
    from tlsbench.families.primitive.catalog import LIBRARIES
    from tlsbench.families.tls.support import support_matrix

    header, body = support_matrix()
    col = header.index("openssl")
    # OpenSSL 3 has no static ECDH suites any more; it has every other suite of the catalog
    expected = ["unsupported" if row[0].startswith("TLS_ECDH_ECDSA_") else "yes" for row in body]
    assert [row[col] for row in body] == expected
    assert set(header[3:]) == set(LIBRARIES)


def _server_key_exchange_group(server_bytes: bytes) -> int:
    """The named group of a TLS 1.2 ServerKeyExchange (sent in the clear)."""
    plain = b""
    for rtype, fragment in parse_records(server_bytes):
        if rtype == 20:  # ChangeCipherSpec: what follows is encrypted
            break
        if rtype == 22:
            plain += fragment
    i = 0
    while i + 4 <= len(plain):
        mtype, length = plain[i], int.from_bytes(plain[i + 1 : i + 4], "big")
        body = plain[i + 4 : i + 4 + length]
        if mtype == 12:
            assert body[0] == 3  # named_curve
            return int.from_bytes(body[1:3], "big")
        i += 4 + length
    raise AssertionError("no ServerKeyExchange")


@pytest.mark.parametrize("library", LIBS)
def test_the_pinned_group_is_the_one_used(agents, p256_chain, library: str) -> None:
    """TLS 1.2 ECDHE with an ECDSA P-256 certificate and x25519 pinned: the
    client also offers P-256 (it must, to accept the certificate), yet the
    key exchange is X25519, read from the ServerKeyExchange on the wire."""
    r = run_handshakes(agents[library], TlsCase(12, TLS12[0], "x25519", p256_chain), repeats=1, transcript=True)
    assert r.status == "ok", r.message
    assert _server_key_exchange_group(r.wire["server"]) == 0x001D  # x25519


@pytest.mark.parametrize("library", LIBS)
def test_per_side_heap_agrees_with_the_system_allocator(agents, p256_chain, library: str) -> None:
    """What the two sides hold after the handshake, by our counting allocator,
    equals glibc's own count of bytes in use (mallinfo2), to the byte: glibc
    counts each live chunk's 8-byte header on top of its usable size. The
    thread cache is turned off so freed chunks are not counted as in use."""
    from tlsbench.engine import agent
    from tlsbench.families.tls.cases import handshake_request

    req = handshake_request(TlsCase(13, TLS13[0], "x25519", p256_chain), repeats=2, transcript=True)
    resp = agent.call(agents[library], [req], 60, "heap", wrapper=("env", "GLIBC_TUNABLES=glibc.malloc.tcache_count=0"))
    r = resp.responses[0]
    assert r.status == "ok", r.message
    (check,) = r.of_type("heap_check")
    assert check["system_delta"] == check["held"] + 8 * check["blocks"]
    (first,) = r.of_type("tls_memory")  # the counted connection the check comes from
    assert check["held"] == first["client_heap_held"] + first["server_heap_held"]
    for side in ("client", "server"):
        assert 0 < first[f"{side}_heap_held"] <= first[f"{side}_heap_peak"]


@pytest.mark.parametrize("library", ["mbedtls", "wolfssl", "openssl", "gnutls"])
def test_a_client_told_not_to_verify_accepts_a_chain_it_cannot_verify(agents, library) -> None:
    """verify=0 really skips verification: a root that did not sign the
    server's chain (and a wrong name) fails the verifying client, not this one."""
    chain, stranger = make_chain("ecdsa-p256", "leaf"), make_chain("ecdsa-p256", "leaf")
    wrong = dc_replace(chain, root=stranger.root)
    case = TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519", wrong)
    strict = run_handshakes(agents[library], case, repeats=1, warmup=0)
    assert strict.status != "ok" and "certif" in strict.message.lower(), strict.message
    lax = run_handshakes(agents[library], dc_replace(case, verify_peer=False), repeats=1, warmup=0)
    assert lax.status == "ok", lax.message
    assert len(lax.samples) == 1 and lax.samples[0]["round_trips"] == 1


# the handshake-by-suite study's suites added to the catalog, with their IANA code points
STUDY_SUITES = [("TLS_RSA_WITH_AES_256_CBC_SHA256", None, b"\x00\x3d"),
                ("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", "p256", b"\xc0\x28")]


@pytest.mark.parametrize("suite, group, code", STUDY_SUITES)
def test_the_studys_aes_256_cbc_suites_complete_in_mbedtls(agents, suite: str, group: str | None,
                                                           code: bytes) -> None:
    r = run_handshakes(agents["mbedtls"], TlsCase(12, suite, group, make_chain("rsa2048", "full", "server")),
                       repeats=1, warmup=0, transcript=True)
    assert r.status == "ok", r.message
    assert [s["round_trips"] for s in r.samples] == [2]
    # the ServerHello (the server's first handshake record) names the suite: version, random, session id, suite
    kind, body = parse_records(r.wire["server"])[0]
    assert (kind, body[0], body[4:6]) == (22, 2, b"\x03\x03")
    sid = body[38]
    assert body[39 + sid:41 + sid] == code
