"""The minimum-RAM search: the bisection on its own, the family's probes on a
fake agent, and the real agents' heap cap (exact, identical run to run)."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import env_without_agent_dir, tlsbench_cmd

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.engine.store import RunInfo
from tlsbench.errors import PlanError
from tlsbench.families import registry
from tlsbench.families.minram import fits as fits_view
from tlsbench.families.minram import search
from tlsbench.families.minram.family import fixed_env, measure_min_ram
from tlsbench.families.tls import runner as tls_runner
from tlsbench.families.tls.cases import case_fields
from tlsbench.families.tls.names import TlsVariant
from tlsbench.plans.plan import parse_plan
from tlsbench.report import html as html_report
from tlsbench.report.tables import RunData, aligned

FAKE = Path(__file__).parents[1] / "fake_minram_agent.py"


def _threshold(need: int, calls: list[list[int]], bounds: bool = False) -> search.Probe:
    def probe(limits: list[int]) -> list[search.Outcome]:
        calls.append(list(limits))
        return [search.Outcome(n >= need, need if bounds else None) for n in limits]
    return probe


@pytest.mark.parametrize("ways", [1, 3, 7])
@pytest.mark.parametrize("need,start", [(0, 0), (0, 500), (1, 1), (12345, 20000), (19999, 20000), (20000, 20000)])
def test_search_finds_the_threshold_and_confirms_it(need: int, start: int, ways: int) -> None:
    calls: list[list[int]] = []
    got = search.min_limit(_threshold(need, calls), start, ways)
    assert got.limit == need
    # the last call confirms: the limit passes and the limit minus one fails, asked together
    assert calls[-1] == ([need, need - 1] if need else [0])
    assert got.calls == len(calls) and got.probes == sum(map(len, calls))
    assert all(len(c) <= max(ways, 2) for c in calls)


def test_more_ways_mean_fewer_calls() -> None:
    one: list[list[int]] = []
    seven: list[list[int]] = []
    search.min_limit(_threshold(31337, one), 40000, 1)
    search.min_limit(_threshold(31337, seven), 40000, 7)
    # 1 bracket + 15 halvings of 40001 (or 5 eighths) + 1 confirmation
    assert len(one) == 17 and len(seven) == 7


def test_bounds_from_the_probes_shorten_the_search_to_the_same_limit() -> None:
    calls: list[list[int]] = []
    assert search.min_limit(_threshold(31337, calls, bounds=True), 40000).limit == 31337
    # the pass at 40000 peaked at 31337 and the failure at 15668 needed 31337: nothing is left between
    assert calls == [[40000], [15668], [31337, 31336]]


def test_a_peak_that_fails_grows_until_it_passes() -> None:
    calls: list[list[int]] = []
    assert search.min_limit(_threshold(3000, calls), 1000, 1).limit == 3000
    assert calls[:3] == [[1000], [2000], [4000]]


def test_no_pass_at_all_is_an_error() -> None:
    with pytest.raises(search.SearchError, match="no pass even at 16000 bytes"):
        search.min_limit(lambda limits: [search.Outcome(False)] * len(limits), 1000, 1)


def test_a_minimum_that_does_not_hold_when_confirmed_is_an_error() -> None:
    answers = iter([[search.Outcome(b) for b in got] for got in ([True], [False], [True], [True, True])])
    # 2 passes in the search, 1 when confirmed
    with pytest.raises(search.SearchError, match="1 bytes passed when confirmed"):
        search.min_limit(lambda limits: next(answers), 4, 1)


def _agent(tmp_path: Path) -> Path:
    exe = tmp_path / "agent"
    exe.write_text(f"#!{sys.executable}\nexec(open({str(FAKE)!r}).read())\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def test_the_family_searches_each_side_through_agent_probes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_NEED", "client=5000,server=7321")
    m = measure_min_ram(_agent(tmp_path), "fake", {"version": 13}, 0, 30)
    assert m.status == "ok", m.reason
    got = {s.counter: s.total for s in m.samples}
    assert got == {"client_min_heap_bytes": 5000, "server_min_heap_bytes": 7321,
                   "client_conn_heap_peak_bytes": 6000, "server_conn_heap_peak_bytes": 8321,
                   "client_endpoint_heap_bytes": 700, "server_endpoint_heap_bytes": 900,
                   "client_stack_bytes": 600, "server_stack_bytes": 832}  # measured at the limit found


def test_a_probe_that_crashes_the_agent_counts_as_failed_and_is_reported(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FAKE_NEED", "client=5000,server=7321")
    # the client's first bisection point: between -1 and 5000 (the peak of the pass at the uncapped peak)
    monkeypatch.setenv("FAKE_CRASH", "2499")
    m = measure_min_ram(_agent(tmp_path), "fake", {"version": 13}, 0, 30)
    assert m.status == "ok"
    assert {s.counter: s.total for s in m.samples}["client_min_heap_bytes"] == 5000
    assert m.reason.startswith("1 probes crashed the agent: client at 2499 B")


# ---- the real agents (host): the cap, the search, the record-size option ----

ECDHE_ECDSA = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"


def _fields(suite: str, op: str) -> dict[str, object]:
    keys = {"seed": "min-ram-test"}  # seeded chains: the same certificates in every run of the test
    return case_fields(tls_runner.tls_case(suite, TlsVariant.parse(op), keys, 0))


def _ask(path: Path, fields: dict[str, object], **extra: object) -> agent.Response:
    req = encode_request("handshake", **fields, **extra)
    return agent.call(path, [req], 60, "min-ram test", fixed_env()).responses[0]


def test_the_least_heap_is_exact_the_same_in_two_runs_and_one_byte_less_fails(agents) -> None:
    fields = _fields(ECDHE_ECDSA, "x25519/ecdsa-p256-full")
    first = measure_min_ram(agents["wolfssl"], "wolfssl min-ram", fields, 0, 60)
    again = measure_min_ram(agents["wolfssl"], "wolfssl min-ram", fields, 0, 60)
    assert first.status == "ok", first.reason
    got = {s.counter: s.total for s in first.samples}
    assert got == {s.counter: s.total for s in again.samples}
    for side in ("client", "server"):
        limit = got[f"{side}_min_heap_bytes"]
        assert 0 < limit <= got[f"{side}_conn_heap_peak_bytes"]
        assert got[f"{side}_stack_bytes"] > 0
        ok = _ask(agents["wolfssl"], fields, repeats=0, warmup=0, heap_limit=limit, heap_limit_side=side)
        short = _ask(agents["wolfssl"], fields, repeats=0, warmup=0, heap_limit=limit - 1, heap_limit_side=side)
        assert ok.status == "ok" and short.status == "error", (ok.message, short.message)
        cap = ok.of_type("tls_cap")[0]
        assert int(cap[f"{side}_heap_peak"]) <= limit
        # one byte short, the first block refused is the one that brings the side to exactly the limit
        failed = short.of_type("tls_cap")[0]
        assert (failed["passed"], failed["first_need"]) == (0, limit) and "client_heap_peak" not in failed.fields


def test_a_capped_request_keeps_its_timed_connections_clean(agents) -> None:
    fields = _fields(ECDHE_ECDSA, "x25519/ecdsa-p256-full")
    r = _ask(agents["mbedtls"], fields, repeats=1, warmup=0, heap_limit=1 << 30, heap_limit_side="client")
    assert r.status == "ok", r.message
    assert len(r.of_type("tls")) == 1 and int(r.of_type("tls_cap")[0]["refusals"]) == 0
    assert int(r.of_type("process_heap")[0]["timed_heap_calls"]) == 0


@pytest.mark.parametrize("extra,message", [
    ({"heap_limit": 1000}, "heap_limit and heap_limit_side go together"),
    ({"heap_limit_side": "client"}, "heap_limit and heap_limit_side go together"),
    ({"heap_limit": 1000, "heap_limit_side": "both"}, "field heap_limit_side is malformed"),
    ({"max_frag": 300}, "field max_frag is malformed"),
])
def test_bad_cap_and_fragment_fields_are_refused(agents, extra: dict, message: str) -> None:
    r = _ask(agents["mbedtls"], _fields(ECDHE_ECDSA, "x25519/ecdsa-p256-full"), repeats=1, **extra)
    assert (r.status, r.message) == ("bad_input", message)


@pytest.mark.parametrize("extra,message", [
    ({"repeats": 1, "heap_limit": 1000, "heap_limit_side": "client"},
     "a heap_limit probe runs no other connection: repeats and warmup must be 0"),
    ({"repeats": 0, "heap_limit": 1000, "heap_limit_side": "server"}, "heap_limit_side must be the side on the device"),
])
def test_bad_device_side_probes_are_refused_before_any_connection(agents, extra: dict, message: str) -> None:
    req = encode_request("tls-device", side="client", **_fields(ECDHE_ECDSA, "x25519/ecdsa-p256-full"), **extra)
    r = agent.call(agents["mbedtls"], [req], 60, "min-ram test").responses[0]
    assert (r.status, r.message) == ("bad_input", message)


def test_the_maximum_fragment_length_is_negotiated_or_reported_unsupported(agents) -> None:
    fields = _fields(ECDHE_ECDSA, "x25519/ecdsa-p256-full/mfl=512")
    for lib in ("mbedtls", "wolfssl"):
        r = _ask(agents[lib], fields, repeats=0, warmup=0, heap_limit=1 << 30, heap_limit_side="client")
        assert r.status == "ok", r.message
        assert int(r.of_type("tls_cap")[0]["max_frag"]) == 512  # the server accepted it
    tls13 = _fields("TLS_AES_128_GCM_SHA256", "x25519/ecdsa-p256-full/mfl=512")
    r = _ask(agents["mbedtls"], tls13, repeats=1)
    assert (r.status, r.message) == ("unsupported", "Mbed TLS 3.6 asks for a maximum fragment length in TLS 1.2 only")
    r = _ask(agents["openssl"], fields, repeats=1)
    assert (r.status, r.message) == ("unsupported", "this adapter does not ask for a maximum fragment length")


# ---- plans, names and the fits view ----

def test_plan_and_name_errors_for_the_fragment_option() -> None:
    with pytest.raises(PlanError, match=r"p.toml:2: \[tls\] max_fragment: must be a non-empty list of: 0, 512"):
        parse_plan('[tls]\nmax_fragment = [300]\n', "p.toml")
    plan = parse_plan('[select]\nkinds = ["min-ram"]\nlibraries = ["wolfssl"]\n[tls]\nsuites = ["' + ECDHE_ECDSA
                      + '"]\ngroups = ["x25519"]\ncerts = ["ecdsa-p256"]\nmax_fragment = [0, 512]\n', "p.toml")
    names = [c.name for f in registry.FAMILIES for c in f.expand(plan)]
    assert names == [f"wolfssl/min-ram/{ECDHE_ECDSA}/x25519/ecdsa-p256-full",
                     f"wolfssl/min-ram/{ECDHE_ECDSA}/x25519/ecdsa-p256-full/mfl=512"]
    assert TlsVariant.parse("x25519/ecdsa-p256-full/resume-psk-only+mfl=1024").max_frag == 1024
    with pytest.raises(ValueError, match="unknown TLS case option 'mfl=300'"):
        TlsVariant.parse("x25519/ecdsa-p256-full/mfl=300")


def _case(name: str, status: str = "ok", **res: int) -> dict:
    lib, kind, alg = name.split("/")
    return {"name": name, "library": lib, "kind": kind, "alg": alg, "op": "x25519/ecdsa-p256-full", "size": None,
            "status": status, "reason": "why", "results": {k: {"median": v} for k, v in res.items()}}


def test_fits_adds_heap_stack_and_static_ram_and_leaves_the_harness_apart() -> None:
    sides = {f"{s}_{m}": v for s in ("client", "server")
             for m, v in (("endpoint_heap_bytes", 1000), ("min_heap_bytes", 20000), ("stack_bytes", 2000))}
    run = RunInfo(1, 0.0, 0.0, "complete", "qemu:mps2-an386", "min-ram", "", {}, {}, "test", {})
    data = RunData(run=run, libraries=[], checks=[],
                   cases=[_case("wolfssl/min-ram/x", **sides), _case("mbedtls/min-ram/y", "unsupported")],
                   code_sizes=[{"library": "wolfssl", "component": "library", "flash_bytes": 1, "ram_bytes": 600},
                               {"library": "wolfssl", "component": "C runtime (newlib, libgcc)", "flash_bytes": 1,
                                "ram_bytes": 400},
                               {"library": "wolfssl", "component": fits_view.HARNESS, "flash_bytes": 1,
                                "ram_bytes": 9000}])
    f = fits_view.fits(data.cases, data.code_sizes)
    assert [(r.side, r.total) for r in f.rows] == [("client", 24000), ("server", 24000)]
    assert f.harness_ram == {"wolfssl": 9000}
    assert f.skipped == [("mbedtls/min-ram/y", "unsupported: why")]
    text = fits_view.render(f, aligned)
    assert text.splitlines()[2].split()[-5:] == ["no", "yes", "yes", "yes", "yes"]  # 20, 32, ... 256 KiB
    assert "harness static RAM, not in the totals: wolfssl image 9,000 B" in text
    section = [h for anchor, _title, h in html_report.tables(data) if anchor == "fits"]
    assert len(section) == 1 and "24,000" in section[0] and "not shown: mbedtls/min-ram/y" in section[0]


def test_a_device_case_fits_its_own_side_only_and_expands_with_the_plans_device_side() -> None:
    # the host peer's side is never searched: the device's side alone is a row, nothing is "not shown"
    case = {**_case("mbedtls/min-ram/x", client_endpoint_heap_bytes=1000, client_min_heap_bytes=20000,
                    client_stack_bytes=2000, device_harness_heap_bytes=2100),
            "op": "x25519/ecdsa-p256-full/device=client"}
    f = fits_view.fits([case], [{"library": "mbedtls", "component": "library", "flash_bytes": 1, "ram_bytes": 10}])
    assert [(r.side, r.total) for r in f.rows] == [("client", 23010)] and f.skipped == []
    # the harness's heap beside the device's side (rx line, uploads) is named apart, never in the total
    assert f.harness_heap == {"mbedtls": 2100}
    assert ("harness heap beside the device's side (its rx line, an uploaded chain and key), not in the totals:"
            " mbedtls up to 2,100 B") in fits_view.notes(f)
    plan = parse_plan('''
[select]
libraries = ["mbedtls"]
kinds = ["min-ram"]
[tls]
suites = ["TLS_AES_128_GCM_SHA256"]
groups = ["x25519"]
certs = ["ecdsa-p256"]
device_side = "server"
''')
    assert plan.device_side == "server"  # the runner then uses the board's one-side image
    ops = [c.op for c in registry.family_of("min-ram").expand(plan)]
    assert ops and all(TlsVariant.parse(op).device == "server" for op in ops), ops


def test_fits_of_a_run_without_min_ram_cases_is_one_clear_error(agents, db_path: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*tlsbench_cmd(), "--db", str(db_path), *args], capture_output=True, text=True,
                              timeout=300, env=env_without_agent_dir())
    made = cli("run", "--libraries", "mbedtls", "--kinds", "hash", "--algorithms", "sha256", "--sizes", "64",
               "--repeats", "1", "--rounds", "1", "--warmup", "0", "--no-progress", "-q")
    assert made.returncode == 0, made.stderr
    r = cli("fits")
    assert r.returncode != 0
    assert r.stderr.strip().splitlines() == [
        "tlsbench: error: run 1 has no min-ram cases (tlsbench run --preset min-ram makes them)"]
    bad = cli("fits", "--format", "html")
    assert bad.returncode == 2 and "invalid choice: 'html'" in bad.stderr


def test_a_tls_case_with_a_fragment_length_records_what_was_negotiated(agents) -> None:
    plan = parse_plan('[select]\nkinds = ["tls"]\nlibraries = ["wolfssl"]\n[tls]\nsuites = ["' + ECDHE_ECDSA
                      + '"]\ngroups = ["x25519"]\ncerts = ["ecdsa-p256"]\nmax_fragment = [1024]\n'
                      '[method]\nrepeats = 1\nwarmup = 0\n', "p.toml")
    case = tls_runner.expand_tls(plan)[0]
    assert case.op == "x25519/ecdsa-p256-full/mfl=1024"
    m = tls_runner.measure_tls(agents["wolfssl"], case, {"seed": "min-ram-test"}, plan, 0)
    assert m.status == "ok", m.reason
    assert {s.counter: s.total for s in m.samples}["negotiated_max_frag_bytes"] == 1024


def test_only_a_failure_with_one_refusal_bounds_the_search(tmp_path: Path, monkeypatch) -> None:
    from tlsbench.families.minram.family import _Prober
    monkeypatch.setenv("FAKE_NEED", "client=5000,server=7321")
    p = _Prober(_agent(tmp_path), "fake", {"version": 13}, 30)
    assert p.passes("client")([4000, 4001, 5000]) == [
        search.Outcome(False, 4010), search.Outcome(False, None), search.Outcome(True, 5000)]
