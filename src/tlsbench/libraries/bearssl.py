"""BearSSL: selected by name (TLS 1.2 only, no malloc); host, and firmware on request."""

from __future__ import annotations

from tlsbench.libraries.record import Library, Version

LIBRARY = Library(
    name="bearssl",
    display="BearSSL",
    versions=(Version("bearssl", "0.6", "bearssl", "BearSSL 0.6: no malloc; TLS 1.2 only; no SHA-3, PSS, Ed25519"),),
    default="0.6",
    in_default_plan=False,
    host_build="source",
    firmware="on-request",
    size_archives=("libtb_bearssl.a",),
)
