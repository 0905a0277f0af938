"""Handshakes in batches ([tls] batch, and resumed_batch for resumed
handshakes): several connections per stored sample, their timed figures
summed and stored as that many operations, the exact ones (bytes, records,
heap) those of one connection, as without."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import env_without_agent_dir, tlsbench_cmd

from tlsbench.engine import agent
from tlsbench.engine.case import Sample
from tlsbench.engine.protocol import Record
from tlsbench.errors import PlanError
from tlsbench.families.tls import runner
from tlsbench.families.tls.cases import TlsCase, handshake_request
from tlsbench.families.tls.certs import make_chain
from tlsbench.plans.plan import parse_plan

EXACT = ("c2s_bytes", "s2c_bytes", "c2s_records", "s2c_records", "flights", "round_trips", "resumed",
         "total_c2s_bytes", "total_s2c_bytes", "bulk_bytes")


@pytest.fixture(scope="module")
def case() -> TlsCase:
    # RSA signatures have one length (an ECDSA one varies with the draws, which the host takes from the OS)
    return TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519", make_chain("rsa2048", "full", "server"), bulk=16384)


def _call(path, case: TlsCase, batch: int) -> list[Record]:
    res = agent.call(path, [handshake_request(case, repeats=2, warmup=1, batch=batch)], 60, "batch")
    resp = res.responses[0]
    assert resp.status == "ok", resp.message
    return [*resp.of_type("tls_warmup"), *resp.of_type("tls"), *resp.of_type("tls_memory")]


def test_a_batch_keeps_one_connections_bytes_and_heap(agents, case: TlsCase) -> None:
    one, three = _call(agents["mbedtls"], case, 1), _call(agents["mbedtls"], case, 3)
    assert [r.type for r in three] == ["tls_warmup", "tls", "tls", "tls_memory"]
    assert "batch" not in one[1].fields and "batch" not in three[0].fields  # a warm-up is one connection
    assert [int(r["batch"]) for r in three[1:3]] == [3, 3]
    for a, b in zip(one[1:3], three[1:3], strict=True):
        assert {k: a[k] for k in EXACT} == {k: b[k] for k in EXACT}
    assert one[3].fields == three[3].fields  # the memory pass: the same heap, byte for byte


@pytest.mark.parametrize("value", ["0", "1001", "x"])
def test_a_batch_out_of_range_is_refused_by_the_agent(agents, value: str) -> None:
    res = agent.call(agents["mbedtls"], [f"handshake batch={value}"], 30, "batch")
    assert (res.responses[0].status, res.responses[0].message) == ("bad_input", "field batch is malformed")


def test_batch_is_a_checked_plan_option() -> None:
    with pytest.raises(PlanError, match=r"p.toml:2: \[tls\] batch: must be integer 1..1000 .*got 0") as e:
        parse_plan("[tls]\nbatch = 0\n", "p.toml")
    assert "\n" not in str(e.value)
    with pytest.raises(PlanError, match=r"p.toml:2: \[tls\] batch: .*got 1001"):
        parse_plan("[tls]\nbatch = 1001\n", "p.toml")
    assert parse_plan("", "p.toml").tls.batch == 1 and parse_plan("[tls]\nbatch = 4\n", "p.toml").tls.batch == 4


def test_resumed_batch_is_a_checked_plan_option_for_resumed_cases_only() -> None:
    with pytest.raises(PlanError, match=r"p.toml:2: \[tls\] resumed_batch: must be integer 0..1000 .*got 1001"):
        parse_plan("[tls]\nresumed_batch = 1001\n", "p.toml")
    with pytest.raises(PlanError, match=r"p.toml:2: \[tls\] resumed_batch: must be integer 0..1000"):
        parse_plan("[tls]\nresumed_batch = -1\n", "p.toml")
    unset = parse_plan("[tls]\nbatch = 3\n", "p.toml").tls
    assert (unset.batch_for(False), unset.batch_for(True)) == (3, 3)  # 0: as batch
    both = parse_plan("[tls]\nbatch = 3\nresumed_batch = 10\n", "p.toml").tls
    assert (both.batch_for(False), both.batch_for(True)) == (3, 10)


@pytest.mark.parametrize("handshake, iters", [("full", 2), ("resume-ticket", 3)])
def test_a_resumed_case_is_measured_in_its_own_batches(agents, handshake: str, iters: int) -> None:
    plan = parse_plan('[select]\nlibraries = ["mbedtls"]\nkinds = ["tls"]\n[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\n'
                      f'groups = ["x25519"]\ncerts = ["ecdsa-p256"]\nhandshakes = ["{handshake}"]\nbatch = 2\n'
                      'resumed_batch = 3\n[method]\nrepeats = 2\nrounds = 1\nwarmup = 0\n', "p.toml")
    (c,) = runner.expand_tls(plan)
    m = runner.measure_tls(agents["mbedtls"], c, {"seed": "batch"}, plan, 0)
    assert m.status == "ok" and m.iters == iters
    assert {s.iters for s in m.samples if s.counter == "client_cpu_ns"} == {iters}


@pytest.mark.parametrize("handshake, iters", [("full", 2), ("resume-ticket", 3)])
def test_a_case_against_a_client_tool_is_measured_in_batches_too(agents, handshake: str, iters: int) -> None:
    """One tool process a connection: its server's connections are grouped
    in order, per-side CPU summed over the batch, bytes one connection's."""
    plan = parse_plan('[select]\nlibraries = ["openssl"]\nkinds = ["tls"]\n[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\n'
                      f'groups = ["x25519"]\ncerts = ["ecdsa-p256"]\nhandshakes = ["{handshake}"]\n'
                      'transports = ["tcp"]\nclients = ["openssl-s_client"]\nbatch = 2\nresumed_batch = 3\n'
                      '[method]\nrepeats = 2\nrounds = 1\nwarmup = 0\n', "p.toml")
    (c,) = [c for c in runner.expand_tls(plan) if c.op.endswith("client=openssl-s_client")]
    m = runner.measure_tls(agents["openssl"], c, {"seed": "batch"}, plan, 0)
    assert m.status == "ok" and m.iters == iters, m.reason
    cpu = [s for s in m.samples if s.counter == "server_cpu_ns"]
    assert sorted(s.idx for s in cpu) == [0, 1] and {s.iters for s in cpu} == {iters}
    assert {s.iters for s in m.samples if s.counter == "s2c_bytes"} == {1}


def _side(i: int, cpu: int, sent: int) -> Record:
    return Record("tls_side", {"i": i, "cpu_ns": cpu, "handshake_ns": 10 * cpu, "sent_bytes": sent})


def test_tcp_connections_are_grouped_in_order() -> None:
    recs = [_side(i, cpu, sent) for i, (cpu, sent) in enumerate([(1, 300), (2, 301), (3, 302), (4, 303)])]
    got = runner._grouped(list(recs), runner.TCP_CLIENT_METRICS, 10, 2)
    assert sorted(got, key=lambda s: (s.counter, s.idx)) == [
        Sample(10, False, 1, "c2s_bytes", 300), Sample(11, False, 1, "c2s_bytes", 302),
        Sample(10, False, 2, "client_cpu_ns", 3), Sample(11, False, 2, "client_cpu_ns", 7),
        Sample(10, False, 2, "handshake_wall_ns", 30), Sample(11, False, 2, "handshake_wall_ns", 70)]
    # a batch of one is each connection alone, as before batches
    assert sorted(runner._grouped(list(recs), runner.TCP_CLIENT_METRICS, 0, 1), key=lambda s: (s.counter, s.idx)) \
        == sorted(runner._samples(recs, runner.TCP_CLIENT_METRICS, 0),
                  key=lambda s: (s.counter, s.idx))
    # a side that did not report one connection leaves out its group only
    assert {s.idx for s in runner._grouped([recs[0], None, recs[2], recs[3]], runner.TCP_CLIENT_METRICS, 0, 2)} == {1}


def test_a_round_stores_per_handshake_times_over_the_batch(agents, tmp_path) -> None:
    plan = parse_plan('[select]\nlibraries = ["mbedtls"]\nkinds = ["tls"]\n[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\n'
                      'groups = ["x25519"]\ncerts = ["ecdsa-p256"]\nbatch = 2\n[method]\nrepeats = 2\nrounds = 1\n'
                      'warmup = 0\n', "p.toml")
    (c,) = runner.expand_tls(plan)
    m = runner.measure_tls(agents["mbedtls"], c, {"seed": "batch"}, plan, 0)
    assert m.status == "ok" and m.iters == 2
    iters = {s.counter: s.iters for s in m.samples}
    assert iters["client_cpu_ns"] == iters["server_cpu_ns"] == iters["exchange_wall_ns"] == 2
    assert iters["c2s_bytes"] == iters["client_heap_peak_bytes"] == iters["client_stack_bytes"] == 1


def test_callgrind_is_a_checked_plan_option() -> None:
    with pytest.raises(PlanError, match=r"p.toml:2: \[tls\] callgrind: must be true or false"):
        parse_plan("[tls]\ncallgrind = 1\n", "p.toml")
    assert parse_plan("[tls]\ncallgrind = true\n", "p.toml").tls.callgrind is True


def test_the_callgrind_switch_sets_the_plan_option() -> None:
    from tlsbench.cli import parser
    from tlsbench.cli.run import plan_from_args as _plan_from_args

    plan = _plan_from_args(parser().parse_args(["run", "--preset", "tls", "--callgrind"]))[0]
    assert plan.tls.callgrind is True
    assert _plan_from_args(parser().parse_args(["run", "--preset", "tls"]))[0].tls.callgrind is False


def test_two_host_runs_of_a_callgrind_plan_count_the_same(agents, tmp_path: Path) -> None:
    # each run makes its material when it starts; a plan that asks for callgrind's counts takes the seeded
    # material and its frozen clock, so a second run counts the same certificates and keys to the instruction;
    # OpenSSL and GnuTLS, which seed their own generators from the OS, draw the agent's fixed stream there
    libraries = ("mbedtls", "openssl", "gnutls")
    plan = tmp_path / "callgrind.toml"
    plan.write_text(f'[select]\nlibraries = {json.dumps(list(libraries))}\nkinds = ["tls"]\n[tls]\n'
                    'suites = ["TLS_AES_128_GCM_SHA256"]\ngroups = ["x25519"]\ncerts = ["ecdsa-p256"]\n'
                    'callgrind = true\n[method]\nwarmup = 0\nrepeats = 1\nrounds = 1\n')
    counts = []
    # the second run's environment is longer (it sits above the agent's stack, whose place in its page moves
    # what the C library's string functions count: the agent starts its stack at a fixed offset there)
    for name, padding in (("first", ""), ("second", "x" * 3001)):
        env = {**env_without_agent_dir(), "TLSBENCH_TEST_PADDING": padding}
        p = subprocess.run([*tlsbench_cmd(), "run", "--db", str(tmp_path / f"{name}.sqlite"), "--json", "--plan",
                            str(plan)], capture_output=True, text=True, env=env, timeout=600)
        assert p.returncode == 0, p.stderr
        rows = [json.loads(line) for line in p.stdout.splitlines()]
        counts.append({(r["case"].split("/")[0], r["metric"]): r["median"] for r in rows
                       if "callgrind" in (r.get("metric") or "")})
    assert sorted(counts[0]) == [(lib, f"{side}_callgrind_instructions") for lib in sorted(libraries)
                                 for side in ("client", "server")]
    assert counts[0] == counts[1] and min(counts[0].values()) > 1_000_000, counts
