"""A job its family refuses in prepare is answered with the family's own error, and the agent
goes on: the partly prepared state is released through the kind's table (tb/family.h) once,
whatever the family had set up by then (a key initialised, a curve's own table chosen).
One agent per library, every kind it has, the whole list in one call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request

Z = bytes
JOBS = [  # kind, alg, op, fields
    ("aead", "aes-128-gcm", "encrypt", {"key": Z(5), "nonce": Z(12), "msg": Z(4)}),
    ("aead", "aes-128-gcm", "encrypt", {"key": Z(16), "nonce": b"", "msg": Z(4)}),
    ("aead", "chacha20-poly1305", "decrypt", {"key": Z(32), "nonce": Z(12), "msg": Z(4)}),
    ("kex", "x25519", "derive", {"key": Z(31), "peer": Z(32)}),
    ("kex", "x448", "derive", {"key": Z(56), "peer": Z(5)}),
    ("kex", "p256", "derive", {"key": Z(32), "peer": Z(10)}),
    ("kex", "ffdhe2048", "derive", {"key": b"", "peer": Z(256)}),
    ("sig", "ecdsa-p256-sha256", "sign", {"key": Z(5), "msg": Z(3)}),
    ("sig", "rsa2048-pkcs1-sha256", "sign", {"key": Z(40), "msg": Z(3)}),
    ("pke", "rsa2048-pkcs1v15", "decrypt", {"key": Z(40), "msg": Z(256)}),
    ("kem", "ml-kem-512", "keygen", {"key": Z(3)}),
    ("pqsig", "ml-dsa-44", "keygen", {"key": Z(3)}),
    ("hash", "sha256", "hash", {"msg": Z(3)}),  # and the agent still computes
]
UNSUPPORTED = ("unsupported", "not supported by this library build")
ANSWERS = {
    "wolfssl": [
        ("bad_input", "key is 5 bytes, expected the cipher's key size"),
        ("bad_input", "nonce is 0 bytes, expected at least 1"),
        ("bad_input", "ciphertext is 4 bytes, expected at least the 16-byte tag"),
        ("bad_input", "private key is 31 bytes, expected the scalar size"),
        ("bad_input", "peer public key is 5 bytes, expected the public key size"),
        ("bad_input", "peer public key is 10 bytes, expected the public key size"),
        ("bad_input", "private key is 0 bytes, expected 1 to the prime length"),
        ("bad_input", "private key is 5 bytes, expected the scalar size"),
        ("bad_input", "wc_RsaPrivateKeyDecode: ASN parsing error, invalid input (-140)"),
        ("bad_input", "wc_RsaPrivateKeyDecode: ASN parsing error, invalid input (-140)"),
        ("bad_input", "ML-KEM seed (key) is 3 bytes, expected 64"),
        ("bad_input", "ML-DSA seed (key) is 3 bytes, expected 32"),
        ("ok", ""),
    ],
    "gnutls": [
        ("bad_input", "aes-128-gcm needs a 16-byte key, got 5"),
        ("bad_input", "aes-128-gcm: nonce length 0 not supported"),
        ("bad_input", "ciphertext shorter than the 16-byte tag"),
        ("bad_input", "private key has the wrong length"),
        ("bad_input", "peer public key has the wrong length"),
        ("bad_input", "EC private scalar out of range [1, n-1]"),
        ("bad_input", "ffdhe private exponent has the wrong length"),
        ("bad_input", "EC private scalar out of range"),
        ("bad_input", "gnutls_x509_privkey_import: ASN1 parser: Error in DER parsing."),
        ("bad_input", "gnutls_x509_privkey_import: ASN1 parser: Error in DER parsing."),
        UNSUPPORTED,
        UNSUPPORTED,
        ("ok", ""),
    ],
}


@pytest.mark.parametrize("lib", sorted(ANSWERS))
def test_a_refused_job_is_answered_and_the_agent_goes_on(agents: dict[str, Path], lib: str) -> None:
    requests = [encode_request("compute", kind=kind, alg=alg, op=op, **fields) for kind, alg, op, fields in JOBS]
    responses = agent.call(agents[lib], requests, 60, f"{lib} refusals").responses
    assert [(r.status, r.message) for r in responses] == ANSWERS[lib]
