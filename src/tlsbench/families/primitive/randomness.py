"""Where test material's randomness comes from: the system (host runs: fresh
keys every run) or one documented seed (emulated targets: the same keys,
certificates and PSKs on every machine and checkout, so exact counts are
exact everywhere; a key's bits change what scalar multiplication and RSA
cost).

The deterministic source expands the seed with SHAKE-256 under a label per
item ("sig/ecdsa-p256", "tls/rsa2048-full/root", ...), so adding an item never
changes another. RSA primes are searched from that stream (Miller-Rabin),
because cryptography's RSA generator cannot be seeded. These keys are
public by construction: test material, never a secret.
"""

from __future__ import annotations

import hashlib
import secrets

from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa, x448, x25519

# The documented seed of every emulated run's material (docs/method.md).
MATERIAL_SEED = "tlsbench deterministic test material v1"

_SMALL_PRIMES = [p for p in range(3, 2000, 2) if all(p % d for d in range(3, int(p ** 0.5) + 1, 2))]
_WITNESSES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71)


class Source:
    """Random bytes for a labelled item; the system's unless seeded."""

    def __init__(self, seed: str | None = None):
        self.seed = seed

    @property
    def deterministic(self) -> bool:
        return self.seed is not None

    def bytes(self, label: str, n: int) -> bytes:
        if self.seed is None:
            return secrets.token_bytes(n)
        return hashlib.shake_256(f"{self.seed}\0{label}".encode()).digest(n)

    def below(self, label: str, bound: int) -> int:
        """A number in [1, bound) (bias below 2**-64: 8 extra bytes)."""
        n = int.from_bytes(self.bytes(label, (bound.bit_length() + 7) // 8 + 8), "big")
        return 1 + n % (bound - 1)


def _probable_prime(n: int) -> bool:
    if any(n % p == 0 for p in _SMALL_PRIMES):
        return n in _SMALL_PRIMES
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in _WITNESSES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(source: Source, label: str, bits: int, e: int) -> int:
    for i in range(1_000_000):
        top = int.from_bytes(source.bytes(f"{label}/{i}", bits // 8), "big")
        c = top | (3 << (bits - 2)) | 1  # two top bits: p*q has exactly 2*bits bits
        if (c - 1) % e and _probable_prime(c):
            return c
    raise AssertionError("no prime found")  # pragma: no cover  (density ~ 1/ln 2^bits)


def rsa_key(bits: int, source: Source, label: str) -> rsa.RSAPrivateKey:
    e = 65537
    if not source.deterministic:
        return rsa.generate_private_key(public_exponent=e, key_size=bits)
    p = _prime(source, f"{label}/p", bits // 2, e)
    q = _prime(source, f"{label}/q", bits // 2, e)
    if p < q:
        p, q = q, p
    d = pow(e, -1, (p - 1) * (q - 1))
    public = rsa.RSAPublicNumbers(e, p * q)
    return rsa.RSAPrivateNumbers(p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p), public).private_key()


def ec_key(curve: ec.EllipticCurve, order: int, source: Source, label: str) -> ec.EllipticCurvePrivateKey:
    if not source.deterministic:
        return ec.generate_private_key(curve)
    return ec.derive_private_key(source.below(label, order), curve)


def ed25519_key(source: Source, label: str) -> ed25519.Ed25519PrivateKey:
    return ed25519.Ed25519PrivateKey.from_private_bytes(source.bytes(label, 32))


def montgomery_key(alg: str, source: Source, label: str) -> x25519.X25519PrivateKey | x448.X448PrivateKey:
    if alg == "x25519":
        return x25519.X25519PrivateKey.from_private_bytes(source.bytes(label, 32))
    return x448.X448PrivateKey.from_private_bytes(source.bytes(label, 56))


# group orders (SEC 2) for scalars in [1, n)
ORDERS = {
    "p256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    "p384": int("ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf"
                "581a0db248b0a77aecec196accc52973", 16),
}
