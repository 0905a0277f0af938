"""OpenSSL: the system's 3.0 (whose openssl command is the peer of the TLS and
fidelity studies) and a pinned release built into its own build tree; host only."""

from __future__ import annotations

from tlsbench.libraries.record import Check, Library, Version, debian

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
    # its pinned sources: Debian source packages (apt-get source PACKAGE=VERSION from SUITE), every downloaded
    # file checked by its SHA-256 (record.debian, targets/sources.py)
    pins=(
        # OpenSSL 3.5 (ML-KEM, ML-DSA, the hybrid TLS groups) from trixie
        debian("openssl@3.5", "openssl=3.5.7-1~deb13u2", "trixie", upstream="3.5.7",
               archive="openssl_3.5.7.orig.tar.gz", tree=("openssl-3.5.7", "include/openssl/opensslv.h.in"), sha256="""
          25904642004d30c5c3da4642a72a7d09f8d9eb6e5ce62dab53c0371114faf8f2 openssl_3.5.7-1~deb13u2.dsc
          a8c0d28a529ca480f9f36cf5792e2cd21984552a3c8e4aa11a24aa31aeac98e8 openssl_3.5.7.orig.tar.gz
          d3d082bee3f658c31db53af625eceecf29d777c7010394bed5787ebcc98abdf2 openssl_3.5.7.orig.tar.gz.asc
          593a47654ead460a3b609503733f80bef552ff0802799d3b47784faacc50809f openssl_3.5.7-1~deb13u2.debian.tar.xz"""),
    ),
)
