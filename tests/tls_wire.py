"""Reading a TLS ClientHello off the wire in tests (shared by the test files that check its extensions)."""

from __future__ import annotations


def client_hello_extensions(hello: bytes) -> dict[int, bytes]:
    """A ClientHello handshake message's extensions: type -> body."""
    i = 4 + 2 + 32
    i += 1 + hello[i]  # legacy_session_id
    i += 2 + int.from_bytes(hello[i:i + 2], "big")  # cipher suites
    i += 1 + hello[i]  # compression methods
    end = i + 2 + int.from_bytes(hello[i:i + 2], "big")
    i += 2
    out = {}
    while i < end:
        kind, size = int.from_bytes(hello[i:i + 2], "big"), int.from_bytes(hello[i + 2:i + 4], "big")
        out[kind] = hello[i + 4:i + 4 + size]
        i += 4 + size
    return out
