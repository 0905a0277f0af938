"""Timed passes without our instruments in them, placed on purpose, paced by
a reference workload: exact facts only (calls, offsets, results, attempts),
never a timing."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tlsbench import paths
from tlsbench.engine import agent, layout, pacing, runner, settling
from tlsbench.engine.protocol import encode_request
from tlsbench.engine.store import Store
from tlsbench.plans.plan import Method, Plan

LIBS = ("mbedtls", "wolfssl", "openssl", "gnutls")
SHIPPED_STEADY_SPEED = settling.STEADY_SPEED  # before conftest turns settling off
X25519_BASE = (9).to_bytes(32, "little")  # a valid peer public key for every library


def _bench(lib: str, **fields) -> agent.Response:
    req = encode_request("bench", kind="kex", alg="x25519", op="derive", key=bytes(range(32)), peer=X25519_BASE,
                         warmup=1, repeats=2, min_ns=100_000, **fields)
    resp = agent.call(paths.agent_path(lib), [req], 60, f"{lib} x25519").responses[0]
    assert resp.status == "ok", resp.message
    return resp


@pytest.mark.parametrize("library", LIBS)
def test_timed_passes_reach_no_accounting(agents, library: str) -> None:
    """With the hooks forwarding only, no allocation of the timed passes is
    counted; asked to count inside them (count_timed=1), every allocation of
    the operation is, so the counter is known to see them."""
    clean = _bench(library)
    assert clean.of_type("calib")[0]["timed_heap_calls"] == 0
    counted = _bench(library, count_timed=1)
    (calib,) = counted.of_type("calib")
    allocs = counted.of_type("memory")[0]["allocs"]
    # calibration, one warm-up and two samples: at least 4 operations, an alloc and a free each
    assert calib["timed_heap_calls"] >= 2 * 4 * allocs
    # the memory pass does not depend on what the timed passes did
    assert clean.of_type("memory")[0].fields == counted.of_type("memory")[0].fields


@pytest.mark.parametrize("library", LIBS)
def test_timed_handshakes_reach_no_accounting(agents, library: str) -> None:
    from tlsbench.families.tls.cases import TlsCase, handshake_request
    from tlsbench.families.tls.certs import make_chain

    req = handshake_request(TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519", make_chain("ecdsa-p256")),
                            repeats=2, warmup=1)
    resp = agent.call(agents[library], [req], 60, "handshake").responses[0]
    assert resp.status == "ok", resp.message
    assert resp.of_type("process_heap")[0]["timed_heap_calls"] == 0
    (mem,) = resp.of_type("tls_memory")  # one counted connection: the heap figures
    assert mem["client_heap_peak"] > 0 and mem["server_heap_peak"] > 0
    assert all("client_heap_peak" not in r.fields for r in resp.of_type("tls"))


@pytest.mark.parametrize("at", [0, 16, 32, 2048, 4080])
def test_the_timed_frame_lands_where_asked(agents, at: int) -> None:
    resp = _bench("mbedtls", stack_at=at, heap_shift=4096)
    (calib,) = resp.of_type("calib")
    assert (calib["stack_at"], calib["heap_shift"]) == (at, 4096)


def test_placement_does_not_change_memory_figures(agents) -> None:
    for lib in LIBS:
        plain = _bench(lib).of_type("memory")[0].fields
        placed = _bench(lib, stack_at=48, heap_shift=1008).of_type("memory")[0].fields
        assert plain == placed, lib


def test_bad_layout_fields_are_one_clear_error(agents) -> None:
    for extra in ("stack_at=4097", "stack_shift=70000", "count_timed=2", "stack_at=16 stack_shift=32"):
        req = encode_request("bench", kind="hash", alg="sha256", op="hash", size=64) + " " + extra
        resp = agent.call(agents["mbedtls"], [req], 30, "bad").responses[0]
        assert resp.status == "bad_input" and "stack_at 0..4095" in resp.message, extra


def test_placements_spread_rounds_over_the_page_and_both_phases() -> None:
    for rounds in (1, 2, 3, 5):
        ps = [layout.placement(7, "mbedtls/aead/aes-128-gcm/encrypt/1024", r, rounds) for r in range(rounds)]
        assert all(p.stack_at % 16 == 0 and 0 <= p.stack_at < 4096 for p in ps)
        assert all(p.heap_shift % 16 == 0 and 0 <= p.heap_shift < 4096 for p in ps)
        assert len({p.stack_at for p in ps}) == rounds
        # consecutive rounds alternate the two 16-byte phases of a 32-byte pattern
        assert all((a.stack_at - b.stack_at) % 32 == 16 for a, b in zip(ps, ps[1:], strict=False))
    assert layout.placement(7, "x", 0, 3) == layout.placement(7, "x", 0, 3)  # from the seed, not the clock
    assert {layout.placement(s, "x", 0, 3).stack_at for s in range(20)} != {layout.placement(7, "x", 0, 3).stack_at}


def test_the_reference_workload_is_the_documented_computation(agents) -> None:
    """Eight lanes (the paced reference) and the single chain of runs stored before it, as the Python
    definition computes them; the default steps give pacing.RESULT; anything else is refused."""
    for lib in ("mbedtls", "selftest"):
        for lanes in (1, 8):
            resp = agent.call(paths.agent_path(lib), [f"reference steps=1000 lanes={lanes}"], 30, "ref").responses[0]
            (rec,) = resp.of_type("reference")
            assert rec["result"] == pacing.xorshift_lanes(1000, lanes) and rec["steps"] == 1000
    assert pacing.xorshift_lanes(1000, 1) != pacing.xorshift_lanes(1000, 8)
    assert pacing.reference_ns(paths.agent_path("openssl")) > 0  # the default steps give pacing.RESULT
    for bad in ("steps=0", "lanes=4", "lane=8"):
        resp = agent.call(agents["mbedtls"], [f"reference {bad}"], 30, "ref").responses[0]
        assert resp.status == "bad_input" and "steps=1..1000000000 and lanes=1 or 8" in resp.message


def _queue(fake_agent_dir: Path, monkeypatch, variable: str, values: list[int]) -> Path:
    """The fake agent's answers in call order (tests/fake_agent.py), from a file it consumes."""
    path = fake_agent_dir / variable.lower()
    path.write_text("\n".join(str(n) for n in values))
    monkeypatch.setenv(variable, str(path))
    return path


@pytest.fixture
def settling_on(monkeypatch) -> None:
    """Settling as shipped (conftest turns it off elsewhere), with a clock that never runs out."""
    monkeypatch.setattr(settling, "STEADY_SPEED", SHIPPED_STEADY_SPEED)
    monkeypatch.setattr(settling, "clock", lambda: 0.0)


def test_a_slow_round_is_flagged_and_the_report_says_so(fake_agent_dir: Path, db_path: Path, monkeypatch) -> None:
    """References (ns) in call order: three to prime the run's best (1000),
    then each round's before and after, in the agent that measures it: the
    first case 2000 and 2100 (slower than 0.9 of the best: flagged slow), the
    second 1050 and 1040, the third 1000 before but 1500 after (a phase began
    during the round: the slower of the two decides, flagged slow). Each round
    is measured once (with settling off, as conftest has it); the six
    references make the run's steadiness line."""
    refs = _queue(fake_agent_dir, monkeypatch, "FAKE_REFERENCE_NS",
                  [1000, 1000, 1000, 2000, 2100, 1050, 1040, 1000, 1500])
    store = Store(db_path)
    plan = Plan(name="pace", libraries=["openssl"], kinds=["hash"], algorithms=["sha256"], sizes=[64, 128, 256],
                method=Method(warmup=0, repeats=2, rounds=1, outliers="none", min_sample_ms=1, timeout_s=10))
    run_id = runner.run(plan, "test", store, show_progress=False)
    assert refs.read_text() == ""  # every reference was asked for, and no other
    rows = {r["name"]: r for r in store.case_rounds(run_id)}
    first, second = rows["openssl/hash/sha256/hash/64"], rows["openssl/hash/sha256/hash/128"]
    assert (first["attempts"], first["reference_ns"], first["best_reference_ns"], first["slow"]) == (1, 2000, 1000, 1)
    assert (second["attempts"], second["reference_ns"], second["slow"]) == (1, 1050, 0)
    assert (first["reference_after_ns"], second["reference_after_ns"]) == (2100, 1040)
    third = rows["openssl/hash/sha256/hash/256"]
    assert (third["attempts"], third["reference_ns"], third["reference_after_ns"], third["slow"]) == (1, 1000, 1500, 1)
    # the requested placement is what is stored (the fake agent reports none of its own)
    expected = layout.placement(run_id, "openssl/hash/sha256/hash/64", 0, 1)
    assert (first["stack_at"], first["heap_shift"]) == (expected.stack_at, expected.heap_shift)
    (case,) = [c for c in store.cases(run_id) if c["name"] == "openssl/hash/sha256/hash/64"]
    assert len([s for s in store.samples(case["id"]) if s["counter"] == "wall_ns"]) == 2
    # and the report says so, in one line of its context
    from tlsbench.report import tables as report

    text = report.render(report.load(store, run_id), "table")
    assert "SLOW PHASE: 2 of 3 rounds ran while the reference workload was slow (after measuring again)," \
           " in 2 cases: openssl/hash/sha256/hash/256, openssl/hash/sha256/hash/64" in text
    assert "machine unsteady: speed moved 0.48-1.00x, p5-p95 ±63%, 50% of references below 0.9 over 6 samples" \
        in text
    # and every other format carries the flag too, per case
    data = report.load(store, run_id)
    assert "SLOW PHASE: 2 of 3 rounds" in report.render(data, "markdown")
    rows = list(csv.DictReader(io.StringIO(report.render(data, "csv"))))
    assert {r["case"]: r["slow_rounds"] for r in rows} == {"openssl/hash/sha256/hash/64": "1",
                                                          "openssl/hash/sha256/hash/128": "0",
                                                          "openssl/hash/sha256/hash/256": "1"}
    doc = json.loads(report.render(data, "json"))
    assert doc["slow_phase"] == {"rounds": 3, "slow_rounds": 2, "cases": {"openssl/hash/sha256/hash/256": 1,
                                                                          "openssl/hash/sha256/hash/64": 1}}
    assert doc["machine_steadiness"].startswith("machine unsteady: speed moved 0.48-1.00x")
    from tlsbench.report import export, html

    assert "Slow phase: 2 of 3 rounds" in html.render(data)
    assert "<p>machine unsteady: speed moved 0.48-1.00x" in html.render(data)
    assert "<td>openssl/hash/sha256/hash/64</td><td>1</td>" in html.render(data).replace("\n", "")
    assert "SLOW PHASE: 2 of 3 rounds" in export.markdown(data, [])


def test_a_case_without_a_steady_round_is_measured_again_at_the_end(
        fake_agent_dir: Path, db_path: Path, monkeypatch, settling_on, caplog) -> None:
    """Two rounds of three cases. References in call order: the run's priming
    (best 1000), then the first case's first round 2000/2000 (slow), the
    second's 1000/1000 (steady), the third's 1000/1500 (slow). The machine was
    slow after it, so the next round is the second case's second (it has a
    steady round already: 1800/1900), and the first and third cases' second
    rounds follow (1200/1200, 1000/1000: the third is steady now). Only the
    first case has no round with both references at 0.9 of the best. At the
    end of the run it waits for a fast phase (2000: slow, then 1000) and its
    slowest round, the first, is measured again (1010/1020): steady, kept.
    The fake agent's bench answers in call order (5000, 1000, 1000, 4000,
    3000, 1000, then 1000 for the attempt) show the order; the first case's
    samples are the new attempt's in place of the old round's, its figure is
    summarised again, and its JSON lines come last, with the new figure."""
    refs = _queue(fake_agent_dir, monkeypatch, "FAKE_REFERENCE_NS",
                  [1000, 1000, 1000, 2000, 2000, 1000, 1000, 1000, 1500, 1800, 1900, 1200, 1200, 1000, 1000,
                   2000, 1000, 1010, 1020])
    benches = _queue(fake_agent_dir, monkeypatch, "FAKE_BENCH_NS", [5000, 1000, 1000, 4000, 3000, 1000, 1000])
    store = Store(db_path)
    plan = Plan(name="settle", libraries=["openssl"], kinds=["hash"], algorithms=["sha256"], sizes=[64, 128, 256],
                method=Method(warmup=0, repeats=2, rounds=2, outliers="none", min_sample_ms=1, timeout_s=10))
    lines = io.StringIO()
    with caplog.at_level("INFO"):
        run_id = runner.run(plan, "test", store, show_progress=False, json_out=lines)
    assert refs.read_text() == "" and benches.read_text() == ""  # every answer was asked for, and no other
    rows = {(r["name"], r["round"]): r for r in store.case_rounds(run_id)}
    settled = rows[("openssl/hash/sha256/hash/64", 0)]
    assert (settled["attempts"], settled["reference_ns"], settled["reference_after_ns"], settled["slow"]) == \
        (2, 1010, 1020, 0)
    assert rows[("openssl/hash/sha256/hash/64", 1)]["attempts"] == 1
    assert [rows[(f"openssl/hash/sha256/hash/{n}", 1)]["reference_ns"] for n in (64, 128, 256)] == [1200, 1800, 1000]
    assert all(r["attempts"] == 1 for (name, _), r in rows.items() if not name.endswith("/64"))
    (case,) = [c for c in store.cases(run_id) if c["name"] == "openssl/hash/sha256/hash/64"]
    assert sorted(s["total"] for s in store.samples(case["id"]) if s["counter"] == "wall_ns") == [1000, 3000]
    (second,) = [c for c in store.cases(run_id) if c["name"] == "openssl/hash/sha256/hash/128"]
    assert sorted(s["total"] for s in store.samples(second["id"]) if s["counter"] == "wall_ns") == [1000, 4000]
    (wall,) = [r for r in store.results(run_id) if r["name"] == case["name"] and r["metric"] == "wall_ns"]
    assert (wall["min"], wall["max"], wall["n"]) == (100.0, 300.0, 2)
    assert "--- round 1, measured again ---" in case["transcript"]
    from tlsbench.engine import steadiness

    assert steadiness.run_line(dict(r) for r in store.case_rounds(run_id)).endswith(
        "over 12 samples; 1 of 6 rounds measured again (1 more attempts, the fastest kept)")
    assert ("settling: 1 case(s) had no steady round (both references at 0.9 of the run's best): 1 now have one"
            " after 1 round(s) measured again (1 kept), 2 reference(s) timed waiting for a fast phase") in caplog.text
    order = [json.loads(line)["case"] for line in lines.getvalue().splitlines()]
    assert order[-1] == "openssl/hash/sha256/hash/64" and order.index("openssl/hash/sha256/hash/64") > \
        order.index("openssl/hash/sha256/hash/256")
    figures = {json.loads(line)["metric"]: json.loads(line)["min"] for line in lines.getvalue().splitlines()
               if json.loads(line)["case"] == "openssl/hash/sha256/hash/64"}
    assert figures["wall_ns"] == 100.0


def test_the_machines_phase_picks_the_next_round() -> None:
    """Fast: the first round of a case still lacking a steady round; slow: the first of a case that has
    one; none such: plan order; a case's own rounds never swap."""
    pending = [(0, "a"), (0, "b"), (1, "a"), (1, "b"), (2, "a"), (2, "b")]
    phases = iter([True, False, True, False, False, True])
    steady = {"b"}
    order = list(settling.phase_order(list(pending), str, lambda c: c not in steady, lambda: next(phases)))
    assert order == [(0, "a"), (0, "b"), (1, "a"), (1, "b"), (2, "b"), (2, "a")]
    phases = iter([False] * 6)
    assert list(settling.phase_order(list(pending), str, lambda c: True, lambda: next(phases))) == pending


def test_an_attempt_no_faster_is_counted_and_not_kept(
        fake_agent_dir: Path, db_path: Path, monkeypatch, settling_on) -> None:
    """One round of one case, slow (2000/2000). At the end a reference says
    the machine is fast (1000), but the attempt's own references are slower
    still (2500/2500): the round keeps its samples and references, its
    attempts counted (2); on the next pass the wait finds only slow phases
    (settling.POLLS references of 2000 each), and on the third the
    attempt is steady (1000, then 1000/1000) and kept."""
    refs = _queue(fake_agent_dir, monkeypatch, "FAKE_REFERENCE_NS",
                  [1000, 1000, 1000, 2000, 2000, 1000, 2500, 2500, *[2000] * settling.POLLS, 1000, 1000, 1000])
    benches = _queue(fake_agent_dir, monkeypatch, "FAKE_BENCH_NS", [3000, 2000, 1500])
    store = Store(db_path)
    plan = Plan(name="settle", libraries=["openssl"], kinds=["hash"], algorithms=["sha256"], sizes=[64],
                method=Method(warmup=0, repeats=1, rounds=1, outliers="none", min_sample_ms=1, timeout_s=10))
    run_id = runner.run(plan, "test", store, show_progress=False)
    assert refs.read_text() == "" and benches.read_text() == ""
    (r,) = store.case_rounds(run_id)
    assert (r["attempts"], r["reference_ns"], r["reference_after_ns"], r["slow"]) == (3, 1000, 1000, 0)
    (case,) = store.cases(run_id)
    assert [s["total"] for s in store.samples(case["id"]) if s["counter"] == "wall_ns"] == [1500]


def test_settling_stays_within_its_budget(fake_agent_dir: Path, db_path: Path, monkeypatch, settling_on,
                                          caplog) -> None:
    """A machine slow all the time: with no time left (settling.SHARE 0) no
    case is measured again and none waits; the run says so and keeps its
    slow rounds flagged."""
    monkeypatch.setattr(settling, "SHARE", 0.0)
    refs = _queue(fake_agent_dir, monkeypatch, "FAKE_REFERENCE_NS", [1000, 1000, 1000, *[2000] * 4])
    store = Store(db_path)
    plan = Plan(name="budget", libraries=["openssl"], kinds=["hash"], algorithms=["sha256"], sizes=[16, 32],
                method=Method(warmup=0, repeats=1, rounds=1, outliers="none", min_sample_ms=1, timeout_s=10))
    with caplog.at_level("INFO"):
        run_id = runner.run(plan, "test", store, show_progress=False)
    assert refs.read_text() == ""
    rounds = store.case_rounds(run_id)
    assert len(rounds) == 2 and all(r["slow"] and r["attempts"] == 1 for r in rounds)
    assert "2 case(s) had no steady round" in caplog.text and "0 now have one after 0 round(s) measured again" \
        " (0 kept), 0 reference(s) timed" in caplog.text and "stopped by its time budget" in caplog.text


@pytest.mark.parametrize("at", [0, 2048, 4080])
def test_timed_handshakes_land_where_asked(agents, at: int) -> None:
    """The timed connections run placed, like primitives: the frame where
    asked, the heap block held, nothing counted; the counted connection is the same handshake."""
    from tlsbench.families.tls.cases import TlsCase, handshake_request
    from tlsbench.families.tls.certs import make_chain

    case = TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519", make_chain("ecdsa-p256"))
    plain, placed = (agent.call(agents["mbedtls"], [handshake_request(case, repeats=1, warmup=0, place=p)], 60,
                                "handshake").responses[0]
                     for p in (None, {"stack_at": at, "heap_shift": 1008}))
    assert plain.status == placed.status == "ok", (plain.message, placed.message)
    assert plain.of_type("tls_place") == []  # not asked: not placed
    (rec,) = placed.of_type("tls_place")
    assert (rec["stack_at"], rec["heap_shift"]) == (at, 1008)
    assert placed.of_type("process_heap")[0]["timed_heap_calls"] == 0
    keep = ("c2s_records", "s2c_records")  # (heap peaks vary run to run with the signature's bignum sizes)
    assert ({k: plain.of_type("tls_memory")[0][k] for k in keep}
            == {k: placed.of_type("tls_memory")[0][k] for k in keep})


def test_bad_handshake_layout_fields_are_one_clear_error(agents) -> None:
    from tlsbench.families.tls.cases import TlsCase, handshake_request
    from tlsbench.families.tls.certs import make_chain

    req = handshake_request(TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519", make_chain("ecdsa-p256")))
    for extra in ("stack_at=4096", "heap_shift=2000000", "memory=2", "memory_passes=0", "memory_passes=17"):
        resp = agent.call(agents["mbedtls"], [req + " " + extra], 30, "bad").responses[0]
        assert resp.status == "bad_input" and f"field {extra.split('=')[0]} is malformed" in resp.message, extra


def test_handshake_rounds_are_placed_and_recorded(agents, db_path: Path, monkeypatch) -> None:
    """Each round of an in-memory handshake case runs where engine.layout
    places it, recorded per round like a primitive's; a TCP case's rounds
    are not placed (two processes, the kernel in the path): recorded as none.
    An in-memory round times the reference in the agent that measures it, just
    before and after its handshakes (one call); a TCP round in agents of its own."""
    from tlsbench.families.tls.plan import TlsSelect

    calls: list[list[str]] = []
    real_call = agent.call

    def recording_call(executable, requests, *args, **kwargs):
        calls.append([r.split()[0] for r in requests])
        return real_call(executable, requests, *args, **kwargs)

    monkeypatch.setattr(agent, "call", recording_call)
    store = Store(db_path)
    plan = Plan(name="placed-tls", libraries=["mbedtls"], kinds=["tls"],
                method=Method(warmup=0, repeats=2, rounds=2, outliers="none", min_sample_ms=1, timeout_s=60),
                tls=TlsSelect(suites=["TLS_AES_128_GCM_SHA256"], groups=["x25519"], certs=["ecdsa-p256"],
                              transports=["memory", "tcp"]))
    run_id = runner.run(plan, "test", store, show_progress=False)
    rows = store.case_rounds(run_id)
    memory = [r for r in rows if "/tcp" not in r["name"]]
    tcp = [r for r in rows if "/tcp" in r["name"]]
    assert len(memory) == 2 and len(tcp) == 2, [r["name"] for r in rows]
    for r in memory:
        expected = layout.placement(run_id, r["name"], r["round"], 2)
        assert (r["stack_at"], r["heap_shift"]) == (expected.stack_at, expected.heap_shift)
        assert r["reference_ns"] is not None and r["attempts"] >= 1
    assert all(r["stack_at"] is None and r["reference_ns"] is not None for r in tcp)
    assert all(r["reference_after_ns"] is not None for r in rows)  # the machine's speed after each round too
    in_one = [c for c in calls if c[0] == "reference" and len(c) == 3]
    # every attempt of the memory case's rounds (a slow one is measured again) has the reference beside it
    assert [c[1] for c in in_one] == ["handshake"] * sum(r["attempts"] for r in memory)
    # the run's priming, then two of their own for every attempt of a TCP round
    assert calls.count(["reference"]) == pacing.PRIME + 2 * sum(r["attempts"] for r in tcp)
