"""BearSSL: selected by name (TLS 1.2 only, no malloc); host, and firmware on request."""

from __future__ import annotations

from tlsbench.libraries.record import Library, PinnedSource, Version

LIBRARY = Library(
    name="bearssl",
    display="BearSSL",
    versions=(Version("bearssl", "0.6", "bearssl", "BearSSL 0.6: no malloc; TLS 1.2 only; no SHA-3, PSS, Ed25519"),),
    default="0.6",
    in_default_plan=False,
    host_build="source",
    firmware="on-request",
    size_archives=("libtb_bearssl.a",),
    # its pinned sources: Debian source packages, every downloaded file checked by its SHA-256 (targets/sources.py)
    pins=(
        PinnedSource(
            "bearssl", package="bearssl", version="0.6+dfsg.1-4", suite="trixie", upstream="0.6",
            archive="bearssl_0.6+dfsg.1.orig.tar.xz", source_dir="bearssl-0.6", marker="inc/bearssl.h",
            tar_only=True,
            sha256={
                "bearssl_0.6+dfsg.1.orig.tar.xz":
                    "102a625bd8f6155260867a50c508df8d8c3f796985dd744df1a68e5cd1a79004",
            },
        ),
    ),
)
