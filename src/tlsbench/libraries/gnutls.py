"""GnuTLS: the system's 3.7 (the default, docs/versions.md says why) and 3.8
with its nettle, built on request into a prefix; host only."""

from __future__ import annotations

from tlsbench.libraries.record import Check, Library, Version, debian

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
    # its pinned sources: Debian source packages (apt-get source PACKAGE=VERSION from SUITE), every downloaded
    # file checked by its SHA-256 (record.debian, targets/sources.py)
    pins=(
        # from sid, built into its own prefix (targets/gnutlsbuild.py) with the nettle below
        debian("gnutls@3.8", "gnutls28=3.8.13-1", "sid", upstream="3.8.13", archive="gnutls28_3.8.13.orig.tar.xz",
               tree=("gnutls-3.8.13", "lib/includes/gnutls/gnutls.h.in"), sha256="""
          6c4c060c88ab12c3aee4e7ed529f0a96d084a23758a4b4d287776b8aef20d490 gnutls28_3.8.13-1.dsc
          ffed8ec1bf09c2426d4f14aae377de4753b53e537d685e604e99a8b16ca9c97e gnutls28_3.8.13.orig.tar.xz
          69ce880450f47829d4c85338e468c4b33f2611790a8e8cc5adaa98590bc9fa84 gnutls28_3.8.13.orig.tar.xz.asc
          02ff56482995fef5ee9a8b0761568ca45b0ba07ab6a40030b1e10330551939f9 gnutls28_3.8.13-1.debian.tar.xz"""),
        # no library under test but GnuTLS 3.8's own dependency, so pinned here beside it: GnuTLS 3.8 needs
        # nettle >= 3.10 (its m4/hooks.m4) and bookworm has 3.8.1, so trixie's nettle is built into gnutls@3.8's
        # prefix (companion_locks)
        debian("nettle", "nettle=3.10.1-1", "trixie", upstream="3.10.1", archive="nettle_3.10.1.orig.tar.gz",
               tree=("nettle-3.10.1", "nettle-meta.h"), sha256="""
          7b440850ce04b341363f3f5e23dfb9f96ebf7d52e0ef7ba2d07120c90ca61b3c nettle_3.10.1-1.dsc
          b0fcdd7fc0cdea6e80dcf1dd85ba794af0d5b4a57e26397eee3bc193272d9132 nettle_3.10.1.orig.tar.gz
          2d40d02ddac5985d8833532a17a0ef96cb685ee0547ee9617ec13793b22e34c6 nettle_3.10.1-1.debian.tar.xz"""),
    ),
)
