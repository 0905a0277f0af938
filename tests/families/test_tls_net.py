"""TLS over loopback sockets, client and server in separate processes:
byte counts equal an independent counting relay's, round trips come from the
exchange, a plain TCP baseline, a foreign server (openssl s_server), silent
peers time out, and capacity agrees with the measured transaction time."""

from __future__ import annotations

import socket
import statistics
import threading
import time

import pytest
from relay import CountingRelay

from tlsbench.engine.protocol import encode_request
from tlsbench.families.tls.cases import TlsCase, case_fields
from tlsbench.families.tls.certs import client_chain_for, make_chain
from tlsbench.families.tls.net import fastest_window_rate, run_capacity, run_over_tcp

LIBS = ("mbedtls", "wolfssl", "openssl", "gnutls")
T13 = "TLS_AES_128_GCM_SHA256"
T12 = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"


@pytest.mark.parametrize("version, suite, rtt", [(13, T13, 1), (12, T12, 2)])
@pytest.mark.parametrize("client, server", [("openssl", "openssl"), ("mbedtls", "wolfssl"), ("gnutls", "mbedtls")])
def test_bytes_equal_a_counting_relay(agents, chain, client, server, version, suite, rtt) -> None:
    relays: list[CountingRelay] = []

    def via(port: int) -> int:
        relays.append(CountingRelay(port))
        return relays[0].port

    r = run_over_tcp(agents[client], agents[server], TlsCase(version, suite, "p256", chain), repeats=3,
                     warmup=1, via_port=via)
    relays[0].close()
    assert r.status == "ok", r.message
    counted = relays[0].connections
    assert len(counted) == 5  # warm-up, the memory pass, 3
    for c, s in r.pairs():
        k = int(c["i"])
        # exact agreement with the bytes the relay forwarded, each side's own count
        assert (c["total_sent_bytes"], c["total_recv_bytes"]) == (counted[k].c2s, counted[k].s2c)
        assert s is not None and (s["total_recv_bytes"], s["total_sent_bytes"]) == (counted[k].c2s, counted[k].s2c)
        assert c["round_trips"] == rtt
        assert c["cpu_ns"] > 0 and s["cpu_ns"] > 0
        assert c["handshake_ns"] > c["connect_ns"] > 0


def test_plain_tcp_baseline_is_the_request_and_response_alone(agents, chain) -> None:
    relays: list[CountingRelay] = []

    def via(port: int) -> int:
        relays.append(CountingRelay(port))
        return relays[0].port

    case = TlsCase(13, T13, "x25519", chain)
    plain = run_over_tcp(agents["openssl"], agents["openssl"], case, repeats=5, plain=True, via_port=via)
    relays[0].close()
    tls = run_over_tcp(agents["openssl"], agents["openssl"], case, repeats=5)
    assert plain.status == "ok" and tls.status == "ok", (plain.message, tls.message)
    for c, _s in plain.pairs():
        assert (c["total_sent_bytes"], c["total_recv_bytes"], c["sent_records"]) == (64, 64, 0)
    assert all((x.c2s, x.s2c) == (64, 64) for x in relays[0].connections)
    # (TLS costing more time than plain TCP is a benchmark figure, not a test: the plain
    # transactions here pass through the Python relay, slow on a loaded machine)


@pytest.mark.parametrize("library", LIBS)
@pytest.mark.parametrize("resume", ["none", "ticket"])
def test_timed_tcp_connections_reach_no_accounting(agents, chain, library, resume) -> None:
    """As in memory: the timed connections run with the allocation hooks only
    forwarding (no call reaches the accounting, on either side); the heap
    comes from one more counted connection per side, after the warm-up."""
    r = run_over_tcp(agents[library], agents[library], TlsCase(13, T13, "x25519", chain, resume=resume),
                     repeats=2, warmup=1)
    assert r.status == "ok", r.message
    assert {side: rec["timed_heap_calls"] for side, rec in r.process_heap.items()} == {"client": 0, "server": 0}
    assert all("heap_peak" not in c.fields and s is not None and "heap_peak" not in s.fields for c, s in r.pairs())
    per = 2 if resume != "none" else 1
    assert r.client_memory is not None and r.server_memory is not None
    # the memory pass's measured connection is the same one on both sides: after warm-up (and its full handshake)
    assert int(r.client_memory["i"]) == int(r.server_memory["i"]) == 2 * per - 1
    assert r.client_memory["heap_peak"] > 0 and r.server_memory["heap_peak"] > 0
    assert r.client_memory["resumed"] == (resume != "none")
    assert [int(c["i"]) for c in r.client] == [3 * per - 1, 4 * per - 1]


@pytest.mark.parametrize("library", LIBS)
def test_each_library_against_openssl_s_server(agents, chain, library) -> None:
    r = run_over_tcp(agents[library], "openssl-s_server", TlsCase(13, T13, "x25519", chain), repeats=2)
    assert r.status == "ok", r.message
    for c, s in r.pairs():
        assert s is None  # the foreign side reports nothing
        assert c["round_trips"] == 1 and c["recv_bytes"] > 1000  # its certificate chain came


# A server writes while its connections run and is read when it ends: several times what a pipe holds
# (64 KiB; a plain connection's record is about 260 bytes, s_server's log of one about 500) must not stop it.
def test_a_server_agent_serves_more_connections_than_a_pipe_holds_records_of(agents, chain) -> None:
    r = run_over_tcp(agents["openssl"], agents["openssl"], TlsCase(13, T13, "x25519", chain), repeats=800,
                     warmup=0, plain=True, timeout=60)
    assert r.status == "ok", r.message
    assert len(r.client) == 800 and sorted(r.server) == list(range(1, 801))  # after the memory pass (0)


def test_openssl_s_server_serves_more_connections_than_a_pipe_holds_its_log_of(agents, chain) -> None:
    r = run_over_tcp(agents["openssl"], "openssl-s_server", TlsCase(13, T13, "x25519", chain, resume="ticket"),
                     repeats=200, warmup=0, timeout=60)
    assert r.status == "ok", r.message
    assert len(r.client) == 200 and all(int(c["resumed"]) == 1 for c in r.client)


@pytest.mark.parametrize("library", LIBS)
@pytest.mark.parametrize("server", ["openssl-s_server", "mbedtls", "openssl"])
def test_tls12_x25519_with_a_p256_certificate_across_libraries(agents, chain, library, server) -> None:
    # the group is X25519, the certificates are P-256: a 1.2 client lists the
    # certificate curves after the pinned group, and a server that checks the
    # client's certificate curve accepts them too (these pairs once failed)
    client = client_chain_for(chain)
    case = TlsCase(12, T12, "x25519", chain, client_chain=client)
    r = run_over_tcp(agents[library], agents.get(server, server), case, repeats=1)
    assert r.status == "ok", r.message


@pytest.mark.parametrize("library", ["openssl", "mbedtls"])
def test_tls12_dhe_against_wolfssl_from_clients_naming_no_ffdhe_group(agents, library) -> None:
    rsa = make_chain("rsa2048", "leaf", "server")
    r = run_over_tcp(agents[library], agents["wolfssl"],
                     TlsCase(12, "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", "ffdhe2048", rsa), repeats=1)
    assert r.status == "ok", r.message

def test_a_silent_peer_times_out(agents, chain) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    held: list[socket.socket] = []
    t = threading.Thread(target=lambda: held.append(listener.accept()[0]), daemon=True)
    t.start()
    from tlsbench.engine import agent

    req = encode_request("tls-client", **case_fields(TlsCase(13, T13, "x25519", chain)),
                         port=listener.getsockname()[1], repeats=1, warmup=0, wait_ms=500)
    res = agent.call(agents["openssl"], [req], 30, "silent peer")
    listener.close()
    end = res.responses[0]
    assert end.status == "error" and "did not answer within 500 ms" in end.message


@pytest.mark.parametrize("workers, ok", [(64, True), (65, False), (0, False)])
def test_server_workers_are_bounded(agents, chain, workers, ok) -> None:
    """A capacity server forks one process per worker: the count is capped."""
    from tlsbench.engine import agent

    req = encode_request("tls-server", **case_fields(TlsCase(13, T13, "x25519", chain)),
                         repeats=1, workers=workers, wait_ms=1)
    end = agent.call(agents["openssl"], [req], 30, "workers").responses[0]
    if ok:  # it listened, forked its workers, then nobody connected
        assert end.status == "error" and "no client connected" in end.message
    else:
        assert end.status == "bad_input" and end.message == "field workers is malformed"


def test_a_server_lacking_the_suite_is_reported_not_run(agents, chain) -> None:
    case = TlsCase(12, "TLS_ECDHE_ECDSA_WITH_AES_512_GCM_SHA1024", "p256", chain)
    r = run_over_tcp(agents["openssl"], agents["openssl"], case, repeats=1)
    assert r.status == "unsupported" and "server" in r.message


@pytest.mark.alone  # compares timings
def test_capacity_matches_the_measured_transaction_time(agents, chain) -> None:
    case = TlsCase(13, T13, "x25519", chain)
    seen = []
    for _ in range(3):  # measured again on a miss: the host's slow phases last seconds
        one = run_over_tcp(agents["openssl"], agents["openssl"], case, repeats=20)
        cap = run_capacity(agents["openssl"], agents["openssl"], case, clients=1, seconds=1.5)
        assert one.status == "ok" and cap.status == "ok", (one.message, cap.message)
        assert cap.capacity is not None and cap.capacity["failures"] == 0
        per_s = cap.capacity["transactions"] / (cap.capacity["wall_ns"] / 1e9)
        expected = 1e9 / statistics.median(c["transaction_ns"] for c, _ in one.pairs())
        seen.append((per_s, expected))
        # one client in a loop does one transaction at a time: its rate is the
        # inverse of a transaction's time, less the close and process overheads
        if 0.4 * expected < per_s < 1.2 * expected:
            break
    assert 0.4 * expected < per_s < 1.2 * expected, seen


def test_capacity_clients_count_the_same_windows_of_time(agents, chain) -> None:
    """Each client reports its transactions per window, indexed by the window's end on the monotonic clock
    the clients (and this process) share: every index is a boundary inside the capacity run, the clients
    report windows in common, and they hold no more transactions than the client made. (A transaction that
    a loaded machine stalls past a boundary merges two windows, so indexes need not be consecutive.)"""
    before = time.monotonic_ns()
    cap = run_capacity(agents["mbedtls"], agents["mbedtls"], TlsCase(13, T13, "x25519", chain), clients=2,
                       seconds=1.0, window_ms=100)
    after = time.monotonic_ns()
    assert cap.status == "ok" and cap.capacity is not None and cap.capacity["failures"] == 0, cap.message
    assert len(cap.windows) == 2
    for client in cap.windows:
        assert client and all(n >= 1 and ns > 0 for n, ns in client.values())
        assert all(before < index * 100_000_000 <= after for index in client)
    assert sum(n for w in cap.windows for n, _ in w.values()) <= cap.capacity["transactions"]
    assert set(cap.windows[0]) & set(cap.windows[1])
    assert cap.transcript.count("capacity_window") == sum(map(len, cap.windows))


def test_capacity_reports_no_windows_unless_asked(agents, chain) -> None:
    cap = run_capacity(agents["openssl"], agents["openssl"], TlsCase(13, T13, "x25519", chain), clients=1,
                       seconds=0.3)
    assert cap.status == "ok" and cap.windows == [{}] and cap.capacity is not None
    assert cap.capacity["transactions"] > 0


def test_a_window_longer_than_an_hour_is_refused(agents, chain) -> None:
    from tlsbench.engine import agent

    req = encode_request("tls-client", **case_fields(TlsCase(13, T13, "x25519", chain)), port=1,
                         duration_ms=1000, window_ms=3600001)
    end = agent.call(agents["openssl"], [req], 30, "window").responses[0]
    assert end.status == "bad_input" and end.message == "field window_ms is malformed"


def test_the_fastest_window_sums_the_clients_over_the_windows_all_of_them_report() -> None:
    one = {5: (10, 100_000_000), 6: (30, 100_000_000), 7: (50, 100_000_000)}
    two = {6: (10, 50_000_000), 7: (1, 100_000_000), 8: (99, 100_000_000)}
    # window 6: 300/s + 200/s; window 7: 500/s + 10/s; 5 and 8 are not in both
    assert fastest_window_rate([one, two]) == pytest.approx(510.0)
    assert fastest_window_rate([one]) == pytest.approx(500.0)
    assert fastest_window_rate([{5: (1, 1)}, {6: (1, 1)}]) is None
    assert fastest_window_rate([]) is None


@pytest.mark.parametrize("tool", ["openssl-s_client", "gnutls-cli"])
@pytest.mark.parametrize("library", LIBS)
def test_each_library_serves_client_tools(agents, chain, library, tool) -> None:
    from tlsbench.families.tls.net import run_external_client

    for case in (TlsCase(13, T13, "x25519", chain), TlsCase(12, T12, "x25519", chain)):
        r = run_external_client(agents[library], tool, case, repeats=2, warmup=1)
        assert r.status == "ok", r.message
        assert len(r.server) == 2  # the measured connections, the server's side of each
        assert r.process_heap["server"]["timed_heap_calls"] == 0  # nor did its warm-ups in memory count
        for s in r.server.values():
            assert s["side"] == "server" and s["cpu_ns"] > 0 and s["sent_bytes"] > 1000  # its chain went out
            assert s["warmed"] == 1  # the tool's process start had evicted its code and data


def test_resumption_against_s_client_is_measured_on_the_resumed_connections(agents, chain) -> None:
    from tlsbench.families.tls.net import run_external_client

    r = run_external_client(agents["openssl"], "openssl-s_client", TlsCase(13, T13, "x25519", chain, resume="ticket"),
                            repeats=2, warmup=1)
    assert r.status == "ok", r.message
    # connections: warm-up (0, 1), the memory pass (2, 3), measured (4, 5), (6, 7): each full, then resumed
    assert sorted(r.server) == [5, 7] and all(s["resumed"] == 1 for s in r.server.values())
    assert r.server_memory is not None and int(r.server_memory["i"]) == 3 and r.server_memory["heap_peak"] > 0


def _serve_own_client(agents, library: str, case: TlsCase, warm: int | None):
    """A server agent (asked to warm or not) against our own client: the
    client's end, the server's records and its end."""
    from tlsbench.engine import agent
    from tlsbench.families.tls.net import AgentServer, connections_for

    fields = case_fields(case)
    peer = AgentServer(agents[library], {**fields, "warm": warm}, connections_for(case, 1, 2), warmup=1)
    assert peer.wait_listening() is None and peer.port is not None
    req = encode_request("tls-client", **fields, port=peer.port, repeats=2, warmup=1)
    client = agent.call(agents[library], [req], 60, "warm").responses[0]
    records, end = peer.finish(timeout=30)
    return client, records, end


@pytest.mark.parametrize("library", LIBS)
@pytest.mark.parametrize("resume", ["none", "ticket"])
def test_a_warmed_server_warms_only_before_the_measured_connections(agents, chain, library, resume) -> None:
    """warm=1: one untimed in-memory connection just before each measured
    one (for a resumed kind, each resumed one), none before the warm-ups, the
    full handshakes resumed ones resume, or the counted memory pass (whose
    heap keeps the history it had); the timed connections, the warm-ups in
    memory with them, reach no accounting."""
    case = TlsCase(13, T13, "x25519", chain, resume=resume)
    per = 2 if resume != "none" else 1
    for warm in (None, 1):
        client, records, end = _serve_own_client(agents, library, case, warm)
        assert client.status == "ok" and end["status"] == "ok", (client.message, end.fields)
        sides = {int(r["i"]): r for r in records if r.type in ("tls_side", "tls_side_memory")}
        warmed = sorted(i for i, r in sides.items() if r.get("warmed") == 1)
        # connections: a warm-up, the memory pass, 2 measured (each a full one first when resumed)
        assert warmed == ([3 * per - 1, 4 * per - 1] if warm else [])
        assert "warmed" not in sides[2 * per - 1].fields and sides[2 * per - 1].type == "tls_side_memory"
        assert next(r for r in records if r.type == "process_heap")["timed_heap_calls"] == 0


def test_warm_takes_0_or_1(agents, chain) -> None:
    from tlsbench.engine import agent

    req = encode_request("tls-server", **case_fields(TlsCase(13, T13, "x25519", chain)), repeats=1, warm=2,
                         wait_ms=1)
    end = agent.call(agents["openssl"], [req], 30, "warm").responses[0]
    assert end.status == "bad_input" and end.message == "field warm is malformed"


def test_openssl_suite_names_are_asked_once_per_process(monkeypatch) -> None:
    # a tool case builds its command line for every connection: asking `openssl ciphers` each time put a
    # process of its own before every connection
    import subprocess

    from tlsbench.families.tls import net

    net._openssl_names.cache_clear()
    asked: list[list[str]] = []
    real = subprocess.run

    def counting(args, *a, **kw):
        asked.append(list(args))
        return real(args, *a, **kw)

    monkeypatch.setattr(subprocess, "run", counting)
    names = {suite: net._openssl_name(suite) for suite in (T12, "TLS_RSA_WITH_AES_128_CBC_SHA")}
    with pytest.raises(net.PeerUnsupported, match="no suite TLS_NOT_A_SUITE"):
        net._openssl_name("TLS_NOT_A_SUITE")
    assert [a[:2] for a in asked] == [["openssl", "ciphers"]]
    monkeypatch.setattr(subprocess, "run", real)
    for suite, name in names.items():
        # the tool, told `-cipher NAME`, offers that one TLS 1.2 suite (the name once carried the rest of
        # the listing's line, "TLSv1.2 Kx=...", which openssl read as every TLS 1.2 suite: 86 offered)
        offered = real(["openssl", "ciphers", "-stdname", name + ":@SECLEVEL=0"], capture_output=True,
                       text=True, check=True).stdout.splitlines()
        assert [line.split(" - ")[0].strip() for line in offered if "TLSv1.3" not in line] == [suite]
