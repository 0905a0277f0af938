"""rekey=1: an AEAD's key is set again before every operation, as `openssl
speed` does (the fidelity comparison asks for it). With it the OpenSSL
agent's seal is byte for byte the seal without it and opens again, a seal
repeated on one prepared state (bench) stays correct; the other libraries'
agents refuse it in one line, and a job that is not an AEAD with it is bad
input."""

from __future__ import annotations

import pytest

from tlsbench import paths
from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request

KEY = {"aes-128-gcm": bytes(range(16)), "chacha20-poly1305": bytes(range(32))}
NONCE = bytes(range(12))
AAD = bytes(13)
MSG = bytes(i * 7 % 256 for i in range(1000))


def _compute(library: str, alg: str, op: str, msg: bytes, rekey: int) -> agent.Response:
    req = encode_request("compute", kind="aead", alg=alg, op=op, key=KEY[alg], nonce=NONCE, aad=AAD, msg=msg,
                         rekey=rekey)
    return agent.call(paths.agent_path(library), [req], 60, f"rekey {library} {alg}").responses[0]


@pytest.mark.parametrize("alg", ["aes-128-gcm", "chacha20-poly1305"])
def test_openssl_seals_the_same_bytes_with_the_key_set_every_time(agents, alg: str) -> None:
    plain, rekeyed = (_compute("openssl", alg, "encrypt", MSG, r) for r in (0, 1))
    assert plain.status == rekeyed.status == "ok"
    sealed = plain.of_type("out")[0]["data"]
    assert rekeyed.of_type("out")[0]["data"] == sealed
    assert isinstance(sealed, bytes) and len(sealed) == len(MSG) + 16
    opened = _compute("openssl", alg, "decrypt", sealed, 1)
    assert opened.status == "ok" and opened.of_type("out")[0]["data"] == MSG


def test_a_repeated_rekeyed_seal_stays_correct(agents) -> None:
    # bench decrypts what it sealed and checks the plaintext after the timed passes
    req = encode_request("bench", kind="aead", alg="aes-128-gcm", op="decrypt", key=KEY["aes-128-gcm"], nonce=NONCE,
                         aad=AAD, size=4096, warmup=1, repeats=3, min_ns=0, rekey=1)
    resp = agent.call(paths.agent_path("openssl"), [req], 60, "rekey bench").responses[0]
    assert resp.status == "ok", resp.message
    assert len(resp.of_type("sample")) == 3


@pytest.mark.parametrize("library", ["mbedtls", "wolfssl", "gnutls"])
def test_other_libraries_refuse_it(agents, library: str) -> None:
    resp = _compute(library, "aes-128-gcm", "encrypt", MSG, 1)
    assert (resp.status, resp.message) == (
        "unsupported", "rekey (the key set again before every operation) is not supported by this adapter")


def test_it_is_for_aead_jobs_only_and_zero_or_one(agents) -> None:
    hashed = agent.call(paths.agent_path("openssl"), [encode_request("compute", kind="hash", alg="sha256", op="hash",
                                                                     msg=MSG, rekey=1)], 60, "rekey hash").responses[0]
    assert (hashed.status, hashed.message) == ("bad_input", "rekey is for AEAD jobs only")
    assert _compute("openssl", "aes-128-gcm", "encrypt", MSG, 2).message == "rekey must be 0 or 1"
