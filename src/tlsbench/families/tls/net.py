"""TLS over real loopback sockets: the server and the client in separate
processes (the classic method, the kernel in the path). The server is a
tlsbench agent of any library, or a tool nobody here wrote (`openssl
s_server`); the client is an agent. Each process reports its own side; the
two are joined by connection number."""

from __future__ import annotations

import functools
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from tlsbench.engine import agent, timed_cpu
from tlsbench.engine.protocol import Record, encode_request, parse_line
from tlsbench.errors import AgentError
from tlsbench.families.tls.cases import TlsCase, case_fields
from tlsbench.families.tls.catalog import EXTERNAL_CLIENTS, EXTERNAL_SERVERS
from tlsbench.families.tls.certs import HOSTS

STARTUP_S = 15.0


@dataclass
class NetResult:
    status: str
    message: str
    client: list[Record] = field(default_factory=list)  # measured connections, client side
    server: dict[int, Record] = field(default_factory=dict)  # by connection number
    capacity: Record | None = None
    # capacity: each client's windows, by index (the same stretch of time in every client)
    windows: list[dict[int, tuple[int, int]]] = field(default_factory=list)
    transcript: str = ""  # capacity: the clients' records
    # the memory pass: one more connection per side, counted (the timed ones count nothing)
    client_memory: Record | None = None
    server_memory: Record | None = None
    # per side: the accounting the timed connections reached (timed_heap_calls; 0: they ran clean)
    process_heap: dict[str, Record] = field(default_factory=dict)

    def pairs(self) -> list[tuple[Record, Record | None]]:
        return [(c, self.server.get(int(c["i"]))) for c in self.client]


class AgentServer:
    """A server agent: started with its request, it prints the port it
    listens on (127.0.0.1 only), serves, and ends its response."""

    def __init__(self, path: Path, fields: dict[str, object], connections: int, workers: int = 1,
                 warmup: int = 0, env: dict[str, str] | None = None):
        if not path.exists():
            raise AgentError(f"agent {path} is not built (run: tlsbench build)")
        # warmup: the server counts the connection after the warm-ups (its memory pass)
        request = encode_request("tls-server", **fields, repeats=connections, workers=workers,
                                 warmup=warmup if connections else None)
        # its output goes to a file, never a pipe: a server writes a record per connection while nobody
        # reads, and a full pipe (64 KiB, about 200 connections) would stop it mid-handshake
        self.out = tempfile.TemporaryFile()
        # env: added to this agent's environment only (sessions run side by side: never os.environ)
        self.proc = subprocess.Popen([str(path)], stdin=subprocess.PIPE, stdout=self.out,
                                     stderr=subprocess.DEVNULL, start_new_session=True,
                                     env={**os.environ, **env} if env else None)
        assert self.proc.stdin is not None
        self.proc.stdin.write((request + "\n").encode())
        self.proc.stdin.close()
        self.proc.stdin = None  # closed: the agent ends after this one request
        self.port: int | None = None

    def wait_listening(self, timeout: float = STARTUP_S) -> Record | None:
        """The port, or the end record if the server refused to start."""
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            exited = self.proc.poll() is not None
            text = self._output()
            for line in text[seen:text.rfind("\n") + 1].splitlines():
                rec = parse_line(line)
                if rec.type == "listening":
                    self.port = int(rec["port"])
                    return None
                if rec.type == "end":
                    return rec
            seen = text.rfind("\n") + 1
            if exited:
                break
            time.sleep(0.002)
        self.kill()
        raise AgentError(f"server agent did not start listening within {timeout:g} s")

    def _output(self) -> str:
        self.out.seek(0)
        return self.out.read().decode("latin-1")

    def finish(self, timeout: float) -> tuple[list[Record], Record]:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            self.proc.wait()
            recs = [parse_line(x) for x in self._output().splitlines() if x.strip()]
            hung = Record("end", {"status": "error", "msg": f"server hung, killed after {timeout:g} s"})
            return [r for r in recs if r.type != "end"], hung
        recs = [parse_line(x) for x in self._output().splitlines() if x.strip()]
        self.out.close()
        ends = [r for r in recs if r.type == "end"]
        end = ends[0] if ends else Record("end", {"status": "error",
                                                  "msg": f"server agent died ({self.proc.returncode})"})
        return [r for r in recs if r.type != "end"], end

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_connectable(port: int, proc: subprocess.Popen, timeout: float = STARTUP_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AgentError(f"the peer exited before listening (code {proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AgentError(f"the peer did not listen on 127.0.0.1:{port} within {timeout:g} s")


class OpenSSLServer:
    """`openssl s_server` on 127.0.0.1 as an echo server (-rev): a server
    nobody here wrote. It serves `connections` connections, then exits.
    mode: another s_server mode (-www, for a client that sends nothing)."""

    def __init__(self, case: TlsCase, connections: int, mode: str = "-rev"):
        exe = shutil.which("openssl")
        if exe is None:
            raise PeerUnsupported("openssl (the command) is not installed")
        if case.early:
            raise PeerUnsupported("openssl s_server cannot echo (-rev) and accept early data together")
        self.dir = tempfile.TemporaryDirectory(prefix="tlsbench-peer-")
        d = Path(self.dir.name)
        self.port = free_port()
        args = [exe, "s_server", "-accept", f"127.0.0.1:{self.port}", "-naccept", str(connections), mode, "-quiet"]
        args += _credentials(case, d)
        args += ["-tls1_3"] if case.version == 13 else ["-tls1_2"]
        if case.version == 13:
            args += ["-ciphersuites", case.suite]
        else:
            anon = "_anon_" in case.suite
            args += ["-cipher", _openssl_name(case.suite) + (":@SECLEVEL=0" if anon else "")]
        if case.group:
            groups = [case.group]
            if case.version == 12 and case.client_chain is not None and not case.group.startswith("ffdhe"):
                # s_server checks the client certificate's curve against its groups
                # (tls12_check_peer_sigalg); with server preference the pinned one is still used
                groups += [g for g in ("p256", "p384") if g != case.group]
                args += ["-serverpref"]
            names = {"x25519": "X25519", "x448": "X448", "p256": "P-256", "p384": "P-384"}
            args += ["-groups", ":".join(names.get(g, g) for g in groups)]
        # resumption as the case asks: none, the session cache (ID), or one ticket
        args += {"none": ["-no_ticket", "-num_tickets", "0", "-no_cache"], "session-id": ["-no_ticket"],
                 "ticket": ["-num_tickets", "1"], "psk-only": ["-allow_no_dhe_kex", "-num_tickets", "1"]}[case.resume]
        # s_server logs every connection on stderr: to a file, which never fills as an unread pipe does
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.err, start_new_session=True)
        try:
            wait_connectable(self.port, self.proc)
        except AgentError:
            err = self.close()
            # the installed openssl lacks the group (OpenSSL 3.0 has no ML-KEM): the peer's gap, said so
            lacking = re.search(r"group '([^']+)' cannot be set", err)
            if lacking:
                raise PeerUnsupported(f"openssl s_server has no group {lacking.group(1)}") from None
            raise

    def close(self) -> str:
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.dir.cleanup()
        self.err.seek(0)
        err = self.err.read()
        self.err.close()
        return err.decode("utf-8", "replace")


class PeerUnsupported(AgentError):
    """The external peer cannot do what the case asks."""


def _credentials(case: TlsCase, d: Path) -> list[str]:
    """s_server arguments for the server's certificate chain (or PSK, or
    nothing) and, in mutual authentication, the client's trust anchor."""
    pem = serialization.Encoding.PEM
    if case.psk is not None:
        return ["-nocert", "-psk", case.psk.hex(), "-psk_identity", HOSTS["client"]]
    if case.chain is None:
        return ["-nocert"]
    files = case.chain.write(d)
    leaf, extra = d / "leaf.pem", d / "extra.pem"
    leaf.write_bytes(case.chain.leaf.cert.public_bytes(pem))
    args = ["-cert", str(leaf), "-key", str(files["key"])]
    if case.chain.intermediate is not None:
        extra.write_bytes(b"".join(c.public_bytes(pem) for c in case.chain.sent[1:]))
        args += ["-cert_chain", str(extra)]
    if case.client_chain is not None:
        args += ["-Verify", "3", "-CAfile", str(files["root"])]  # a client certificate is required
    return args


@functools.cache
def _openssl_names() -> dict[str, str]:
    """The installed openssl's suite names by IANA name, asked once per process (a tool case asks for every
    connection: an `openssl` process of its own each time, about 5 ms)."""
    out = subprocess.run(["openssl", "ciphers", "-stdname", "ALL:@SECLEVEL=0"], capture_output=True, text=True,
                         check=False).stdout
    names = {}
    for line in out.splitlines():  # "IANA - NAME  TLSv1.2 Kx=... Mac=...": the name alone (the rest is a
        parts = line.split(" - ")  # cipher string too, "TLSv1.2" naming every TLS 1.2 suite)
        if len(parts) >= 2 and parts[1].split():
            names.setdefault(parts[0].strip(), parts[1].split()[0])
    return names


def _openssl_name(iana: str) -> str:
    name = _openssl_names().get(iana)
    if name is None:
        raise PeerUnsupported(f"openssl s_server has no suite {iana}")
    return name


def per_measured(case: TlsCase) -> int:
    """Connections per measured one: a resumed handshake follows the full one it resumes."""
    return 2 if case.resume != "none" else 1


def connections_for(case: TlsCase, warmup: int, repeats: int) -> int:
    """Connections the server sees: the warm-ups, the memory pass (one more,
    counted, untimed) and the measured ones, each resumed one after the full
    handshake it resumes."""
    return (warmup + 1 + repeats) * per_measured(case)


def _process_heap(side: str, records: list[Record]) -> dict[str, Record]:
    found = [r for r in records if r.type == "process_heap"]
    return {side: found[-1]} if found else {}


def run_over_tcp(client: Path, server: Path | str, case: TlsCase, repeats: int = 10, warmup: int = 1,
                 timeout: float = 120, plain: bool = False, via_port=None) -> NetResult:
    """One configuration over loopback: `server` is an agent path or the name
    of an external server (EXTERNAL_SERVERS). `via_port` (tests) maps the
    server's port to the one the client should use (a counting relay)."""
    fields = case_fields(case) if not plain else {"name": HOSTS["server"]}
    if plain:
        fields["plain"] = 1
    n = connections_for(case, warmup, repeats)
    if isinstance(server, str):
        if server not in EXTERNAL_SERVERS:
            raise AgentError(f"unknown external server {server!r}; known: {', '.join(EXTERNAL_SERVERS)}")
        try:
            peer = OpenSSLServer(case, n + 1)  # + the readiness probe's connection
        except PeerUnsupported as e:
            return NetResult("unsupported", str(e))
        except AgentError as e:
            return NetResult("error", str(e))
        port, foreign = peer.port, True
    else:
        peer = AgentServer(server, fields, n, warmup=warmup)
        refused = peer.wait_listening()
        if refused is not None:  # e.g. the server library lacks the suite
            return NetResult(str(refused["status"]), f"server: {refused.get('msg', '')}")
        assert peer.port is not None
        port, foreign = peer.port, False
    if via_port is not None:
        port = via_port(port)
    request = encode_request("tls-client", **fields, port=port, repeats=repeats, warmup=warmup,
                             foreign=1 if foreign else None)
    try:
        res = agent.call(client, [request], timeout, f"tls-client {case.suite}")
        resp = res.responses[0]
        status, message, records = resp.status, resp.message, resp.records
    except agent.AgentCallError as e:
        status, message, records = "error", str(e), []
    server_memory = None
    process_heap = _process_heap("client", records)
    # a client that refused its configuration (e.g. a group its library lacks) never connected: the
    # server would only wait out its accept timeout, so it is stopped and the client's reason stands
    refused_client = status == "unsupported" and not any(r.type == "tls_side" for r in records)
    if isinstance(peer, AgentServer) and refused_client:
        peer.kill()
        peer.finish(timeout=10)
        return NetResult(status, f"client: {message}")
    if isinstance(peer, AgentServer):
        srv_records, srv_end = peer.finish(timeout=30)
        server_side = {int(r["i"]): r for r in srv_records if r.type == "tls_side"}
        server_memory = next((r for r in srv_records if r.type == "tls_side_memory"), None)
        process_heap.update(_process_heap("server", srv_records))
        if status == "ok" and srv_end["status"] != "ok":
            status, message = str(srv_end["status"]), f"server: {srv_end.get('msg', '')}"
        elif status != "ok" and srv_end["status"] != "ok":
            message = f"client: {message}; server: {srv_end.get('msg', '')}"
    else:
        err = peer.close()
        server_side = {}
        if status != "ok" and err.strip():
            message = f"{message}; openssl s_server: {err.strip().splitlines()[-1][:200]}"
    client_side = [r for r in records if r.type == "tls_side"]
    client_memory = next((r for r in records if r.type == "tls_side_memory"), None)
    return NetResult(status, message, client_side, server_side, client_memory=client_memory,
                     server_memory=server_memory, process_heap=process_heap)


def run_capacity(client: Path, server: Path, case: TlsCase, clients: int, seconds: float,
                 timeout: float = 120, window_ms: int = 0) -> NetResult:
    """Full transactions per second (connect, handshake, request, response,
    close) with `clients` client processes against `clients` server workers,
    on every CPU the run may use (the machine's throughput, not one CPU's)."""
    with timed_cpu.unconfined():
        return _capacity(client, server, case, clients, seconds, timeout, window_ms)


def _capacity(client: Path, server: Path, case: TlsCase, clients: int, seconds: float, timeout: float,
              window_ms: int) -> NetResult:
    fields = case_fields(case)
    peer = AgentServer(server, fields, 0, workers=clients)
    refused = peer.wait_listening()
    if refused is not None:
        return NetResult(str(refused["status"]), f"server: {refused.get('msg', '')}")
    request = encode_request("tls-client", **fields, port=peer.port, duration_ms=int(seconds * 1000),
                             window_ms=window_ms or None)
    procs = [subprocess.Popen([str(client)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, start_new_session=True) for _ in range(clients)]
    outs = []
    try:
        for p in procs:
            assert p.stdin is not None
            p.stdin.write((request + "\n").encode())
            p.stdin.close()
            p.stdin = None
        for p in procs:
            try:
                out, _ = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, _ = p.communicate()
            outs.append(out.decode("latin-1"))
    finally:
        peer.kill()
        peer.proc.communicate()
    total = fails = 0
    wall = 0
    errors = []
    windows = []
    for text in outs:
        recs = [parse_line(x) for x in text.splitlines() if x.strip()]
        windows.append({int(r["index"]): (int(r["transactions"]), int(r["wall_ns"]))
                        for r in recs if r.type == "capacity_window"})
        cap = [r for r in recs if r.type == "capacity"]
        if not cap:
            ends = [r for r in recs if r.type == "end"]
            errors.append(str(ends[0].get("msg", "")) if ends else "client died")
            continue
        total += int(cap[0]["transactions"])
        fails += int(cap[0]["failures"])
        wall = max(wall, int(cap[0]["wall_ns"]))
        if "error" in cap[0].fields:
            errors.append(str(cap[0]["error"]))
    if errors and total == 0:
        return NetResult("error", errors[0])
    rec = Record("capacity", {"transactions": total, "failures": fails, "wall_ns": wall,
                              "clients": clients, **({"error": errors[0]} if errors else {})})
    return NetResult("ok", "", capacity=rec, windows=windows, transcript="".join(outs))


def window_rates(windows: list[dict[int, tuple[int, int]]]) -> list[float]:
    """Transactions per second of each window every client reported, in index order: the sum of each
    client's transactions over its own time in it."""
    common = sorted(set.intersection(*(set(w) for w in windows))) if windows else []
    return [sum(w[k][0] * 1e9 / w[k][1] for w in windows) for k in common if all(w[k][1] > 0 for w in windows)]


def fastest_window_rate(windows: list[dict[int, tuple[int, int]]]) -> float | None:
    """Transactions per second of the fastest window every client reported; None when no window is
    common to all clients."""
    return max(window_rates(windows), default=None)


# ---- clients nobody here wrote, against a tlsbench server agent ----

REQUEST_LINE = b"q" * 63 + b"\n"  # what the agent's foreign-peer exchange expects
_GNUTLS_BULK = {"AES_128_GCM": "AES-128-GCM", "AES_256_GCM": "AES-256-GCM", "AES_128_CCM": "AES-128-CCM",
                "CHACHA20_POLY1305": "CHACHA20-POLY1305", "AES_128_CBC": "AES-128-CBC", "AES_256_CBC": "AES-256-CBC"}
_GNUTLS_GROUPS = {"x25519": "X25519", "x448": "X448", "p256": "SECP256R1", "p384": "SECP384R1",
                  "ffdhe2048": "FFDHE2048", "ffdhe3072": "FFDHE3072"}


def gnutls_priority(case: TlsCase) -> str:
    """A gnutls-cli priority string that offers exactly the case's suite."""
    body = case.suite.removeprefix("TLS_")
    kx, _, rest = body.partition("_WITH_") if case.version == 12 else ("", "", body)
    bulk = next((v for k, v in _GNUTLS_BULK.items() if rest.startswith(k)), None)
    if bulk is None:
        raise PeerUnsupported(f"gnutls-cli: no priority for {case.suite}")
    mac = "AEAD" if "GCM" in rest or "CCM" in rest or "CHACHA" in rest else (
        "SHA256" if rest.endswith("SHA256") else "SHA1")
    prio = f"NONE:+VERS-TLS1.{3 if case.version == 13 else 2}:+{bulk}:+{mac}:+COMP-NULL:+SIGN-ALL:+CTYPE-X509"
    if case.version == 12:
        prio += ":+" + kx.replace("_", "-").replace("ECDHE-PSK", "ECDHE-PSK")
    groups = [g for g in (case.client_share, case.group) if g]
    if case.version == 12 and case.group and not case.group.startswith("ffdhe"):
        groups += [g for g in ("p256", "p384") if g != case.group]  # the certificate curves it accepts
    missing = [g for g in groups if g not in _GNUTLS_GROUPS]
    if missing:  # the system's gnutls-cli (3.7) has no ML-KEM group
        raise PeerUnsupported(f"gnutls-cli: no group {missing[0]}")
    prio += "".join(f":+GROUP-{_GNUTLS_GROUPS[g]}" for g in groups) or ":+GROUP-ALL"
    if case.version == 13 and case.resume == "psk-only":
        prio += ":+PSK"
    return prio


def _tool_args(tool: str, case: TlsCase, port: int, d: Path, resume: str | None) -> list[str]:
    """The client tool's command line; resume is None, "save" or "use"."""
    pem = serialization.Encoding.PEM
    files: dict[str, Path] = {}
    if case.chain is not None:
        files["root"] = d / "root.pem"
        files["root"].write_bytes(case.chain.root.cert.public_bytes(pem))
    if case.client_chain is not None:
        files.update(case.client_chain.write(d))
    name = HOSTS["server"]
    if tool == "openssl-s_client":
        exe = shutil.which("openssl")
        if exe is None:
            raise PeerUnsupported("openssl (the command) is not installed")
        args = [exe, "s_client", "-connect", f"127.0.0.1:{port}", "-servername", name, "-quiet"]
        if case.chain is not None and case.verify_peer:
            args += ["-CAfile", str(files["root"]), "-verify_return_error", "-verify_hostname", name]
        if case.psk is not None:
            args += ["-psk", case.psk.hex(), "-psk_identity", HOSTS["client"]]
        if case.client_chain is not None:
            leaf = d / "client-leaf.pem"
            leaf.write_bytes(case.client_chain.leaf.cert.public_bytes(pem))
            args += ["-cert", str(leaf), "-key", str(files["key"])]
            if case.client_chain.intermediate is not None:
                extra = d / "client-extra.pem"
                extra.write_bytes(case.client_chain.intermediate.cert.public_bytes(pem))
                args += ["-cert_chain", str(extra)]
        if case.version == 13:
            args += ["-tls1_3", "-ciphersuites", case.suite]
        else:
            args += ["-tls1_2", "-cipher", _openssl_name(case.suite) + (":@SECLEVEL=0" if "_anon_" in case.suite
                                                                          else "")]
        groups = [g for g in (case.client_share, case.group) if g]
        if case.version == 12 and case.group and not case.group.startswith("ffdhe"):
            groups += [g for g in ("p256", "p384") if g != case.group]  # the certificate curves it accepts
        if groups:
            names = {"x25519": "X25519", "x448": "X448", "p256": "P-256", "p384": "P-384"}
            args += ["-groups", ":".join(names.get(g, g) for g in groups)]
        if resume == "save":
            args += ["-sess_out", str(d / "session.pem")]
        elif resume == "use":
            args += ["-sess_in", str(d / "session.pem")]
        if case.resume == "session-id":
            args += ["-no_ticket"]
        return args
    exe = shutil.which("gnutls-cli")
    if exe is None:
        raise PeerUnsupported("gnutls-cli is not installed")
    if resume is not None:
        raise PeerUnsupported("gnutls-cli resumes only inside one process (-r), without a request on the "
                              "first connection")
    args = [exe, "-p", str(port), "--sni-hostname", name, "--priority", gnutls_priority(case)]
    if case.chain is not None and case.verify_peer:
        args += ["--x509cafile", str(files["root"]), "--verify-hostname", name]
    else:
        args += ["--insecure"]  # PSK / anonymous: nothing to verify; or told not to
    if case.psk is not None:
        args += ["--pskusername", HOSTS["client"], "--pskkey", case.psk.hex()]
    if case.client_chain is not None:
        args += ["--x509certfile", str(files["chain"]), "--x509keyfile", str(files["key"])]
    return [*args, "127.0.0.1"]


def _one_foreign_connection(args: list[str], timeout: float) -> str | None:
    """Runs the tool for one connection: sends the request line, waits for the
    response, then lets the tool finish. Returns None, or why it failed."""
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    assert proc.stdin is not None and proc.stdout is not None
    got = b""
    deadline = time.monotonic() + timeout
    try:
        proc.stdin.write(REQUEST_LINE)
        proc.stdin.flush()
        fd = proc.stdout.fileno()
        while b"r" * 64 not in got and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(fd, 65536) if ready else b""
            if not chunk:
                break
            got += chunk
        proc.stdin.close()
    except OSError:
        pass
    proc.stdin = None  # closed: the tool ends its connection
    try:
        _out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _out, err = proc.communicate()
    if b"r" * 64 in got:
        return None
    tail = err.decode("utf-8", "replace").strip().splitlines()
    last = tail[-1][:200] if tail else ""
    if proc.returncode is not None and proc.returncode < 0:  # the tool itself died
        how = signal.Signals(-proc.returncode).name if -proc.returncode in signal.valid_signals() else "a signal"
        return f"no response: the tool crashed ({how}){': ' + last if last else ''}"
    return f"no response (exit {proc.returncode}){': ' + last if last else ''}"


def run_external_client(server: Path, tool: str, case: TlsCase, repeats: int = 10, warmup: int = 1,
                        timeout: float = 120) -> NetResult:
    """A tlsbench server agent against a client tool nobody here wrote: only
    the server side is measured. Connection k of the server is the tool's
    k-th run (with resumption: a saving run, then the resuming one); before
    each measured one the server makes an untimed connection in memory."""
    if tool not in EXTERNAL_CLIENTS:
        raise AgentError(f"unknown external client {tool!r}; known: {', '.join(EXTERNAL_CLIENTS)}")
    if case.early:
        return NetResult("unsupported", f"{tool}: 0-RTT from an external client is not measured")
    n = connections_for(case, warmup, repeats)
    resumed = case.resume != "none"
    with tempfile.TemporaryDirectory(prefix="tlsbench-peer-") as tmp:
        d = Path(tmp)
        try:  # what the tool cannot do is known before any server starts
            _tool_args(tool, case, 0, d, "use" if resumed else None)
        except PeerUnsupported as e:
            return NetResult("unsupported", str(e))
        # warm: the tool's process start (its own library code) evicts the server's code and data from the
        # shared caches; one in-memory connection just before each measured one brings them back
        peer = AgentServer(server, {**case_fields(case), "foreign": 1, "warm": 1}, n, warmup=warmup)
        refused = peer.wait_listening()
        if refused is not None:
            return NetResult(str(refused["status"]), f"server: {refused.get('msg', '')}")
        assert peer.port is not None
        failure = None
        for k in range(n):
            args = _tool_args(tool, case, peer.port, d, ("use" if k % 2 else "save") if resumed else None)
            failure = _one_foreign_connection(args, min(timeout, 30))
            if failure is not None:
                break
        if failure is not None:
            peer.kill()
        records, end = peer.finish(timeout=30)
    if failure is not None:
        srv = f"; server: {end.get('msg', '')}" if end["status"] != "ok" else ""
        return NetResult("error", f"{tool}: {failure}{srv}")
    if end["status"] != "ok":
        return NetResult(str(end["status"]), f"server: {end.get('msg', '')}")
    step = per_measured(case)
    # after the warm-ups and the memory pass (the server's counted connection)
    measured = {int(r["i"]): r for r in records if r.type == "tls_side" and int(r["i"]) >= (warmup + 1) * step
                and (not resumed or int(r["i"]) % 2 == 1)}
    memory = next((r for r in records if r.type == "tls_side_memory"), None)
    return NetResult("ok", "", [], measured, server_memory=memory, process_heap=_process_heap("server", records))
