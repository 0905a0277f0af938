"""Post-quantum TLS 1.3 beyond the full handshake: ticket resumption with
(EC)DHE on the ML-KEM groups, HelloRetryRequest between a classical first
key share and a hybrid-only server (and the reverse), the plan option that
names the first share, interop reasons, the pq-tls charts and the
results-pq page. Exact facts only (bytes, records, round trips, heap)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import env_without_agent_dir, tlsbench_cmd
from tls_wire import client_hello_extensions

from tlsbench import paths, versions
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.families.tls import figures_pq, net
from tlsbench.families.tls.cases import TlsCase, parse_records, run_handshakes
from tlsbench.families.tls.certs import make_chain
from tlsbench.families.tls.names import TlsVariant
from tlsbench.families.tls.runner import expand_tls
from tlsbench.plans.plan import parse_plan
from tlsbench.report import html, tables
from tlsbench.studies import resultspq
from tlsbench.targets import build

# by their identifiers, whichever versions are the defaults
OSSL35, OSSL30 = versions.canonical("openssl@3.5"), versions.canonical("openssl@3.0")
PQ_LIBS = (OSSL35, versions.canonical("wolfssl@5.9"))
T13 = "TLS_AES_128_GCM_SHA256"
HRR_RANDOM = bytes.fromhex("CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C")


# ---- the plan option (no agent needed) ----

def test_hrr_shares_is_a_checked_plan_option_named_in_the_cases() -> None:
    with pytest.raises(PlanError, match=r"p.toml:3: \[tls\] hrr_shares: unknown value 'x25519kyber'.*allowed: x25519"):
        parse_plan('[tls]\nhandshakes = ["hrr"]\nhrr_shares = ["x25519kyber"]\n', "p.toml")
    with pytest.raises(PlanError, match=r'p.toml:2: \[tls\] hrr_shares: .*needs "hrr" in handshakes'):
        parse_plan('[tls]\nhrr_shares = ["x25519"]\n', "p.toml")
    plan = parse_plan('[select]\nlibraries = ["openssl@3.5"]\nkinds = ["tls"]\n'
                      '[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\ngroups = ["x25519", "x25519mlkem768"]\n'
                      'certs = ["ecdsa-p256"]\nhandshakes = ["hrr"]\n'
                      'hrr_shares = ["x25519", "x25519mlkem768"]\n', "p.toml")
    # a share equal to the case's own group would need no retry: no such case
    assert sorted(c.op for c in expand_tls(plan)) == ["x25519/ecdsa-p256-full/hrr+share=x25519mlkem768",
                                                      "x25519mlkem768/ecdsa-p256-full/hrr+share=x25519"]
    v = TlsVariant.parse("x25519mlkem768/ecdsa-p256-full/hrr+share=x25519")
    assert v.share == "x25519" and v.op(T13) == "x25519mlkem768/ecdsa-p256-full/hrr+share=x25519"
    with pytest.raises(ValueError, match="unknown TLS case option 'share=rsa'"):
        TlsVariant.parse("x25519/ecdsa-p256-full/hrr+share=rsa")
    # without the option an hrr case keeps its name (and its built-in guess)
    plain = parse_plan('[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\ngroups = ["x25519mlkem768"]\n'
                       'certs = ["ecdsa-p256"]\nhandshakes = ["hrr"]\n'
                       '[select]\nlibraries = ["openssl@3.5"]\nkinds = ["tls"]\n', "p.toml")
    assert [c.op for c in expand_tls(plain)] == ["x25519mlkem768/ecdsa-p256-full/hrr"]


# ---- the handshakes themselves, in memory ----

@pytest.fixture(scope="module")
def pq_agents(agents) -> dict[str, Path]:
    if not all(paths.agent_path(lib).exists() for lib in PQ_LIBS):
        build.build_agents(list(PQ_LIBS))
    return {lib: paths.agent_path(lib) for lib in PQ_LIBS}


@pytest.fixture(scope="module")
def chain():
    """Ed25519: a signature of one length (64 B), so every handshake's bytes are exact (an ECDSA DER
    signature is 70-72 B, a random one on the host)."""
    return make_chain("ed25519", "full", "server")


def _ok(r) -> None:
    assert r.status == "ok", r.message


def _one(r, field: str) -> int:
    values = {int(s[field]) for s in r.samples}
    assert len(values) == 1, (field, values)  # bytes and round trips: the same in every repeat
    return values.pop()


@pytest.mark.parametrize("library", PQ_LIBS)
@pytest.mark.parametrize("group, share", [("x25519mlkem768", "x25519"), ("x25519", "x25519mlkem768")])
def test_a_hello_retry_adds_exactly_the_retry_and_the_first_client_hello(pq_agents, chain, library, group,
                                                                        share) -> None:
    """A classical first share to a hybrid-only server, and the reverse: the
    server's extra bytes are the HelloRetryRequest record, the client's the
    first ClientHello record; the second ClientHello is the plain one's size
    (plus the cookie, where the server sends one); one more round trip."""
    plain = run_handshakes(pq_agents[library], TlsCase(13, T13, group, chain), repeats=2, warmup=0, transcript=True)
    hrr = run_handshakes(pq_agents[library], TlsCase(13, T13, group, chain, client_share=share), repeats=2, warmup=0,
                         transcript=True)
    _ok(plain)
    _ok(hrr)
    s_rec, c_rec = parse_records(hrr.wire["server"]), parse_records(hrr.wire["client"])
    retry = s_rec[0]
    assert retry[0] == 22 and retry[1][0] == 2 and retry[1][6:38] == HRR_RANDOM  # a ServerHello that is an HRR
    first_ch = c_rec[0]
    assert first_ch[0] == 22 and first_ch[1][0] == 1
    # the wire (the counted connection: handshake, request and response) is what the counters count
    assert len(hrr.wire["server"]) == _one(hrr, "total_s2c_bytes")
    assert len(hrr.wire["client"]) == _one(hrr, "total_c2s_bytes")
    second_ch = next(f for t, f in c_rec[1:] if t == 22)
    plain_ch = parse_records(plain.wire["client"])[0][1]
    second, base = _extensions(second_ch), _extensions(plain_ch)
    # the second ClientHello is the plain one but for: its groups list names the first share's group too
    # (2 B), an OpenSSL client then sends ec_point_formats (a classical EC group offered) and echoes a
    # cookie if the server sent one; its key share is the plain one's
    assert second[51] == base[51] and second[10] == base[10] + 2
    assert set(second) - set(base) <= {11, 44} and set(base) <= set(second)
    assert (44 in second) == (_cookie_len(retry[1]) > 0)
    extra = len(second_ch) - len(plain_ch)
    assert extra == 2 + sum(4 + second[k] for k in set(second) - set(base))
    # so the client sends exactly one more ClientHello record, the server one HelloRetryRequest record
    assert _one(hrr, "c2s_bytes") - _one(plain, "c2s_bytes") == 5 + len(first_ch[1]) + extra
    assert _one(hrr, "s2c_bytes") - _one(plain, "s2c_bytes") == 5 + len(retry[1])
    assert _one(hrr, "round_trips") == _one(plain, "round_trips") + 1
    assert _one(hrr, "c2s_records") == _one(plain, "c2s_records") + 1
    assert _one(hrr, "s2c_records") == _one(plain, "s2c_records") + 1


def _extensions(hello: bytes) -> dict[int, int]:
    """A ClientHello handshake message's extensions: type -> body length."""
    return {kind: len(body) for kind, body in client_hello_extensions(hello).items()}


def _cookie_len(hrr: bytes) -> int:
    """The length of the cookie extension's body in a HelloRetryRequest (0: none)."""
    i = 4 + 2 + 32
    i += 1 + hrr[i]  # legacy_session_id_echo
    i += 2 + 1  # cipher suite, compression
    end = i + 2 + int.from_bytes(hrr[i:i + 2], "big")
    i += 2
    while i < end:
        kind, size = int.from_bytes(hrr[i:i + 2], "big"), int.from_bytes(hrr[i + 2:i + 4], "big")
        if kind == 44:
            return size
        i += 4 + size
    return 0


@pytest.mark.parametrize("library", PQ_LIBS)
def test_a_ticket_resumption_runs_the_ml_kem_group_again(pq_agents, chain, library) -> None:
    """psk_dhe_ke: the resumed ClientHello carries the group's key share (the
    hybrid's 1,216 bytes, ML-KEM-768's 1,184), the server answers with its
    ciphertext; no certificate."""
    c2s, s2c = {}, {}
    point_formats = 0
    for group in ("x25519", "x25519mlkem768", "mlkem768"):
        r = run_handshakes(pq_agents[library], TlsCase(13, T13, group, chain, resume="ticket"), repeats=2, warmup=0,
                           transcript=True)
        _ok(r)
        assert all(int(s["resumed"]) == 1 for s in r.samples)
        c2s[group], s2c[group] = _one(r, "c2s_bytes"), _one(r, "s2c_bytes")
        exts = _extensions(parse_records(r.wire["client"])[0][1])
        assert 41 in exts and 45 in exts  # pre_shared_key and psk_key_exchange_modes: a resumption
        if group == "x25519":
            point_formats = 4 + exts[11] if 11 in exts else 0
        else:
            assert 11 not in exts
    # ML-KEM-768's key (1,184 B) and ciphertext (1,088 B) in place of X25519's 32 B each way; the hybrid
    # adds X25519's 32 B to ML-KEM-768's. An OpenSSL client sends ec_point_formats only when it offers a
    # classical EC group: the x25519 ClientHello carries that extension too
    assert c2s["x25519mlkem768"] - c2s["mlkem768"] == 32 and s2c["x25519mlkem768"] - s2c["mlkem768"] == 32
    assert s2c["mlkem768"] - s2c["x25519"] == 1088 - 32
    assert c2s["mlkem768"] - c2s["x25519"] == 1184 - 32 - point_formats
    full = run_handshakes(pq_agents[library], TlsCase(13, T13, "x25519mlkem768", chain), repeats=1, warmup=0)
    _ok(full)
    assert s2c["x25519mlkem768"] < _one(full, "s2c_bytes") - 400  # no certificate chain in the resumed one


# ---- a run: interop reasons, the charts, the page ----

def test_pq_interop_failures_carry_their_reason_and_the_page_shows_them(pq_agents, tmp_path: Path) -> None:
    plan = tmp_path / "pq.toml"
    plan.write_text('[select]\nlibraries = ["openssl@3.5", "wolfssl@5.9"]\nkinds = ["tls"]\n'
                    '[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\ngroups = ["x25519", "x25519mlkem768"]\n'
                    'certs = ["ecdsa-p256"]\nhandshakes = ["full", "hrr"]\nhrr_shares = ["x25519", "x25519mlkem768"]\n'
                    'transports = ["memory", "tcp"]\nservers = ["openssl@3.5", "openssl@3.0"]\n'
                    '[method]\nwarmup = 0\nrepeats = 1\nrounds = 1\n')
    db = tmp_path / "r.sqlite"
    p = subprocess.run([*tlsbench_cmd(), "run", "--db", str(db), "--json", "--plan", str(plan)], capture_output=True,
                       text=True, env=env_without_agent_dir(), timeout=900)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    reasons = {r["case"]: r.get("reason", "") for r in rows if r.get("metric") is None}
    base = "{lib}/tls/TLS_AES_128_GCM_SHA256/x25519mlkem768/ecdsa-p256-full"
    for lib in PQ_LIBS:  # OpenSSL 3.0 as the server: the reason names the group it lacks
        assert "server: OpenSSL has no group x25519mlkem768" in reasons[base.format(lib=lib) + f"/tcp+server={OSSL30}"]
    c2s = {r["case"]: r["median"] for r in rows if r.get("metric") == "c2s_bytes"}
    for lib in PQ_LIBS:  # the classical group completes with OpenSSL 3.0 and with 3.5 alike
        x = base.format(lib=lib).replace("x25519mlkem768", "x25519")
        assert c2s[x + f"/tcp+server={OSSL30}"] == c2s[x + f"/tcp+server={OSSL35}"] == c2s[x]
    store = Store(db)
    try:
        data = tables.load(store, store.latest_run_id())
    finally:
        store.close()
    slugs = [c.slug for c in figures_pq.pq_charts(data)]
    assert slugs == ["pq-tls-bytes", "pq-tls-cpu-ns", "pq-tls-heap"]
    page = html.render(data)
    assert 'aria-label="Post-quantum TLS: handshake bytes each way"' in page
    doc = resultspq.render([data], "9.0 8.0 2")
    assert "MEASURED UNDER LOAD" in doc and "OpenSSL has no group x25519mlkem768" in doc
    row = next(line for line in doc.splitlines() if line.startswith(f"| {OSSL35} | x25519mlkem768 | hybrid | full |"))
    case = next(c for c in data.cases if c["name"] == base.format(lib=OSSL35))
    assert f"| {case['results']['c2s_bytes']['median']:,.0f} |" in row


def test_a_client_lacking_the_group_is_the_reason_not_the_waiting_server(pq_agents, chain) -> None:
    """OpenSSL 3.0's client against OpenSSL 3.5's server on X25519MLKEM768:
    the client refuses before it connects; the reason is its own, the server
    is stopped rather than waited for."""
    r = net.run_over_tcp(paths.agent_path(OSSL30), pq_agents[OSSL35],
                         TlsCase(13, T13, "x25519mlkem768", chain), repeats=1, warmup=0, timeout=60)
    assert (r.status, r.message) == ("unsupported", "client: OpenSSL has no group x25519mlkem768")
