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
from tlsbench.engine import agent, layout, pacing, runner
from tlsbench.engine.protocol import encode_request
from tlsbench.engine.store import Store
from tlsbench.plans.plan import Method, Plan

LIBS = ("mbedtls", "wolfssl", "openssl", "gnutls")
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


def test_a_round_in_a_slow_phase_is_measured_again(fake_agent_dir: Path, db_path: Path, monkeypatch) -> None:
    """References (ns) in call order: three to prime the run's best (1000),
    then the first round: 2000 and 1500 and 1950 (all slower than 0.9 of the
    best: measured three times, the attempt after 1500 kept, flagged slow),
    then the second case: 1050 (fast enough: once); each attempt's reference
    after its round (2100, 1600, 1900, 1040) is stored too, and the slower of
    the two decides: the third case's first attempt had 1000 before it but
    1500 after it (a phase began during the round), so it is measured again
    (1010, 1020). The kept rounds' six make the run's steadiness line."""
    refs = fake_agent_dir / "refs"
    refs.write_text("\n".join(str(n) for n in (1000, 1000, 1000, 2000, 2100, 1500, 1600, 1950, 1900, 1050, 1040,
                                                1000, 1500, 1010, 1020)))
    monkeypatch.setenv("FAKE_REFERENCE_NS", str(refs))
    store = Store(db_path)
    plan = Plan(name="pace", libraries=["openssl"], kinds=["hash"], algorithms=["sha256"], sizes=[64, 128, 256],
                method=Method(warmup=0, repeats=2, rounds=1, outliers="none", min_sample_ms=1, timeout_s=10))
    run_id = runner.run(plan, "test", store, show_progress=False)
    rows = {r["name"]: r for r in store.case_rounds(run_id)}
    first, second = rows["openssl/hash/sha256/hash/64"], rows["openssl/hash/sha256/hash/128"]
    assert (first["attempts"], first["reference_ns"], first["best_reference_ns"], first["slow"]) == (3, 1500, 1000, 1)
    assert (second["attempts"], second["reference_ns"], second["slow"]) == (1, 1050, 0)
    assert (first["reference_after_ns"], second["reference_after_ns"]) == (1600, 1040)
    third = rows["openssl/hash/sha256/hash/256"]
    assert (third["attempts"], third["reference_ns"], third["reference_after_ns"], third["slow"]) == (2, 1010, 1020, 0)
    # the requested placement is what is stored (the fake agent reports none of its own)
    expected = layout.placement(run_id, "openssl/hash/sha256/hash/64", 0, 1)
    assert (first["stack_at"], first["heap_shift"]) == (expected.stack_at, expected.heap_shift)
    # only the kept attempt's samples are stored
    (case,) = [c for c in store.cases(run_id) if c["name"] == "openssl/hash/sha256/hash/64"]
    assert len([s for s in store.samples(case["id"]) if s["counter"] == "wall_ns"]) == 2
    # and the report says so, in one line of its context
    from tlsbench.report import tables as report

    text = report.render(report.load(store, run_id), "table")
    assert "SLOW PHASE: 1 of 3 rounds ran while the reference workload was slow (after measuring again)," \
           " in 1 cases: openssl/hash/sha256/hash/64" in text
    assert "machine unsteady: speed moved 0.63-1.00x, p5-p95 ±51%, 33% of references below 0.9 over 6 samples" in text
    # and every other format carries the flag too, per case
    data = report.load(store, run_id)
    assert "SLOW PHASE: 1 of 3 rounds" in report.render(data, "markdown")
    rows = list(csv.DictReader(io.StringIO(report.render(data, "csv"))))
    assert {r["case"]: r["slow_rounds"] for r in rows} == {"openssl/hash/sha256/hash/64": "1",
                                                          "openssl/hash/sha256/hash/128": "0",
                                                          "openssl/hash/sha256/hash/256": "0"}
    doc = json.loads(report.render(data, "json"))
    assert doc["slow_phase"] == {"rounds": 3, "slow_rounds": 1, "cases": {"openssl/hash/sha256/hash/64": 1}}
    assert doc["machine_steadiness"].startswith("machine unsteady: speed moved 0.63-1.00x")
    from tlsbench.report import export, html

    assert "Slow phase: 1 of 3 rounds" in html.render(data)
    assert "<p>machine unsteady: speed moved 0.63-1.00x" in html.render(data)
    assert "<td>openssl/hash/sha256/hash/64</td><td>1</td>" in html.render(data).replace("\n", "")
    assert "SLOW PHASE: 1 of 3 rounds" in export.markdown(data, [])


def test_measuring_again_keeps_within_the_runs_budget(fake_agent_dir: Path, db_path: Path, monkeypatch) -> None:
    """A machine slow all the time (every reference twice the run's best): each slow round may be measured
    again only while the run's extra attempts stay within half a round per round (plus MAX_AGAIN), so eight
    one-round cases take 3, 2, 1, 2, 1, 2, 1, 2 attempts: 14, not 24."""
    refs = fake_agent_dir / "refs"
    refs.write_text("\n".join(str(n) for n in (1000, 1000, 1000, *[2000] * 60)))
    monkeypatch.setenv("FAKE_REFERENCE_NS", str(refs))
    store = Store(db_path)
    plan = Plan(name="budget", libraries=["openssl"], kinds=["hash"], algorithms=["sha256"],
                sizes=[16, 32, 64, 128, 256, 512, 1024, 2048],
                method=Method(warmup=0, repeats=1, rounds=1, outliers="none", min_sample_ms=1, timeout_s=10))
    run_id = runner.run(plan, "test", store, show_progress=False)
    rounds = store.case_rounds(run_id)
    assert len(rounds) == 8 and all(r["slow"] for r in rounds)
    assert sorted(r["attempts"] for r in rounds) == [1, 1, 1, 2, 2, 2, 2, 3]
    assert sum(r["attempts"] for r in rounds) == 14 <= 1.5 * 8 + pacing.MAX_AGAIN


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
    for extra in ("stack_at=4096", "heap_shift=2000000", "memory=2"):
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
