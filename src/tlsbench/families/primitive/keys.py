"""Test key material, generated fresh for each run (never real keys).

Keys are stored with the run (hex in runs.keys_json), so a resumed run and a
reader of the results use exactly the same material.
"""

from __future__ import annotations

import datetime
import json
import secrets
import time
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa, x448, x25519

from tlsbench.families.primitive.vectors import FFDHE_PRIMES
from tlsbench.paths import write_private

# RFC 7919 appendix A: exponents of at least twice the security strength.
FFDHE_EXPONENT_BITS = {"ffdhe2048": 224, "ffdhe3072": 256}
_CURVES = {"p256": ec.SECP256R1(), "p384": ec.SECP384R1()}
_RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw
_X962 = serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint


def _rsa(bits: int) -> dict[str, str]:
    k = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    der = k.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    return {"key": der.hex()}


def _ec(curve: str) -> dict[str, str]:
    k = ec.generate_private_key(_CURVES[curve])
    size = (k.curve.key_size + 7) // 8
    return {
        "key": k.private_numbers().private_value.to_bytes(size, "big").hex(),
        "pub": k.public_key().public_bytes(*_X962).hex(),
    }


def _ed25519() -> dict[str, str]:
    k = ed25519.Ed25519PrivateKey.generate()
    raw = k.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                          serialization.NoEncryption())
    return {"key": raw.hex(), "pub": k.public_key().public_bytes(*_RAW).hex()}


def _montgomery(alg: str) -> dict[str, str]:
    cls = x25519.X25519PrivateKey if alg == "x25519" else x448.X448PrivateKey
    k = cls.generate()
    raw = k.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                          serialization.NoEncryption())
    return {"key": raw.hex(), "pub": k.public_key().public_bytes(*_RAW).hex()}


def _ffdhe(alg: str) -> dict[str, str]:
    p = FFDHE_PRIMES[alg]
    bits = FFDHE_EXPONENT_BITS[alg]
    x = secrets.randbits(bits) | (1 << (bits - 1))
    plen = (p.bit_length() + 7) // 8
    return {"key": x.to_bytes(bits // 8, "big").hex(), "pub": pow(2, x, p).to_bytes(plen, "big").hex()}


def kex_pair(alg: str) -> dict[str, str]:
    if alg in ("x25519", "x448"):
        return _montgomery(alg)
    if alg in _CURVES:
        return _ec(alg)
    return _ffdhe(alg)


def generate() -> dict[str, dict[str, dict[str, str]]]:
    """kind -> algorithm -> {key, pub, ...} for every algorithm that needs keys."""
    rsa2048, rsa3072 = _rsa(2048), _rsa(3072)
    sig = {
        "rsa2048-pkcs1-sha256": rsa2048, "rsa2048-pss-sha256": rsa2048,
        "rsa3072-pkcs1-sha256": rsa3072, "rsa3072-pss-sha256": rsa3072,
        "ecdsa-p256-sha256": _ec("p256"), "ecdsa-p384-sha384": _ec("p384"),
        "ed25519": _ed25519(),
    }
    kex = {}
    for alg in ("x25519", "x448", "p256", "p384", "ffdhe2048", "ffdhe3072"):
        own, peer = kex_pair(alg), kex_pair(alg)
        kex[alg] = {"key": own["key"], "pub": own["pub"], "peer": peer["pub"], "peer_key": peer["key"]}
    return {
        "sig": sig,
        "pke": {"rsa2048-pkcs1v15": rsa2048, "rsa3072-pkcs1v15": rsa3072},
        "kex": kex,
        "mac": {"hmac-sha256": {"key": secrets.token_bytes(32).hex()}},
        "aead": {
            "aes-128-gcm": {"key": secrets.token_bytes(16).hex()},
            "aes-256-gcm": {"key": secrets.token_bytes(32).hex()},
            "aes-128-ccm": {"key": secrets.token_bytes(16).hex()},
            "chacha20-poly1305": {"key": secrets.token_bytes(32).hex()},
            "aes-128-cbc-hmac-sha1": {"key": secrets.token_bytes(16 + 20).hex()},
            "aes-128-cbc-hmac-sha256": {"key": secrets.token_bytes(16 + 32).hex()},
        },
    }


# ---- material reused by deterministic (emulated) targets ----

FIRMWARE_CLOCK_ENV = "TLSBENCH_FIRMWARE_CLOCK"
MATERIAL_MAX_AGE_S = 20 * 86400  # test certificates are valid for 30 days


def reusable(path: Path, now: float | None = None) -> dict:
    """The keys and certificates of every emulated run made from this
    checkout, generated once and reused for up to 20 days, so two runs of a
    plan execute exactly the same instructions (a key's bits change what
    scalar multiplication and RSA cost). ``keys["clock_unix"]`` is the time
    the firmware's frozen clock shows: the hour they were made, inside every
    certificate's validity."""
    now = time.time() if now is None else now
    try:
        keys = json.loads(path.read_text())
        if now - float(keys["clock_unix"]) < MATERIAL_MAX_AGE_S:
            return keys
    except (OSError, ValueError, KeyError, TypeError):
        pass  # missing, unreadable or stale: made anew
    keys = generate()
    keys["clock_unix"] = int(now) - int(now) % 3600
    save_reusable(path, keys)
    return keys


def save_reusable(path: Path, keys: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    write_private(tmp, json.dumps(keys).encode())  # private keys: the owner's only
    tmp.replace(path)


def clock_of(keys: dict) -> datetime.datetime | None:
    t = keys.get("clock_unix")
    return None if t is None else datetime.datetime.fromtimestamp(int(t), datetime.UTC)
