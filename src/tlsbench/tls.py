"""TLS handshakes through the agent (the start of issue 3): a request for
one configuration and its per-repeat measurements."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from . import agent
from .certs import HOSTS, Chain
from .protocol import Record, encode_request

PEM = serialization.Encoding.PEM


@dataclass(frozen=True)
class TlsCase:
    version: int  # 12 or 13
    suite: str  # IANA name
    group: str | None
    chain: Chain


def handshake_request(case: TlsCase, repeats: int = 10, warmup: int = 1, transcript: bool = False) -> str:
    ch = case.chain
    key = ch.leaf.key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return encode_request(
        "handshake", version=case.version, suite=case.suite, group=case.group, name=HOSTS["server"],
        chain=b"".join(c.public_bytes(PEM) for c in ch.sent), key=key, trust=ch.root.cert.public_bytes(PEM),
        repeats=repeats, warmup=warmup, transcript=1 if transcript else None,
    )


@dataclass
class HandshakeResult:
    status: str
    message: str
    samples: list[Record]
    wire: dict[str, bytes]  # "client" / "server" -> every byte it sent (first measured repeat)


def run_handshakes(path: Path, case: TlsCase, repeats: int = 10, warmup: int = 1, transcript: bool = False,
                   timeout: float = 120) -> HandshakeResult:
    res = agent.call(path, [handshake_request(case, repeats, warmup, transcript)], timeout,
                     f"handshake {case.version} {case.suite}")
    resp = res.responses[0]
    wire = {str(r["from"]): bytes(r["data"]) for r in resp.of_type("wire")}
    return HandshakeResult(resp.status, resp.message, resp.of_type("tls"), wire)


def parse_records(data: bytes) -> list[tuple[int, bytes]]:
    """TLS records (content type, fragment) of a byte stream, independently of
    the agent's counter; a truncated record is an error."""
    out = []
    i = 0
    while i < len(data):
        if i + 5 > len(data):
            raise ValueError("truncated record header")
        length = int.from_bytes(data[i + 3 : i + 5], "big")
        if i + 5 + length > len(data):
            raise ValueError("truncated record")
        out.append((data[i], data[i + 5 : i + 5 + length]))
        i += 5 + length
    return out
