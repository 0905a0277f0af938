"""Test key material: fresh for each host run, derived from one documented
seed for emulated targets (never real keys).

Keys are stored with the run (hex in runs.keys_json), so a resumed run and a
reader of the results use exactly the same material.
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, x448, x25519

from tlsbench.families.primitive.randomness import (
    MATERIAL_SEED,
    ORDERS,
    Source,
    ec_key,
    ed25519_key,
    montgomery_key,
    rsa_key,
)
from tlsbench.families.primitive.vectors import FFDHE_PRIMES
from tlsbench.paths import write_private
from tlsbench.targets.board import FIRMWARE_CLOCK_ENV as FIRMWARE_CLOCK_ENV  # the runner reads it here

# a host agent's frozen clock (agent/platform/host/platform_host.c): time() and gettimeofday() show it
HOST_CLOCK_ENV = "TLSBENCH_FIXED_CLOCK"

# RFC 7919 appendix A: exponents of at least twice the security strength.
FFDHE_EXPONENT_BITS = {"ffdhe2048": 224, "ffdhe3072": 256}
_CURVES = {"p256": ec.SECP256R1(), "p384": ec.SECP384R1()}
_RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw
_X962 = serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint


def _rsa(bits: int, src: Source, label: str) -> dict[str, str]:
    der = rsa_key(bits, src, label).private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    return {"key": der.hex()}


def _ec(curve: str, src: Source, label: str) -> dict[str, str]:
    k = ec_key(_CURVES[curve], ORDERS[curve], src, label)
    size = (k.curve.key_size + 7) // 8
    return {
        "key": k.private_numbers().private_value.to_bytes(size, "big").hex(),
        "pub": k.public_key().public_bytes(*_X962).hex(),
    }


def _raw_pair(k: ed25519.Ed25519PrivateKey | x25519.X25519PrivateKey | x448.X448PrivateKey) -> dict[str, str]:
    raw = k.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                          serialization.NoEncryption())
    return {"key": raw.hex(), "pub": k.public_key().public_bytes(*_RAW).hex()}


def _ffdhe(alg: str, src: Source, label: str) -> dict[str, str]:
    p = FFDHE_PRIMES[alg]
    bits = FFDHE_EXPONENT_BITS[alg]
    x = int.from_bytes(src.bytes(label, bits // 8), "big") | (1 << (bits - 1))
    plen = (p.bit_length() + 7) // 8
    return {"key": x.to_bytes(bits // 8, "big").hex(), "pub": pow(2, x, p).to_bytes(plen, "big").hex()}


def kex_pair(alg: str, src: Source | None = None, label: str = "") -> dict[str, str]:
    src = src or Source()
    label = label or f"kex/{alg}"
    if alg in ("x25519", "x448"):
        return _raw_pair(montgomery_key(alg, src, label))
    if alg in _CURVES:
        return _ec(alg, src, label)
    return _ffdhe(alg, src, label)


def generate(seed: str | None = None) -> dict:
    """kind -> algorithm -> {key, pub, ...} for every algorithm that needs keys;
    from the system's randomness, or all derived from ``seed`` (recorded
    under "seed", so the TLS material made later derives from it too)."""
    src = Source(seed)
    rsa2048, rsa3072 = _rsa(2048, src, "rsa2048"), _rsa(3072, src, "rsa3072")
    sig = {
        "rsa2048-pkcs1-sha256": rsa2048, "rsa2048-pss-sha256": rsa2048,
        "rsa3072-pkcs1-sha256": rsa3072, "rsa3072-pss-sha256": rsa3072,
        "ecdsa-p256-sha256": _ec("p256", src, "sig/ecdsa-p256"),
        "ecdsa-p384-sha384": _ec("p384", src, "sig/ecdsa-p384"),
        "ed25519": _raw_pair(ed25519_key(src, "sig/ed25519")),
    }
    kex = {}
    for alg in ("x25519", "x448", "p256", "p384", "ffdhe2048", "ffdhe3072"):
        own, peer = kex_pair(alg, src, f"kex/{alg}/own"), kex_pair(alg, src, f"kex/{alg}/peer")
        kex[alg] = {"key": own["key"], "pub": own["pub"], "peer": peer["pub"], "peer_key": peer["key"]}
    sym = {"aes-128-gcm": 16, "aes-256-gcm": 32, "aes-128-ccm": 16, "chacha20-poly1305": 32,
           "aes-128-cbc-hmac-sha1": 16 + 20, "aes-128-cbc-hmac-sha256": 16 + 32}
    keys: dict = {
        "sig": sig,
        "pke": {"rsa2048-pkcs1v15": rsa2048, "rsa3072-pkcs1v15": rsa3072},
        "kex": kex,
        "mac": {"hmac-sha256": {"key": src.bytes("mac/hmac-sha256", 32).hex()}},
        "aead": {alg: {"key": src.bytes(f"aead/{alg}", n).hex()} for alg, n in sym.items()},
    }
    if seed is not None:
        keys["seed"] = seed
    return keys


# ---- material of deterministic (emulated) targets ----

# The firmware's frozen clock: inside the fixed validity of seeded certificates.
FIRMWARE_CLOCK = datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC)


def seeded(path: Path) -> dict:
    """The keys of every emulated run, derived from MATERIAL_SEED: the same
    on every machine and checkout, so two runs of a plan execute exactly the
    same instructions. Cached in ``path`` (deriving RSA primes takes
    seconds); a cache from another seed or version is made anew.
    ``keys["clock_unix"]`` is the time the firmware's frozen clock shows."""
    try:
        keys = json.loads(path.read_text())
        if keys.get("seed") == MATERIAL_SEED and keys.get("clock_unix") == int(FIRMWARE_CLOCK.timestamp()):
            return keys
    except (OSError, ValueError, AttributeError):
        pass  # missing, unreadable or another seed: made anew
    keys = generate(MATERIAL_SEED)
    keys["clock_unix"] = int(FIRMWARE_CLOCK.timestamp())
    save_reusable(path, keys)
    return keys


def save_reusable(path: Path, keys: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # one per process: runs and test workers write it at once
    write_private(tmp, json.dumps(keys).encode())  # private keys: the owner's only
    tmp.replace(path)


def clock_of(keys: dict) -> datetime.datetime | None:
    t = keys.get("clock_unix")
    return None if t is None else datetime.datetime.fromtimestamp(int(t), datetime.UTC)
