"""wolfSSL: built from its pinned source tree, for the host and as firmware."""

from __future__ import annotations

from tlsbench.libraries.record import Library, Version

LIBRARY = Library(
    name="wolfssl",
    display="wolfSSL",
    versions=(
        Version("wolfssl", "5.7", "wolfssl", "wolfSSL 5.7.2"),
        Version("wolfssl", "5.9", "wolfssl@5.9", "wolfSSL 5.9.2: ML-KEM, ML-DSA, SLH-DSA", ("kem", "pqsig")),
    ),
    default="5.9",
    host_build="source",
    firmware="default",
    default_profile="c",
    size_archives=("libtb_wolfssl.a",),
    size_unsupported={"aes-128": "no public single-block AES call in this configuration"
                                 " (needs WOLFSSL_AES_DIRECT or HAVE_AES_ECB)"},
    config_mechanism="wolfssl-user-settings",
    # profile "hw": wolfCrypt's crypto callbacks to agent/adapters/wolfssl/hw.c (HMAC through the hash)
    hw_routes={
        "sha1": ("sha1",), "sha256": ("sha256",), "hmac-sha1": ("sha1",), "hmac-sha256": ("sha256",),
        "aes-128-gcm": ("aes-gcm",), "aes-256-gcm": ("aes-gcm",),
        "aes-128-cbc-hmac-sha1": ("aes-cbc", "sha1"), "aes-128-cbc-hmac-sha256": ("aes-cbc", "sha256"),
    },
)
