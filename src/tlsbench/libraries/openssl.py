"""OpenSSL: the system's 3.0 (whose openssl command is the peer of the TLS and
fidelity studies) and a pinned release built into its own build tree; host only."""

from __future__ import annotations

from tlsbench.libraries.record import Check, Library, Version

LIBRARY = Library(
    name="openssl",
    display="OpenSSL",
    versions=(
        Version("openssl", "3.0", "system", "OpenSSL 3.0 (Debian 12 libssl-dev): the version of the system's openssl"
                                            " command (s_server, s_client, speed)"),
        Version("openssl", "3.5", "openssl@3.5", "OpenSSL 3.5.7: ML-KEM, ML-DSA, SLH-DSA", ("kem", "pqsig")),
    ),
    default="3.5",
    system_package="libssl-dev",
    host_build="build-tree",
    doctor_checks=(Check("tool", "openssl", "openssl"), Check("pkgconfig", "libcrypto", "libssl-dev")),
)
