"""GnuTLS: the system's 3.7 (the default, docs/versions.md says why) and 3.8
with its nettle, built on request into a prefix; host only."""

from __future__ import annotations

from tlsbench.libraries.record import Check, Library, Version

LIBRARY = Library(
    name="gnutls",
    display="GnuTLS",
    versions=(
        Version("gnutls", "3.7", "system", "GnuTLS 3.7 (Debian 12 libgnutls28-dev)"),
        # GnuTLS 3.8's ML-KEM/ML-DSA are leancrypto's, which no Debian suite packages (docs/versions.md)
        Version("gnutls", "3.8", "gnutls@3.8",
                "GnuTLS 3.8.13 with nettle 3.10.1; ML-KEM: no (needs leancrypto, not packaged)", on_request=True,
                lacks_why="its ML-KEM and ML-DSA need leancrypto, which Debian does not package"),
    ),
    default="3.7",
    system_package="libgnutls28-dev",
    host_build="prefix",
    doctor_checks=(
        Check("pkgconfig", "gnutls", "libgnutls28-dev"), Check("pkgconfig", "nettle", "nettle-dev"),
        # gnutls@3.8's own build (targets/gnutlsbuild.py): nettle's assembly, GnuTLS's dependencies
        Check("tool", "m4", "m4"), Check("pkgconfig", "libtasn1", "libtasn1-6-dev"),
        Check("header", "unistr.h", "libunistring-dev"),
    ),
    companion_locks=("nettle",),
)
