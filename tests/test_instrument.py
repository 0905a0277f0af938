"""The timing instrument against independent references: two clocks that
must agree, the linear cost of hashing, the batch size that must not matter,
and two runs that must agree."""

from __future__ import annotations

import statistics
from pathlib import Path

from tlsbench import agent
from tlsbench.protocol import encode_request


def _bench(path: Path, **fields) -> list:
    fields.setdefault("warmup", 1)
    fields.setdefault("repeats", 7)
    req = encode_request("bench", **fields)
    resp = agent.call(path, [req], 120, "instrument").responses[0]
    assert resp.status == "ok", resp.message
    return resp.of_type("sample")


def _median(samples: list, counter: str = "wall_ns") -> float:
    return statistics.median(int(s[counter]) / int(s["iters"]) for s in samples)


def test_thread_cpu_time_agrees_with_wall_time(agents) -> None:
    s = _bench(agents["openssl"], kind="hash", alg="sha256", op="hash", size=16384, min_ns=20_000_000)
    # single-threaded, compute-bound: the CPU clock and the wall clock measure the same thing
    assert abs(_median(s, "cpu_ns") / _median(s) - 1) < 0.05


def test_tsc_ticks_are_proportional_to_time(agents) -> None:
    a = _bench(agents["openssl"], kind="hash", alg="sha256", op="hash", size=64, min_ns=10_000_000)
    b = _bench(agents["gnutls"], kind="aead", alg="aes-128-gcm", op="encrypt", size=4096, key=bytes(16),
               nonce=bytes(12), min_ns=10_000_000)
    rate = [int(s["tsc"]) / int(s["wall_ns"]) for s in a + b]
    assert max(rate) / min(rate) < 1.02  # a constant-rate counter, the same in every process


def test_cost_of_hashing_is_linear_in_size(agents) -> None:
    """t(n) = a + b*n: fitted on 1 KiB and 4 KiB, it must predict 16 KiB."""
    for lib in ("openssl", "mbedtls"):
        t = {n: _median(_bench(agents[lib], kind="hash", alg="sha256", op="hash", size=n, min_ns=10_000_000))
             for n in (1024, 4096, 16384)}
        per_byte = (t[4096] - t[1024]) / 3072
        predicted = t[4096] + per_byte * (16384 - 4096)
        assert abs(t[16384] / predicted - 1) < 0.08, (lib, t)


def test_batch_length_does_not_change_the_per_operation_time(agents) -> None:
    args = dict(kind="aead", alg="chacha20-poly1305", op="encrypt", size=1024, key=bytes(32), nonce=bytes(12))
    short = _bench(agents["wolfssl"], min_ns=2_000_000, **args)
    long = _bench(agents["wolfssl"], min_ns=20_000_000, **args)
    assert int(long[0]["iters"]) > 5 * int(short[0]["iters"])
    assert abs(_median(long) / _median(short) - 1) < 0.10


def test_two_runs_agree(agents) -> None:
    args = dict(kind="kex", alg="x25519", op="derive", min_ns=10_000_000,
                key=bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"),
                peer=bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
    first = _median(_bench(agents["openssl"], **args))
    second = _median(_bench(agents["openssl"], **args))
    assert abs(first / second - 1) < 0.10
