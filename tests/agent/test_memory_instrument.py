"""The heap and stack instruments against hand-known costs (the selftest
agent allocates and uses known amounts), and against each other's runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import paths
from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request


def _memory(path: Path, **fields) -> dict:
    req = encode_request("bench", kind="hash", op="hash", size=64, warmup=0, repeats=2, min_ns=100_000,
                         max_iters=3, **fields)
    resp = agent.call(path, [req], 60, "memory").responses[0]
    assert resp.status == "ok", resp.message
    (rec,) = resp.of_type("memory")
    return dict(rec.fields)


@pytest.fixture(scope="module")
def selftest(agents) -> Path:
    path = paths.agent_path("selftest")
    assert path.exists(), "the selftest agent is built with the others"
    return path


def test_heap_peak_of_a_known_allocation(selftest: Path) -> None:
    m = _memory(selftest, alg="md5")  # malloc(100000), touched, freed
    assert 100_000 <= m["heap_peak"] <= 100_000 + 32  # glibc's usable size rounds up a little
    assert m["heap_held"] == 0 and m["allocs"] == 1


def test_heap_held_of_a_known_leak(selftest: Path) -> None:
    m = _memory(selftest, alg="sha1")  # malloc(5000), kept
    assert 5000 <= m["heap_held"] <= 5000 + 32 and m["heap_peak"] == m["heap_held"]


def test_stack_of_a_known_array(selftest: Path) -> None:
    m = _memory(selftest, alg="sha224")  # a 30000-byte array on the stack
    assert 30_000 <= m["stack"] <= 30_000 + 512  # plus the call's own frame
    assert _memory(selftest, alg="md5")["stack"] < 512  # a call that uses no array


def test_a_deepest_byte_equal_to_the_paint_still_counts(selftest: Path) -> None:
    """sha256 writes the same array as sha224, its deepest byte the host's stack paint (0xA5): read against one
    paint it came out 64 bytes short (the bytes above it are never written; OpenSSL AES-GCM's stack moved by
    one byte between two host runs, the keys a run draws deciding that byte); the second paint finds it."""
    assert _memory(selftest, alg="sha256")["stack"] == _memory(selftest, alg="sha224")["stack"]


def test_memory_figures_repeat_exactly(agents) -> None:
    """Allocation and stack use of a deterministic operation do not vary."""
    args = dict(kind="aead", alg="aes-128-gcm", op="encrypt", size=1024, key=bytes(16), nonce=bytes(12),
                warmup=0, repeats=2, min_ns=100_000)
    for lib in ("mbedtls", "wolfssl", "openssl", "gnutls"):
        seen = []
        for _ in range(2):
            resp = agent.call(agents[lib], [encode_request("bench", **args)], 60, "memory").responses[0]
            seen.append(dict(resp.of_type("memory")[0].fields))
        assert seen[0] == seen[1], lib
        assert seen[0]["stack"] > 0, lib


def test_handshake_instruments_against_a_double_of_known_cost(agents) -> None:
    """The selftest TLS double: client 20000 B of stack, keeps 3000 B; server
    40000 B of stack, allocates 9000 B and frees 2000 B; 100 B and 300 B
    records; one round trip (agent/adapters/selftest/tls.c)."""
    from tlsbench import paths
    from tlsbench.families.tls.cases import TlsCase, run_handshakes
    from tlsbench.families.tls.certs import make_chain

    r = run_handshakes(paths.agent_path("selftest"), TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519",
                                                             make_chain("ecdsa-p256")), repeats=3)
    assert r.status == "ok", r.message
    # each side's stack is its own: the known array plus a small call overhead
    assert 20000 <= r.stack["client_stack"] <= 20000 + 1024
    assert 40000 <= r.stack["server_stack"] <= 40000 + 1024
    for s in r.samples:
        assert (s["c2s_bytes"], s["s2c_bytes"], s["c2s_records"], s["s2c_records"]) == (100, 300, 1, 1)
        assert s["round_trips"] == 1 and s["flights"] == 2
        # heap comes from the memory pass only: the timed connections carry none
        assert not any("heap" in k for k in s.fields)
    m = r.memory
    assert m is not None
    # the same connection object on both sides, so the known amounts show as differences
    conn = m["client_heap_peak"] - 3000
    assert abs((m["server_heap_peak"] - 9000) - conn) <= 32
    assert abs(m["server_heap_held"] - (m["server_heap_peak"] - 2000)) <= 32
    assert m["client_heap_held"] == m["client_heap_peak"]
