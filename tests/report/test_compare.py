"""Comparing two runs: hand-computed test statistics and every verdict."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tlsbench.engine import stats
from tlsbench.engine.case import Result, Sample
from tlsbench.engine.store import Store
from tlsbench.report import compare, compare_text


def test_mann_whitney_against_a_hand_computed_value() -> None:
    # U = 0, mean 4.5, variance 3*3*7/12 = 5.25: z = (4.5 - 0.5) / sqrt(5.25) = 1.7457, p = 0.0809
    assert stats.mann_whitney_p([1, 2, 3], [4, 5, 6]) == pytest.approx(0.0809, abs=1e-3)
    assert stats.mann_whitney_p([1, 2], [3, 4]) is None  # too few: no test, never "significant"
    assert stats.mann_whitney_p([5.0] * 5, [5.0] * 5) == 1.0


def _run(store: Store, cases: dict[str, tuple[str, list[int]]], version: str = "1") -> int:
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={"method": {}},
                           machine={"cpu_model": "cpu"}, version=version, keys={})
    for name, (status, totals) in cases.items():
        store.put_case(run, name=name, library="l", kind="hash", alg="a", op="hash", size=None, params={},
                       status=status, reason="", iters=10, started=0, transcript="",
                       samples=[Sample(i, False, 10, "wall_ns", t) for i, t in enumerate(totals)])
    return run


def test_each_verdict(db_path: Path) -> None:
    store = Store(db_path)
    base = [1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003]
    a = _run(store, {"same": ("ok", base), "slower": ("ok", base), "faster": ("ok", base),
                     "gone": ("ok", base), "broken": ("ok", base), "tiny": ("ok", base)})
    b = _run(store, {"same": ("ok", [t + 1 for t in base]), "slower": ("ok", [2 * t for t in base]),
                     "faster": ("ok", [t // 2 for t in base]), "new": ("ok", base), "broken": ("failed", []),
                     "tiny": ("ok", [t + 20 for t in base])}, version="2")
    c = compare.compare(store, a, b)
    verdicts = {r.name: r.verdict for r in c.rows}
    assert verdicts == {"same": "same", "slower": "slower", "faster": "faster", "gone": "only in A",
                        "new": "only in B", "broken": "not measured", "tiny": "same"}
    # "tiny" is significant (every B sample is larger) but only 2%: below the minimum effect
    tiny = next(r for r in c.rows if r.name == "tiny")
    assert tiny.p_value < 0.01 and tiny.ratio == pytest.approx(1.02, abs=0.001)
    assert next(r for r in c.rows if r.name == "slower").ratio == pytest.approx(2.0)
    assert c.context_differences == ["tlsbench: 1 -> 2"]
    text = compare_text.render(c, "markdown", only_changes=True)
    assert "| slower | wall_ns | slower |" in text and "| same |" not in text


# ---- the ratio's interval, exact metrics, html, ci-json, --fail-on-regression ----

BASE = [1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003]


def _run_with(store: Store, cases: dict[str, dict[str, list[int]]], version: str = "1") -> int:
    """cases: name -> {counter: per-batch totals (10 iterations a batch)}, with a result row carrying the unit."""
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={"method": {}},
                           machine={"cpu_model": "cpu"}, version=version, keys={})
    for name, counters in cases.items():
        samples = [Sample(i, False, 10, counter, t)
                   for counter, totals in counters.items() for i, t in enumerate(totals)]
        results = [Result.of(counter, "ns/op" if counter == "wall_ns" else "bytes", len(t), 0, sum(t) / len(t) / 10,
                          sum(t) / len(t) / 10, None, min(t) / 10, max(t) / 10, None, None)
                   for counter, t in counters.items()]
        store.put_case(run, name=name, library="l", kind="tls", alg="a", op="o", size=None, params={},
                       status="ok", reason="", iters=10, started=0, transcript="", samples=samples, results=results)
    return run


def test_a_known_shift_is_significant_and_its_interval_holds_it(db_path: Path) -> None:
    store = Store(db_path)
    a = _run_with(store, {"shifted": {"wall_ns": BASE}, "same": {"wall_ns": BASE}})
    b = _run_with(store, {"shifted": {"wall_ns": [t * 12 // 10 for t in BASE]}, "same": {"wall_ns": BASE}})
    c = compare.compare(store, a, b)
    rows = {r.name: r for r in c.rows}
    s = rows["shifted"]
    assert s.verdict == "slower" and s.ratio == pytest.approx(1.2, abs=0.001)
    assert 1.15 < s.ratio_low <= 1.2 <= s.ratio_high < 1.25
    same = rows["same"]
    assert same.verdict == "same" and same.ratio == 1.0 and same.p_value == 1.0
    assert same.ratio_low <= 1.0 <= same.ratio_high
    again = compare.compare(store, a, b)  # fixed seed: the same interval every time
    assert [(r.ratio_low, r.ratio_high) for r in again.rows] == [(r.ratio_low, r.ratio_high) for r in c.rows]


def test_too_few_samples_to_reach_alpha_is_said() -> None:
    assert stats.smallest_p(5, 5) > 0.01 > stats.smallest_p(10, 10)
    assert stats.bootstrap_ratio_ci([1.0, 2.0], [1.0, 2.0, 3.0]) is None


def test_counts_compare_exactly(db_path: Path) -> None:
    store = Store(db_path)
    a = _run_with(store, {"x": {"wall_ns": BASE, "c2s_bytes": [5000] * 10, "s2c_bytes": [9000] * 10},
                          "y": {"wall_ns": BASE, "c2s_bytes": [5000] * 10}})
    b = _run_with(store, {"x": {"wall_ns": BASE, "c2s_bytes": [5160] * 10, "s2c_bytes": [9000] * 10},
                          "y": {"wall_ns": BASE, "c2s_bytes": [5000] * 9 + [5010]}})
    c = compare.compare(store, a, b, metric="c2s_bytes")
    rows = {r.name: r for r in c.rows}
    assert rows["x"].verdict == "changed" and rows["x"].median_b - rows["x"].median_a == 16  # per op: 10 iters
    assert rows["x"].p_value is None and rows["x"].ratio_low is None and rows["x"].note == "exact"
    assert rows["y"].verdict == "varies"  # the same median, but not the same value every time
    assert "B: varies 500..501" in rows["y"].note
    # with a timed metric, every count of both runs is still compared exactly
    c = compare.compare(store, a, b)
    exact = {(e.name, e.metric): e for e in c.exact}
    assert exact[("x", "c2s_bytes")].verdict == "changed" and exact[("x", "c2s_bytes")].diff == 16
    assert exact[("x", "s2c_bytes")].verdict == "same"
    text = compare_text.render(c)
    assert "deterministic metrics: 1 same, 1 changed, 1 varies" in text and "+16" in text


def _memory_run(store: Store, target: str, cases: dict[str, dict[str, list[int]]]) -> int:
    """A run's memory passes as the primitive family stores them: one operation a sample."""
    run = store.create_run(target=target, plan_name="p", plan_source="", plan={"method": {}},
                           machine={"cpu_model": "cpu"}, version="1", keys={})
    for name, counters in cases.items():
        samples = [Sample.one(i, counter, v) for counter, values in counters.items() for i, v in enumerate(values)]
        store.put_case(run, name=name, library="mbedtls", kind="kex", alg="p256", op="keygen", size=None, params={},
                       status="ok", reason="", iters=1, started=0, transcript="", samples=samples)
    return run


# two host runs of Mbed TLS P-256 keygen: 8 memory passes a round, 3 rounds; some passes make one
# allocation more (a bignum one limb longer), and the second run happens to draw more of those
DRAWN_A = [17] * 23 + [18]
DRAWN_B = [18] * 13 + [17] * 11
# an RSA signature's deepest stack on the host: two depths, as the blinding values drawn make the bignums
# a limb shorter or not (OpenSSL RSA-3072, 2,312-3,016 B in both runs of one pair)
STACK_A = [2312] * 13 + [3016] * 11
STACK_B = [3016] * 13 + [2312] * 11
# a count drawn three ways (an ECDSA signature's 70-72 bytes, wolfSSL's mutual TLS 1.3 client, 12 counted
# connections a run): one run saw 1930..1931, the next 1931..1932, medians 2 apart, each range 1 wide
OVERLAP_A = [1930] * 7 + [1931] * 5
OVERLAP_B = [1932] * 7 + [1931] * 5


@pytest.mark.parametrize("target", ["host", "qemu:mps2-an386"])
def test_a_count_drawn_per_host_run_varies_within_the_runs_spread_and_changes_beyond(db_path: Path,
                                                                                       target: str) -> None:
    store = Store(db_path)
    a = _memory_run(store, target, {"within": {"allocations": DRAWN_A, "heap_peak_bytes": [1040] * 24},
                                    "beyond": {"allocations": DRAWN_A},
                                    "flat": {"allocations": [17] * 24, "stack_bytes": [3000] * 24},
                                    "rsa": {"stack_bytes": STACK_A}, "overlap": {"allocations": OVERLAP_A}})
    b = _memory_run(store, target, {"within": {"allocations": DRAWN_B, "heap_peak_bytes": [1040] * 24},
                                    "beyond": {"allocations": [19] * 24},
                                    "flat": {"allocations": [18] * 24, "stack_bytes": [3016] * 24},
                                    "rsa": {"stack_bytes": STACK_B}, "overlap": {"allocations": OVERLAP_B}})
    got = {(e.name, e.metric): e for e in compare.compare(store, a, b).exact}
    within = got[("within", "allocations")]
    assert (within.a, within.b, within.diff) == (17, 18, 1)
    assert got[("within", "heap_peak_bytes")].verdict == "same"
    # 19 - 17 = 2 is beyond the spread either run measured (1): a change on any target
    assert got[("beyond", "allocations")].verdict == "changed"
    # no spread measured in either run: the difference is a change, even on the host
    assert got[("flat", "allocations")].verdict == "changed"
    # the stack, drawn on the host too (metrics.VARIES_ON_HOST), with no spread measured: a change
    assert got[("flat", "stack_bytes")].verdict == "changed"
    rsa = got[("rsa", "stack_bytes")]
    assert (rsa.a, rsa.b) == (2312, 3016)
    overlap = got[("overlap", "allocations")]
    assert (overlap.a, overlap.b) == (1930, 1932)
    if target == "host":
        assert within.verdict == "varies" and within.note.startswith("within the runs' own spread (1)")
        assert rsa.verdict == "varies" and rsa.note.startswith("within the runs' own spread (704)")
        # 2 apart is beyond each run's range (1), but the ranges share 1931: the same draws
        assert overlap.verdict == "varies" and overlap.note.startswith("the runs' ranges overlap")
        text = compare_text.render(compare.compare(store, a, b))
        assert "deterministic metrics: 1 same, 3 changed, 3 varies" in text
    else:  # firmware draws from a seeded stream: a count that moved between runs is a change
        assert within.verdict == "changed" and rsa.verdict == "changed" and overlap.verdict == "changed"


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tlsbench", "--db", str(db), *args], capture_output=True,
                          text=True, timeout=60)


def test_fail_on_regression_sets_the_exit_code(db_path: Path) -> None:
    store = Store(db_path)
    a = _run_with(store, {"x": {"wall_ns": BASE}, "y": {"wall_ns": BASE}})
    b = _run_with(store, {"x": {"wall_ns": [2 * t for t in BASE]}, "y": {"wall_ns": BASE}})
    same = _run_with(store, {"x": {"wall_ns": BASE}, "y": {"wall_ns": BASE}})
    p = _cli(db_path, "compare", str(a), str(b), "--fail-on-regression", "10")
    assert p.returncode == 1 and "regression: x wall_ns: B/A 2.000" in p.stderr and "regression: y" not in p.stderr
    assert _cli(db_path, "compare", str(a), str(b), "--fail-on-regression", "150").returncode == 0
    assert _cli(db_path, "compare", str(a), str(same), "--fail-on-regression", "0").returncode == 0
    assert _cli(db_path, "compare", str(b), str(a), "--fail-on-regression", "10").returncode == 0  # faster
    bad = _cli(db_path, "compare", str(a), str(b), "--fail-on-regression", "ten")
    assert bad.returncode == 2 and "must be a percentage" in bad.stderr


def test_ci_json_and_html(db_path: Path, tmp_path: Path) -> None:
    store = Store(db_path)
    a = _run_with(store, {"x": {"wall_ns": BASE}})
    b = _run_with(store, {"x": {"wall_ns": [t * 12 // 10 for t in BASE]}, "new": {"wall_ns": BASE}})
    p = _cli(db_path, "compare", str(a), str(b), "--export", "ci-json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert isinstance(doc, list) and all(set(e) == {"name", "unit", "value", "range", "extra"} for e in doc)
    x = next(e for e in doc if e["name"] == "x wall_ns")
    # a host timing's value is B's fastest batch, as B's report shows it; the verdict's medians are in extra
    assert x["unit"] == "ns/op" and x["value"] == pytest.approx(118.8) and x["range"].startswith("B/A 1.")
    assert "verdict: slower" in x["extra"] and "value: B's min of its samples; B median 120.05" in x["extra"]
    assert "A min 99" in x["extra"] and "A median 100.05" in x["extra"]
    bmf = _cli(db_path, "compare", str(a), str(b), "--export", "bmf")  # Bencher Metric Format
    assert bmf.returncode == 0, bmf.stderr
    assert json.loads(bmf.stdout) == {"x": {"wall_ns": {"value": x["value"]}}}  # as ci-json: cases in both runs
    out = tmp_path / "compare.html"
    p = _cli(db_path, "compare", str(a), str(b), "--format", "html", "-o", str(out))
    assert p.returncode == 0, p.stderr
    page = out.read_text()
    assert page.count("<svg") == 1 and '<table class="sortable"' in page and "only in B" in page
    assert not re.search(r"<link|<img|src=|@import|url\(", page)


# ---- firmware runs, per side; inconclusive is not "same" ----

def _firmware_run(store: Store, cases: dict[str, dict[str, list[int]]], target: str = "qemu:mps2-an386") -> int:
    run = store.create_run(target=target, plan_name="p", plan_source="", plan={"method": {}},
                           machine={"board": target.split(":")[-1], "profiles": {"mbedtls": "default"}},
                           version="1", keys={})
    for name, counters in cases.items():
        samples = [Sample(i, False, 1, counter, t)
                   for counter, totals in counters.items() for i, t in enumerate(totals)]
        store.put_case(run, name=name, library="mbedtls", kind="tls", alg="a", op="o", size=None, params={},
                       status="ok", reason="", iters=1, started=0, transcript="", samples=samples)
    return run


def test_firmware_runs_compare_on_instructions_per_side_with_units(db_path: Path) -> None:
    store = Store(db_path)
    a = _firmware_run(store, {"sha256": {"instructions": [5000] * 3},
                              "tls": {"client_instructions": [32_110_000] * 3, "server_instructions": [9000] * 3}})
    b = _firmware_run(store, {"sha256": {"instructions": [5000] * 3},
                              "tls": {"client_instructions": [32_110_000] * 3, "server_instructions": [9900] * 3}},
                      target="qemu:mps2-an385")
    c = compare.compare(store, a, b)
    got = {(r.name, r.metric): r.verdict for r in c.rows}
    assert got == {("sha256", "instructions"): "same", ("tls", "client_instructions"): "same",
                   ("tls", "server_instructions"): "changed"}
    # what differs in how the runs were made comes first, short
    assert c.context_differences[:2] == ["target: qemu:mps2-an386 -> qemu:mps2-an385",
                                         "board: mps2-an386 -> mps2-an385"]
    text = compare_text.render(c)
    assert "not measured" not in text and "32,110,000 instructions" in text and "3.211e+07" not in text


def test_an_underpowered_comparison_is_inconclusive_and_the_gate_says_so(db_path: Path) -> None:
    store = Store(db_path)
    a = _run_with(store, {"c": {"wall_ns": [1000, 1400, 700, 1100, 900]}})
    b = _run_with(store, {"c": {"wall_ns": [2600, 1800, 3300, 2500, 2700]}})
    row = compare.compare(store, a, b).rows[0]
    assert row.ratio == pytest.approx(2.6) and row.verdict == "inconclusive"  # 5 + 5 samples cannot reach p < 0.01
    r = subprocess.run([sys.executable, "-m", "tlsbench", "--db", str(db_path), "compare", str(a), str(b),
                        "--fail-on-regression", "10"], capture_output=True, text=True)
    assert r.returncode == 3 and "inconclusive: c wall_ns" in r.stderr
