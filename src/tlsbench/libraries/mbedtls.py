"""Mbed TLS: built from its pinned source tree, for the host and as firmware."""

from __future__ import annotations

from tlsbench.libraries.record import Library, Version

_PQ_PROBES = ("mlkem768-keygen", "mlkem768", "mldsa44-keygen", "mldsa44", "mldsa65")

LIBRARY = Library(
    name="mbedtls",
    display="Mbed TLS",
    versions=(
        Version("mbedtls", "3.6", "mbedtls", "Mbed TLS 3.6.6 LTS", release="3.6.6"),
        Version("mbedtls", "3.6.7", "mbedtls@3.6.7", "Mbed TLS 3.6.7 LTS"),
    ),
    default="3.6.7",
    host_build="source",
    firmware="default",
    default_profile="default",
    size_archives=("libmbedtls.a", "libmbedx509.a", "libmbedcrypto.a"),
    size_unsupported={
        **{p: "Mbed TLS 3.6 has no EdDSA" for p in ("ed25519-sign", "ed25519-verify", "ed25519-sign-verify")},
        **{p: "Mbed TLS 3.6 has no ML-KEM or ML-DSA" for p in _PQ_PROBES},
    },
    config_mechanism="mbedtls-user-config",
)
