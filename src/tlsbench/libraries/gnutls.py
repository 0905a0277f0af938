"""GnuTLS: the system's 3.7 (the default, docs/versions.md says why) and 3.8
with its nettle, built on request into a prefix; host only."""

from __future__ import annotations

from tlsbench.libraries.record import Check, Library, PinnedSource, Version

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
    # its pinned sources: Debian source packages, every downloaded file checked by its SHA-256 (targets/sources.py)
    pins=(
        PinnedSource(
            "gnutls@3.8", package="gnutls28", version="3.8.13-1", suite="sid", upstream="3.8.13",
            archive="gnutls28_3.8.13.orig.tar.xz", source_dir="gnutls-3.8.13", marker="lib/includes/gnutls/gnutls.h.in",
            sha256={
                "gnutls28_3.8.13-1.dsc":
                    "6c4c060c88ab12c3aee4e7ed529f0a96d084a23758a4b4d287776b8aef20d490",
                "gnutls28_3.8.13.orig.tar.xz":
                    "ffed8ec1bf09c2426d4f14aae377de4753b53e537d685e604e99a8b16ca9c97e",
                "gnutls28_3.8.13.orig.tar.xz.asc":
                    "69ce880450f47829d4c85338e468c4b33f2611790a8e8cc5adaa98590bc9fa84",
                "gnutls28_3.8.13-1.debian.tar.xz":
                    "02ff56482995fef5ee9a8b0761568ca45b0ba07ab6a40030b1e10330551939f9",
            },
        ),
        PinnedSource(
            "nettle", package="nettle", version="3.10.1-1", suite="trixie", upstream="3.10.1",
            archive="nettle_3.10.1.orig.tar.gz", source_dir="nettle-3.10.1", marker="nettle-meta.h",
            sha256={
                "nettle_3.10.1-1.dsc":
                    "7b440850ce04b341363f3f5e23dfb9f96ebf7d52e0ef7ba2d07120c90ca61b3c",
                "nettle_3.10.1.orig.tar.gz":
                    "b0fcdd7fc0cdea6e80dcf1dd85ba794af0d5b4a57e26397eee3bc193272d9132",
                "nettle_3.10.1-1.debian.tar.xz":
                    "2d40d02ddac5985d8833532a17a0ef96cb685ee0547ee9617ec13793b22e34c6",
            },
        ),
    ),
)
