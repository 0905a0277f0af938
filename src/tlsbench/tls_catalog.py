"""The TLS matrix: suites (by IANA name), groups and certificate key types,
and which combinations make sense."""

from __future__ import annotations

from .certs import CHAIN_KINDS, KEY_TYPES

TLS13_SUITES = ("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                "TLS_AES_128_CCM_SHA256")
_TLS12_BODIES = ("AES_128_CBC_SHA", "AES_256_CBC_SHA", "AES_128_CBC_SHA256", "AES_128_GCM_SHA256",
                 "AES_256_GCM_SHA384", "CHACHA20_POLY1305_SHA256")
TLS12_SUITES = tuple(
    [f"TLS_ECDHE_ECDSA_WITH_{b}" for b in _TLS12_BODIES]
    + [f"TLS_ECDHE_RSA_WITH_{b}" for b in _TLS12_BODIES]
    + [f"TLS_DHE_RSA_WITH_{b}" for b in ("AES_128_CBC_SHA", "AES_128_GCM_SHA256", "AES_256_GCM_SHA384",
                                          "CHACHA20_POLY1305_SHA256")]
    + [f"TLS_RSA_WITH_{b}" for b in ("AES_128_CBC_SHA", "AES_256_CBC_SHA", "AES_128_CBC_SHA256",
                                      "AES_128_GCM_SHA256", "AES_256_GCM_SHA384")]
)
SUITES = TLS13_SUITES + TLS12_SUITES
EC_GROUPS = ("x25519", "x448", "p256", "p384")
FF_GROUPS = ("ffdhe2048", "ffdhe3072")
GROUPS = EC_GROUPS + FF_GROUPS


def version_of(suite: str) -> int:
    return 13 if suite in TLS13_SUITES else 12


def certs_for(suite: str) -> tuple[str, ...]:
    """Certificate key types a suite can authenticate with."""
    if suite in TLS13_SUITES:
        return KEY_TYPES
    if suite.startswith("TLS_ECDHE_ECDSA_"):
        return tuple(k for k in KEY_TYPES if k.startswith("ecdsa") or k == "ed25519")
    return tuple(k for k in KEY_TYPES if k.startswith("rsa"))


def groups_for(suite: str) -> tuple[str | None, ...]:
    """Key-exchange groups a suite uses; None: no key exchange group (RSA transport)."""
    if suite in TLS13_SUITES:
        return GROUPS
    if suite.startswith("TLS_ECDHE_"):
        return EC_GROUPS
    if suite.startswith("TLS_DHE_"):
        return FF_GROUPS
    return (None,)


__all__ = ["CHAIN_KINDS", "GROUPS", "KEY_TYPES", "SUITES", "certs_for", "groups_for", "version_of"]
