"""TLS plans through the runner and the store: every dimension of the
matrix becomes cases, each case's metrics come from measured data, a
failing handshake is recorded with its reason while the run goes on."""

from __future__ import annotations

import pytest

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.families.tls import runner as tls_runner
from tlsbench.families.tls.names import TlsVariant
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report

PLAN = """
[select]
libraries = ["openssl"]
kinds = ["tls"]
[tls]
suites = ["TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_PSK_WITH_AES_128_GCM_SHA256"]
groups = ["x25519"]
certs = ["rsa2048"]
auth = ["server", "mutual"]
handshakes = ["full", "resume-ticket", "hrr"]
transports = ["memory", "tcp"]
servers = ["same", "openssl-s_server"]
clients = ["openssl-s_client"]
bulk_kib = 256
baseline = true
capacity_clients = [1]
capacity_seconds = 0.5
[method]
repeats = 3
rounds = 1
warmup = 1
"""


def _median(store: Store, run_id: int, name: str, metric: str) -> float:
    for r in store.results(run_id):
        if r["name"] == name and r["metric"] == metric:
            return r["median"]
    raise KeyError((name, metric))


def test_a_full_tls_matrix_runs_and_stores_what_it_measured(agents, tmp_path) -> None:
    plan = parse_plan(PLAN, "matrix.toml")
    store = Store(tmp_path / "r.sqlite")
    run_id = runner.run(plan, PLAN, store, show_progress=False)
    cases = {c["name"]: c for c in store.cases(run_id)}
    pre = "openssl/tls/TLS_AES_128_GCM_SHA256/x25519/rsa2048-full"
    bad = {n: (c["status"], c["reason"]) for n, c in cases.items() if c["status"] != "ok"}
    # only the in-process library can do everything: each other case says why not
    assert all(reason for _status, reason in bad.values()), bad
    assert all(not n.startswith(pre) or "server=" in n for n in bad), bad
    m = lambda suffix, metric: _median(store, run_id, pre + suffix, metric)  # noqa: E731
    # per-side stack in memory, wall time over TCP, both sides' CPU either way
    assert m("", "client_stack_bytes") > 1000 and m("", "server_stack_bytes") > 1000
    assert m("/tcp", "handshake_wall_ns") > m("/tcp", "connect_wall_ns") > 0
    assert m("/tcp", "server_cpu_ns") > 0 and m("", "server_cpu_ns") > 0
    # the foreign server reports nothing of its side: never a zero in its place
    foreign = {r["metric"] for r in store.results(run_id) if r["name"] == pre + "/tcp+server=openssl-s_server"}
    assert "client_cpu_ns" in foreign and "server_cpu_ns" not in foreign
    tool = {r["metric"] for r in store.results(run_id) if r["name"] == pre + "/tcp+client=openssl-s_client"}
    assert "server_cpu_ns" in tool and "client_cpu_ns" not in tool
    # measured, not assumed: resumption is shorter, HRR costs a round trip, mutual costs the client
    assert m("/resume-ticket", "round_trips") == 1 and m("/hrr", "round_trips") == 2
    assert m("/resume-ticket+tcp", "s2c_bytes") < m("/tcp", "s2c_bytes")
    assert m("/mutual", "c2s_bytes") > m("", "c2s_bytes")
    # bulk throughput and capacity
    assert m("", "bulk_throughput_per_s") > 1e6 and m("/tcp", "bulk_throughput_per_s") > 1e6
    assert m("/tcp+clients=1", "transactions_per_s") > 10
    # the TCP baseline: only the request and response (that it takes less time than TLS is a
    # benchmark figure: on a loaded machine a wall-time comparison here failed)
    base = "openssl/tls/TCP/tcp"
    assert _median(store, run_id, base, "total_c2s_bytes") == 64
    metrics = {r["metric"] for r in store.results(run_id) if r["name"] == base}
    assert "client_cpu_ns" not in metrics and "round_trips" not in metrics
    # PSK: no certificate, no mutual variant made
    assert not any("psk" in n and "mutual" in n for n in cases)
    assert cases["openssl/tls/TLS_PSK_WITH_AES_128_GCM_SHA256/psk-kx/psk-none"]["status"] == "ok"


def test_a_failing_handshake_is_recorded_and_the_run_goes_on(agents, tmp_path, monkeypatch) -> None:
    from tlsbench.families.tls import certs

    plan = parse_plan('[select]\nlibraries = ["openssl", "gnutls"]\nkinds = ["tls"]\n'
                      '[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\ngroups = ["x25519"]\ncerts = ["ecdsa-p256"]\n'
                      'transports = ["memory", "tcp"]\n[method]\nrepeats = 2\nrounds = 1\n', "t.toml")
    real = tls_runner.material

    def wrong_root(keys, cred, chain):  # the client trusts another root: every handshake must fail
        m = dict(real(keys, cred, chain))
        if "trust" in m:
            other = certs.make_chain(cred, chain, "server")
            m["trust"] = other.root.cert.public_bytes(tls_runner.PEM).decode()
        return m

    monkeypatch.setattr(tls_runner, "material", wrong_root)
    store = Store(tmp_path / "r.sqlite")
    run_id = runner.run(plan, "", store, show_progress=False)
    cases = list(store.cases(run_id))
    # every case failed: the run ends, marked as having measured nothing
    assert len(cases) == 4 and store.get_run(run_id).status == "nothing measured"
    for c in cases:
        assert c["status"] == "failed" and "handshake failed" in c["reason"]
        assert "certif" in c["reason"].lower() or "verify" in c["reason"].lower() or "ca" in c["reason"].lower()


def test_unknown_tls_names_are_clear_errors() -> None:
    with pytest.raises(PlanError, match=r"did you mean TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"):
        parse_plan('[tls]\nsuites = ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA265"]\n', "p.toml")
    with pytest.raises(PlanError, match=r"did you mean resume-id"):
        parse_plan('[tls]\nhandshakes = ["resume-idd"]\n', "p.toml")
    with pytest.raises(PlanError, match=r"servers"):
        parse_plan('[tls]\nservers = ["gnutls-serv"]\n', "p.toml")
    with pytest.raises(PlanError, match=r"capacity_clients"):
        parse_plan('[tls]\ncapacity_clients = [0]\n', "p.toml")


def test_variant_names_round_trip() -> None:
    v = TlsVariant("x25519", "rsa2048", "full", "mutual", "resume-ticket", "tcp", "openssl-s_server")
    op = v.op("TLS_AES_128_GCM_SHA256")
    assert op == "x25519/rsa2048-full/mutual+resume-ticket+tcp+server=openssl-s_server"
    assert TlsVariant.parse(op) == v
    assert TlsVariant.parse("rsa-kx/rsa2048-leaf").group is None


def test_report_cell_of_a_case_against_a_client_tool_names_the_unmeasured_side() -> None:
    # a client tool (gnutls-cli, s_client) is not ours: only the server side and the wire are measured
    def r(median: float) -> dict:
        return {"median": median, "unit": "ns", "stdev": None}
    case = {"status": "ok", "kind": "tls", "alg": "TLS_AES_128_GCM_SHA256",
            "results": {"server_cpu_ns": r(578_000), "c2s_bytes": r(1533), "s2c_bytes": r(1460),
                        "server_handshake_wall_ns": r(2_300_000)}}
    assert report.cell(case) == "C not measured (foreign) / S 578 µs, 1533+1460 B, 2.3 ms wall"


def test_the_tls_matrix_is_selectable_by_flags() -> None:
    from tlsbench.cli import parser
    from tlsbench.cli.run import plan_from_args as _plan_from_args

    args = parser().parse_args(["run", "--libraries", "openssl", "--suites", "TLS_AES_128_GCM_SHA256",
                                "--groups", "x25519", "--certs", "ecdsa-p256", "--handshakes", "full,resume-ticket"])
    plan, source = _plan_from_args(args)
    assert plan.kinds == ["tls"] and plan.tls.suites == ["TLS_AES_128_GCM_SHA256"] and plan.tls.groups == ["x25519"]
    assert plan.tls.certs == ["ecdsa-p256"] and plan.tls.handshakes == ["full", "resume-ticket"]
    assert "--handshakes full,resume-ticket" in source  # recorded with the run like every other flag
    names = [c.name for c in runner.expand(plan)]
    assert names and all("x25519" in n and "ecdsa-p256" in n for n in names)
    bad = parser().parse_args(["run", "--groups", "x2559"])
    with pytest.raises(PlanError, match="x2559.*x25519"):
        _plan_from_args(bad)


def test_verify_peer_is_a_checked_plan_option_named_in_the_cases() -> None:
    with pytest.raises(PlanError, match=r'p.toml:2: \[tls\] verify_peer: must be true or false') as e:
        parse_plan('[tls]\nverify_peer = "no"\n', "p.toml")
    assert "\n" not in str(e.value)
    plan = parse_plan('[select]\nlibraries = ["openssl"]\nkinds = ["tls"]\n[tls]\nverify_peer = false\n'
                      'suites = ["TLS_AES_128_GCM_SHA256", "TLS_PSK_WITH_AES_128_GCM_SHA256"]\ngroups = ["x25519"]\n'
                      'certs = ["ecdsa-p256"]\n', "p.toml")
    assert plan.tls.verify_peer is False and parse_plan("", "p.toml").tls.verify_peer is True
    names = sorted(c.name for c in tls_runner.expand_tls(plan))
    # only certificate suites have a chain to skip verifying: a PSK case keeps its name
    assert names == ["openssl/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full/noverify",
                     "openssl/tls/TLS_PSK_WITH_AES_128_GCM_SHA256/psk-kx/psk-none"]
    v = TlsVariant.parse("x25519/ecdsa-p256-full/mutual+noverify+tcp")
    assert (v.verify, v.auth, v.transport) == (False, "mutual", "tcp")
    assert v.op("TLS_AES_128_GCM_SHA256") == "x25519/ecdsa-p256-full/mutual+noverify+tcp"


def test_capacity_window_is_a_checked_plan_option() -> None:
    assert parse_plan("[tls]\ncapacity_seconds = 2\n", "p.toml").tls.capacity_window_ms == 100
    assert parse_plan("[tls]\ncapacity_window_ms = 0\n", "p.toml").tls.capacity_window_ms == 0
    longer = parse_plan("[tls]\ncapacity_seconds = 1.5\ncapacity_window_ms = 500\n", "p.toml")
    assert longer.tls.capacity_window_ms == 500
    # the first window is cut short by the clients' start: a round holds at least three
    with pytest.raises(PlanError, match=r"p.toml:3: \[tls\] capacity_window_ms: must be integer 0 or 10..60000, "
                                        r"at most a third of capacity_seconds .*got 800 with capacity_seconds = 2"):
        parse_plan("[tls]\ncapacity_seconds = 2\ncapacity_window_ms = 800\n", "p.toml")
    with pytest.raises(PlanError, match=r"p.toml:2: \[tls\] capacity_window_ms: .*got 5 "):
        parse_plan("[tls]\ncapacity_window_ms = 5\n", "p.toml")
    with pytest.raises(PlanError, match=r"p.toml:2: \[tls\] capacity_window_ms: must be integer"):
        parse_plan("[tls]\ncapacity_window_ms = 0.5\n", "p.toml")


def test_a_runs_capacity_figure_and_batches_are_in_compares_context() -> None:
    from tlsbench.families import registry

    plan = parse_plan("[select]\nkinds = [\"tls\"]\n[tls]\ncapacity_clients = [1]\nbatch = 3\nresumed_batch = 10\n",
                      "p.toml")
    assert registry.figure_settings(plan.to_dict()) == {"tls handshakes per sample": "3 (resumed 10)",
                                                "tls capacity figure": "fastest 100 ms window"}
    # a run stored before the window was a setting took the whole round
    older = {"kinds": ["tls"], "tls": {"batch": 1, "resumed_batch": 0, "capacity_clients": [1, 4]}}
    assert registry.figure_settings(older) == {"tls handshakes per sample": "1 (resumed 1)",
                                               "tls capacity figure": "whole round"}
    assert registry.figure_settings({"kinds": ["hash"], "tls": {"batch": 3}}) == {}


def test_the_tls_view_says_which_stretch_of_time_a_capacity_figure_is() -> None:
    from tlsbench.families.tls.tables import capacity_legend

    assert capacity_legend({"tls": {"capacity_window_ms": 100}}).endswith("in the fastest 100 ms window of its rounds")
    assert capacity_legend({"tls": {"capacity_clients": [1]}}).endswith("over the fastest of its rounds")
