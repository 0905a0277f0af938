"""What can be measured: kinds, algorithms, operations and libraries.

The agent's core/catalog.c holds the same table; tests/families/test_checks.py
checks that the two agree, so a new algorithm is added in both places.
"""

from __future__ import annotations

from tlsbench.libraries import registry

# The kinds a plan selects when it names none (the post-quantum kinds are
# selected by name: today's default libraries have none of them).
DEFAULT_KINDS = ("hash", "mac", "aead", "kex", "sig", "pke")
PQ_KINDS = ("kem", "pqsig")  # ML-KEM, ML-DSA and SLH-DSA
KINDS = (*DEFAULT_KINDS, *PQ_KINDS)

# kind -> algorithm -> operations, in catalog order
ALGORITHMS: dict[str, dict[str, tuple[str, ...]]] = {
    "hash": {
        name: ("hash",)
        for name in (
            "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
            "sha3-256", "sha3-384", "sha3-512",
        )
    },
    "mac": {"hmac-sha256": ("mac",)},
    "aead": {
        name: ("encrypt", "decrypt")
        for name in (
            "aes-128-gcm", "aes-256-gcm", "aes-128-ccm", "chacha20-poly1305",
            "aes-128-cbc-hmac-sha1", "aes-128-cbc-hmac-sha256",
        )
    },
    "kex": {
        name: ("public", "keygen", "derive", "exchange")
        for name in ("x25519", "x448", "p256", "p384", "ffdhe2048", "ffdhe3072")
    },
    "sig": {
        name: ("sign", "verify")
        for name in (
            "rsa2048-pkcs1-sha256", "rsa3072-pkcs1-sha256",
            "rsa2048-pss-sha256", "rsa3072-pss-sha256",
            "ecdsa-p256-sha256", "ecdsa-p384-sha384", "ed25519",
        )
    },
    "pke": {name: ("encrypt", "decrypt") for name in ("rsa2048-pkcs1v15", "rsa3072-pkcs1v15")},
    # ML-KEM (FIPS 203) and ML-DSA (FIPS 204): keys from their seeds (agent/include/tb/adapter.h)
    "kem": {name: ("keygen", "encaps", "decaps") for name in ("ml-kem-512", "ml-kem-768", "ml-kem-1024")},
    # SLH-DSA (FIPS 205) at security category 1: small (128s) and fast (128f) signing
    "pqsig": {name: ("keygen", "sign", "verify")
              for name in ("ml-dsa-44", "ml-dsa-65", "ml-dsa-87", "slh-dsa-sha2-128s", "slh-dsa-sha2-128f")},
}

# Operations that are benchmarked by default: "public" only exists for checks.
BENCH_OPS: dict[str, tuple[str, ...]] = {
    "hash": ("hash",),
    "mac": ("mac",),
    "aead": ("encrypt", "decrypt"),
    "kex": ("keygen", "derive", "exchange"),
    "sig": ("sign", "verify"),
    "pke": ("encrypt", "decrypt"),
    "kem": ("keygen", "encaps", "decaps"),
    "pqsig": ("keygen", "sign", "verify"),
}

# Kinds whose cost depends on the message size (swept over SIZES).
SIZED_KINDS = ("hash", "mac", "aead")
DEFAULT_SIZES = (16, 32, 64, 128, 256, 512, 1024, 4096, 16384)
# Fixed message for signatures (what TLS signs is a hash-sized transcript
# digest or a short ServerKeyExchange; the signature cost barely depends on it).
SIG_MESSAGE_SIZE = 32
# PKCS#1 v1.5 encryption payload: the 48-byte TLS 1.2 premaster secret.
PKE_MESSAGE_SIZE = 48

# the libraries a plan that names none measures (each library's record says whether it is one)
LIBRARIES = registry.default_plan()
