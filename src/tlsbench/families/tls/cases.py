"""TLS handshakes through the agent: a request for one configuration and
its per-repeat measurements."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from tlsbench.engine import agent
from tlsbench.engine.protocol import Record, encode_request
from tlsbench.families.tls.certs import HOSTS, Chain

PEM = serialization.Encoding.PEM


RESUMPTIONS = ("none", "session-id", "ticket", "psk-only")


@dataclass(frozen=True)
class TlsCase:
    version: int  # 12 or 13
    suite: str  # IANA name
    group: str | None
    chain: Chain | None  # None for PSK suites
    client_chain: Chain | None = None  # mutual authentication
    client_share: str | None = None  # TLS 1.3: the client's first key share (HelloRetryRequest)
    resume: str = "none"  # one of RESUMPTIONS
    early: bool = False  # the request as 0-RTT early data
    psk: bytes | None = None  # TLS 1.2 PSK suites: the shared key (identity "client.tlsbench.test")
    bulk: int = 0  # bytes client -> server after the response
    max_frag: int = 0  # the maximum fragment length the client asks for (0: none)
    verify_peer: bool = True  # False: the client does not verify the server's chain or name


def _pem_key(issued) -> bytes:
    return issued.key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def case_fields(case: TlsCase) -> dict[str, object]:
    """The request fields that describe a TLS configuration (both transports)."""
    f: dict[str, object] = {"version": case.version, "suite": case.suite, "group": case.group,
                            "name": HOSTS["server"]}
    if case.chain is not None:
        f.update(chain=b"".join(c.public_bytes(PEM) for c in case.chain.sent), key=_pem_key(case.chain.leaf),
                 trust=case.chain.root.cert.public_bytes(PEM))
    if case.client_chain is not None:
        f.update(client_chain=b"".join(c.public_bytes(PEM) for c in case.client_chain.sent),
                 client_key=_pem_key(case.client_chain.leaf))
    if case.psk is not None:
        f.update(psk=case.psk, psk_identity=HOSTS["client"])
    if case.client_share is not None:
        f["client_share"] = case.client_share
    if case.resume != "none":
        f["resume"] = case.resume
    if case.early:
        f.update(early=1, max_early=16384)
    if case.bulk:
        f["bulk"] = case.bulk
    if case.max_frag:
        f["max_frag"] = case.max_frag
    if not case.verify_peer:
        f["verify"] = 0
    return f


def handshake_request(case: TlsCase, repeats: int = 10, warmup: int = 1, transcript: bool = False,
                      place: dict[str, int] | None = None, batch: int = 1, memory_passes: int = 1) -> str:
    """place: stack_at / heap_shift of the timed connections (engine.layout), or None.
    batch: timed connections summed into each reported sample (1: the field is not sent).
    memory_passes: counted connections of the memory pass, each reported (1: the field is not sent)."""
    return encode_request("handshake", **case_fields(case), repeats=repeats, warmup=warmup,
                          transcript=1 if transcript else None, batch=batch if batch > 1 else None,
                          memory_passes=memory_passes if memory_passes > 1 else None, **(place or {}))


@dataclass
class HandshakeResult:
    status: str
    message: str
    samples: list[Record]
    wire: dict[str, bytes]  # "client" / "server" -> every byte it sent (the counted connection of `memory`)
    stack: Record | None = None  # per-side peak stack (one extra connection)
    memory: Record | None = None  # per-side heap (one extra connection, counted; the timed ones are not)


def run_handshakes(path: Path, case: TlsCase, repeats: int = 10, warmup: int = 1, transcript: bool = False,
                   timeout: float = 120) -> HandshakeResult:
    res = agent.call(path, [handshake_request(case, repeats, warmup, transcript)], timeout,
                     f"handshake {case.version} {case.suite}")
    resp = res.responses[0]
    wire = {str(r["from"]): bytes(r["data"]) for r in resp.of_type("wire")}
    stack = resp.of_type("tls_stack")
    memory = resp.of_type("tls_memory")
    return HandshakeResult(resp.status, resp.message, resp.of_type("tls"), wire, stack[0] if stack else None,
                           memory[0] if memory else None)


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
