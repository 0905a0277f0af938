"""BearSSL: selected by name (TLS 1.2 only, no malloc); host, and firmware on request."""

from __future__ import annotations

from tlsbench.libraries.record import Library, Version, debian

LIBRARY = Library(
    name="bearssl",
    display="BearSSL",
    versions=(Version("bearssl", "0.6", "bearssl", "BearSSL 0.6: no malloc; TLS 1.2 only; no SHA-3, PSS, Ed25519"),),
    default="0.6",
    in_default_plan=False,
    host_build="source",
    firmware="on-request",
    size_archives=("libtb_bearssl.a",),
    # its pinned sources: Debian source packages (apt-get source PACKAGE=VERSION from SUITE), every downloaded
    # file checked by its SHA-256 (record.debian, targets/sources.py)
    pins=(
        # trixie's 0.6+dfsg.1-4: the mirror serves its upstream archive but not its .dsc nor Debian tarball
        # (404), so only the archive is fetched; trixie's Sources index gives the other two as .dsc
        # 0ad473265fd5ede11b83d249d1de3db86c69c405a2b40340d45b1ecc40a91a0d and .debian.tar.xz
        # 658c04cce95ee9e2a8ab37758f1c14c7c1d3a706c203ae286f093a9c368e810c
        debian("bearssl", "bearssl=0.6+dfsg.1-4", "trixie", upstream="0.6", tar_only=True,
               archive="bearssl_0.6+dfsg.1.orig.tar.xz", tree=("bearssl-0.6", "inc/bearssl.h"), sha256="""
          102a625bd8f6155260867a50c508df8d8c3f796985dd744df1a68e5cd1a79004 bearssl_0.6+dfsg.1.orig.tar.xz"""),
    ),
)
