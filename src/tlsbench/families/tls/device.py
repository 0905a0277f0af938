"""One side of a handshake on the device, its peer on the host.

The firmware runs only its role (``tls-device side=client|server``); the
peer is the host agent of the same library, over loopback TCP
(``tls-server`` / ``tls-client`` as in tls_net). This module is the relay
between them: it starts the peer and opens the target's device link (QEMU,
or the serial port of a board already running its firmware:
targets/devicelink.py), sends the request, and while the
firmware answers it carries the TLS bytes: a ``tx`` record goes to the
peer's socket, a ``want`` record is answered with one ``rx data=<hex>
crc=<crc32>`` line: the peer's next TLS record (in pieces of at most the
``max`` the firmware asked for), ``open`` / ``close`` open and close the
peer's connection.

The device's own certificate chain and key (a server's; a client's in mutual
authentication) are longer than a one-side image's request line: they go
first, in ``upload`` lines of at most UPLOAD_CHUNK bytes each, and the
request names them ``@``. The firmware holds them on its heap for the
request and says how much in its ``tls_harness`` record, with its rx line:
the harness's heap beside the side, stored as ``device_harness_heap_bytes``.

The figures are the device's only (its instructions, heap and stack), with
bytes, records and flights counted by the device as in the in-memory
handshake. The host peer's own records are not stored: its CPU time is the
host's, not the device's.
"""

from __future__ import annotations

import io
import os
import select
import socket
import subprocess
import time
import zlib
from dataclasses import dataclass, field

from tlsbench import paths
from tlsbench.engine.case import Case, Measured, Sample
from tlsbench.engine.protocol import Record, encode_request, parse_line
from tlsbench.errors import AgentError, ProtocolError, TlsbenchError
from tlsbench.families.primitive import keys
from tlsbench.families.tls import runner as tls_runner
from tlsbench.families.tls.cases import TlsCase, case_fields
from tlsbench.families.tls.names import BASELINE, TlsVariant
from tlsbench.families.tls.net import AgentServer
from tlsbench.plans.model import Plan
from tlsbench.targets import target as targets
from tlsbench.targets.base import DeviceLink
from tlsbench.targets.bridge import Ended, Session, clock_request
from tlsbench.targets.devicelink import BAUD  # noqa: F401  the firmware's USART rate, as tests read it
from tlsbench.targets.serialport import BoardReset

PEER_WAIT_S = 20.0  # a peer silent this long has failed
# the fields one side needs: a client the root it trusts, a server its chain and key
_NOT_FOR = {"client": ("chain", "key"), "server": ("trust",)}
# the side's own chain and key: uploaded before the request (the request line is sized for the rest)
_OWN = {"client": ("client_chain", "client_key"), "server": ("chain", "key")}
# bytes per upload line: its hex and "upload name=client_chain data=" fit the smallest one-side request
# line of any board (2,047 characters: nucleo-f103rb, nucleo-l073rz)
UPLOAD_CHUNK = 960


def _peer_env() -> dict[str, str]:
    """The host peer draws its randomness from a fixed test stream, as the
    device does, and reads the device's frozen clock (a TLS 1.2 server random
    carries the time, which its signature covers): the device's counts, which
    depend on the peer's key share and signature, are then the same in every
    run."""
    return {"TLSBENCH_FIXED_SEED": "1", keys.HOST_CLOCK_ENV: clock_request().removeprefix("clock unix=")}


@dataclass
class DeviceResult:
    status: str
    message: str
    records: list[Record] = field(default_factory=list)  # the firmware's, relay traffic aside
    transcript: str = ""  # every line the firmware wrote, then what the host peer said
    # per connection, in order: (bytes the client sent, bytes the server sent), as relayed
    connections: list[tuple[bytes, bytes]] = field(default_factory=list)

    def of_type(self, rtype: str) -> list[Record]:
        return [r for r in self.records if r.type == rtype]


def device_fields(case: TlsCase, side: str) -> dict[str, object]:
    """The request fields of the device's side (what the other side alone needs is left out)."""
    f = case_fields(case)
    mutual = case.client_chain is not None
    for key in _NOT_FOR[side]:
        if not (mutual and key == "trust"):  # a server that verifies a client certificate needs the root
            f.pop(key, None)
    if side == "server":
        f.pop("client_chain", None)
        f.pop("client_key", None)
    return f


def uploads(fields: dict[str, object], side: str) -> tuple[dict[str, object], list[str]]:
    """The request's fields with the side's own chain and key named "@", and
    the upload lines that deliver them first."""
    out, lines = dict(fields), []
    for name in _OWN[side]:
        data = out.get(name)
        if not isinstance(data, (bytes, bytearray)) or not data:
            continue
        out[name] = "@"
        lines.append(encode_request("upload", name=name, size=len(data)))
        lines += [encode_request("upload", name=name, data=data[i:i + UPLOAD_CHUNK])
                  for i in range(0, len(data), UPLOAD_CHUNK)]
    return out, lines


def peer_connections(case: TlsCase, warmup: int, repeats: int, stack: bool) -> int:
    """Connections the peer sees: the stack pass is one more; a resumed
    handshake is preceded by the full one it resumes."""
    return (warmup + repeats + (1 if stack else 0)) * (2 if case.resume != "none" else 1)


def peer_wait_ms(timeout: float) -> int:
    """How long the host peer waits for the device between two flights: the
    device's whole timeout (a handshake step under the cycle model on a loaded
    machine can take longer than a host's 20 s), within the agent's limit."""
    return max(1, min(600_000, int(timeout * 1000)))


class _Peer:
    """The host side: a server agent the relay connects to, or a client
    agent that connects to the relay's own loopback listener."""

    def __init__(self, library: str, case: TlsCase, side: str, warmup: int, repeats: int, stack: bool,
                 wait_ms: int = 20000):
        path = paths.agent_path(library)
        if not path.exists():
            raise AgentError(f"host agent {path} is not built (run: tlsbench build)")
        self.server: AgentServer | None = None
        self.client: subprocess.Popen | None = None
        self.listener: socket.socket | None = None
        # the emulated device may compute longer than a host peer's default wait between two flights
        fields = {**case_fields(case), "wait_ms": wait_ms}
        if side == "client":  # the host serves
            # every connection is the device's to measure: no memory pass of the peer's own; the frozen
            # clock in the server's environment only (device sessions run side by side under --jobs)
            self.server = AgentServer(path, {**fields, "memory": 0},
                                      peer_connections(case, warmup, repeats, stack), env=_peer_env())
            refused = self.server.wait_listening()
            if refused is not None:
                raise _Refused(str(refused["status"]), f"host server: {refused.get('msg', '')}")
        else:  # the host connects, once per connection the device serves
            self.listener = socket.socket()
            self.listener.bind(("127.0.0.1", 0))  # loopback only
            self.listener.listen(4)
            port = self.listener.getsockname()[1]
            request = encode_request("tls-client", **fields, port=port, warmup=0, memory=0,
                                     repeats=warmup + repeats + (1 if stack else 0))
            self.client = subprocess.Popen([str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, start_new_session=True,
                                           env={**os.environ, **_peer_env()})
            assert self.client.stdin is not None
            self.client.stdin.write((request + "\n").encode())
            self.client.stdin.close()
            self.client.stdin = None  # closed: the agent ends after this one request

    def connect(self) -> socket.socket:
        if self.server is not None:
            assert self.server.port is not None
            s = socket.create_connection(("127.0.0.1", self.server.port), timeout=PEER_WAIT_S)
        else:
            assert self.listener is not None
            self.listener.settimeout(PEER_WAIT_S)
            s, _ = self.listener.accept()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def finish(self, ok: bool) -> str:
        """Stops the peer; returns what it said when it failed."""
        if self.server is not None:  # after a failure it may still wait for connections: a short grace
            _recs, end = self.server.finish(timeout=30 if ok else 3)
            return "" if end["status"] == "ok" else f"host server: {end.get('msg', end['status'])}"
        assert self.client is not None and self.listener is not None
        self.listener.close()
        if not ok and self.client.poll() is None:
            os.killpg(self.client.pid, 9)
        try:
            out, _err = self.client.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.client.pid, 9)
            out, _err = self.client.communicate()
        ends = [ln for ln in out.decode("latin-1").splitlines() if ln.startswith("tb1 end ")]
        if not ends:
            return "host client ended without an answer"
        end = parse_line(ends[-1])
        return "" if end["status"] == "ok" else f"host client: {end.get('msg', end['status'])}"


class _Refused(Exception):
    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def _rx_line(data: bytes) -> bytes:
    return f"rx data={data.hex()} crc={zlib.crc32(data):08x}\n".encode()


def run(target: targets.Target, library: str, case: TlsCase, side: str = "client", repeats: int = 3,
        warmup: int = 1, timeout: float = 300, stack: bool = True, heap_limit: int | None = None) -> DeviceResult:
    """Runs warmup + repeats connections with `side` on the board (emulated,
    or behind a serial port) and the other side on the host; the firmware's
    records (relay traffic aside).
    heap_limit: the minimum-RAM probe instead (repeats and warmup 0): one
    connection with the device side's heap capped, answered by a tls_cap
    record; the host peer is never capped."""
    try:
        link = target.device_link(library, timeout)
    except TlsbenchError as e:  # no image, or a port that does not open
        return DeviceResult("error", str(e))
    if link is None:
        return DeviceResult("unsupported", "one side on the device runs on a qemu: or serial: target")
    try:
        peer = _Peer(library, case, side, warmup, repeats, stack, peer_wait_ms(timeout))
    except _Refused as e:
        link.close()
        return DeviceResult(e.status, e.message)
    cap = {} if heap_limit is None else {"heap_limit": heap_limit, "heap_limit_side": side}
    fields, upload_lines = uploads(device_fields(case, side), side)
    request = encode_request("tls-device", side=side, **fields, repeats=repeats, warmup=warmup,
                             stack=1 if stack else 0, **cap)
    result = _relay(link, library, peer, upload_lines, request, side)
    peer_said = peer.finish(result.status == "ok")
    link.close()
    if peer_said:
        result.transcript += f"\n--- host peer ---\n{peer_said}\n"
        if result.status == "ok":
            result.status, result.message = "error", peer_said
        elif peer_said not in result.message:
            result.message = f"{result.message}; {peer_said}"
    return result


def _relay(link: DeviceLink, library: str, peer: _Peer, upload_lines: list[str], request: str,
           side: str) -> DeviceResult:
    lines, send = link.lines, link.send
    session = Session(lines, send, out=io.StringIO(), watch_resets=link.resets)
    shown: list[str] = []
    records: list[Record] = []
    conns: list[tuple[bytes, bytes]] = []
    sock: socket.socket | None = None
    inbound: _Inbound | None = None
    sent = got = b""
    try:
        link.greet(session, library)
        for line in upload_lines:
            end = session.ask(line, forward=False)[-1]
            if end["status"] != "ok":
                return DeviceResult(str(end["status"]), f"upload: {end.get('msg', '')}", [end], "\n".join(shown))
        send((request + "\n").encode())
        for raw in lines:
            line = raw.rstrip("\r\n")
            if link.resets:  # a USART can deliver a stray 0x00 or 0xff as the board resets
                line = line.lstrip("\x00\xff")
                if not line:
                    raise BoardReset
            if not line:
                continue
            rec = parse_line(line)
            if rec.type not in ("tx", "want"):
                shown.append(line)
            if rec.type == "open":
                sock, sent, got = peer.connect(), b"", b""
                inbound = _Inbound(sock)
            elif rec.type == "tx":
                data = bytes(rec["data"])  # type: ignore[arg-type]
                if sock is None:
                    raise AgentError("the firmware sent TLS bytes outside a connection")
                sock.sendall(data)
                sent += data
            elif rec.type == "want":
                if inbound is None:
                    raise AgentError("the firmware waited for its peer outside a connection")
                chunk = inbound.next_piece(int(rec["max"]))  # type: ignore[arg-type]
                got += chunk
                send(_rx_line(chunk) if chunk else b"rx eof=1\n")
            elif rec.type == "close":
                if sock is not None:
                    sock.close()
                sock = inbound = None
                conns.append((sent, got) if side == "client" else (got, sent))
            elif rec.type == "fault":
                raise AgentError("firmware fault: " + " ".join(f"{k}={v}" for k, v in rec.fields.items()))
            else:
                records.append(rec)
                if rec.type == "end":
                    break
        else:
            raise Ended
    except Ended:
        return DeviceResult("error", "the firmware ended before its answer (killed after the timeout, or it "
                                     "crashed)", records, "\n".join(shown))
    except BoardReset:
        return DeviceResult("error", "the board restarted during the handshake: its answer is lost", records,
                            "\n".join(shown))
    except (TlsbenchError, ProtocolError, OSError) as e:
        return DeviceResult("error", str(e), records, "\n".join(shown))
    finally:
        if sock is not None:
            sock.close()
    end = records[-1]
    return DeviceResult(str(end["status"]), str(end.get("msg", "") or ""), records, "\n".join(shown), conns)


class _Inbound:
    """What the peer sent, handed to the device one TLS record at a time (a
    record longer than the device's chunk in chunk-sized pieces): the pieces
    are the same in every run, whatever TCP did to the bytes, so the device
    makes the same calls and its counts repeat exactly."""

    def __init__(self, sock: socket.socket):
        self.sock, self.buf, self.left, self.eof = sock, b"", 0, False

    def _fill(self, n: int) -> None:
        deadline = time.monotonic() + PEER_WAIT_S
        while len(self.buf) < n and not self.eof:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise AgentError(f"the host peer sent nothing for {PEER_WAIT_S:g} s")
            ready, _, _ = select.select([self.sock], [], [], wait)
            if not ready:
                continue
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            self.buf += chunk
            self.eof = not chunk

    def next_piece(self, limit: int) -> bytes:
        """The next piece (b"" once the peer closed and everything went)."""
        if self.left == 0:
            self._fill(5)
            if len(self.buf) < 5:  # closed (between records, or in a header: hand over what there is)
                piece, self.buf = self.buf, b""
                return piece
            self.left = 5 + int.from_bytes(self.buf[3:5], "big")
        want = min(self.left, limit)
        self._fill(want)
        piece, self.buf = self.buf[:want], self.buf[want:]
        self.left -= len(piece)
        return piece


# ---- a plan's device-side cases ----

def is_device_case(case: Case) -> bool:
    return case.alg != BASELINE and bool(TlsVariant.parse(case.op).device)


def measure(target: targets.Target, case: Case, keys: dict, plan: Plan, rnd: int, first: int, n: int) -> Measured:
    """One round of a device-side case (n connections, numbered from first):
    the side's figures per connection, its stack from one more connection."""
    m = plan.method
    v = TlsVariant.parse(case.op)
    if v.transport != "memory":
        return Measured("unsupported", "one side on the device is for handshakes relayed by the host, not tcp",
                        None, "", [], [])
    tc = tls_runner.tls_case(case.alg, v, keys, 0)
    r = run(target, case.library, tc, v.device, repeats=n, warmup=m.warmup, timeout=m.timeout_s)
    if r.status == "unsupported":
        return Measured("unsupported", r.message or "not supported", None, r.transcript, [], [])
    if r.status != "ok":
        return Measured("failed", f"handshake failed: {r.message}", None, r.transcript, [], [])
    handshakes = r.of_type("tls")
    if len(handshakes) != n:
        return Measured("failed", f"the device sent {len(handshakes)} handshakes, {n} were asked for", None,
                        r.transcript, [], [])
    # the device counts its heap in the same connections it times (unlike the in-image
    # handshake, whose timed connections count nothing): its figures come from one record
    per_connection = {**tls_runner.MEMORY_METRICS, **tls_runner.HEAP_METRICS}
    samples = [Sample.one(first + int(rec["i"]), metric, int(rec[f]))  # type: ignore[arg-type]
               for rec in handshakes for f, metric in per_connection.items() if f in rec.fields]
    for rec in r.of_type("tls_stack"):  # one untimed pass per round
        samples += [Sample.one(rnd, metric, int(rec[f]))  # type: ignore[arg-type]
                    for f, metric in tls_runner.STACK_METRICS.items() if f in rec.fields]
    samples += harness_samples(r, rnd)
    return Measured("ok", "", 1, r.transcript, samples, [])


def harness_samples(r: DeviceResult, rnd: int) -> list[Sample]:
    """The harness's heap beside the side (rx line and uploads), once per round."""
    return [Sample.one(rnd, "device_harness_heap_bytes", int(rec["rx_line"]) + int(rec["upload"]))  # type: ignore[arg-type]
            for rec in r.of_type("tls_harness")]


__all__ = ["UPLOAD_CHUNK", "DeviceResult", "device_fields", "harness_samples", "is_device_case", "measure",
           "peer_connections", "peer_wait_ms", "run", "uploads"]
