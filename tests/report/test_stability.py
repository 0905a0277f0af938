"""`tlsbench stability`: the shares of cases whose medians agree, computed
right (exact inputs), and the command end to end on the fake agent."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import tlsbench_cmd

from tlsbench.engine.store import Store
from tlsbench.report import stability


def test_shares_within_each_band_and_worst_first() -> None:
    a = {"x": 100.0, "y": 100.0, "z": 100.0, "w": 100.0, "only-a": 5.0}
    b = {"x": 101.0, "y": 96.0, "z": 108.0, "w": 150.0, "only-b": 5.0}
    n, within, rows = stability.agreement(a, b)
    assert n == 4  # cases in one run only are not counted
    assert within == {"2%": 1, "5%": 2, "10%": 3}  # y: 100/96 - 1 = 4.2%
    assert [r["name"] for r in rows] == ["w", "z", "y", "x"]
    assert stability.agreement(b, a)[1] == within  # the same either way round
    assert stability.spread(100, 102) == stability.spread(102, 100)
    # exactly on a band's edge counts as within it
    assert stability.agreement({"e": 100.0}, {"e": 105.0})[1]["5%"] == 1


def test_every_verdict_is_counted_inconclusive_ones_too() -> None:
    """Each case counts once: a difference the test or the machine's own change cannot call is inconclusive
    (on a loaded day every case of a pair can be), a 'same' no test could have turned is too."""
    from tlsbench.report import compare

    rows = [compare.Row("a", "faster"), compare.Row("b", "slower"), compare.Row("c", "same"),
            compare.Row("d", "same", note="p cannot reach 0.01 with these samples"),
            compare.Row("e", "inconclusive", note="inconclusive: the machine's speed changed by 40%"),
            compare.Row("f", "inconclusive", note="B/A 95% interval reaches beyond ±5%")]
    c = compare.Comparison(1, 2, "wall_ns", 0.01, 0.05, rows=rows)
    assert stability.verdict_counts(c) == {"faster": 1, "slower": 1, "same": 1, "inconclusive": 3}
    c.exact = [compare.ExactRow("a", "c2s_bytes", "same"), compare.ExactRow("a", "heap_peak_bytes", "changed"),
               compare.ExactRow("b", "stack_bytes", "varies"), compare.ExactRow("c", "stack_bytes", "only in A")]
    assert stability.exact_counts(c) == {"same": 1, "varies": 1, "changed": 1}


def test_the_command_runs_the_plan_twice_and_reports_the_pair(fake_agent_dir: Path, tmp_path: Path) -> None:
    plan = tmp_path / "tiny.toml"
    plan.write_text('name = "tiny"\n[select]\nlibraries = ["openssl"]\nkinds = ["hash"]\nalgorithms = ["sha256"]\n'
                    'sizes = [64, 128]\n[method]\nwarmup = 0\nrepeats = 6\nrounds = 2\nmin_sample_ms = 1\n'
                    'outliers = "none"\n')
    db = tmp_path / "r.sqlite"
    out = subprocess.run([*tlsbench_cmd(), "--db", str(db), "stability", str(plan), "--no-progress"],
                         capture_output=True, text=True, check=True).stdout
    # the fake agent's batches are the same in every run: every case agrees, compare calls no change
    assert "runs 1 and 2: 2 cases timed in both" in out
    assert "within  2%:    2 of 2 (100%)" in out
    assert "compare 1 2: 0 slower, 0 faster, 2 same, 0 inconclusive" in out
    # the fake agent stores no deterministic metric for a hash: nothing to call changed
    assert "exact counts (every deterministic metric of both runs): 0 same, 0 varies, 0 changed" in out
    store = Store(db)
    assert [r["id"] for r in store.list_runs()] in ([1, 2], [2, 1])
    # and the same figures for the stored pair, as JSON
    js = subprocess.run([*tlsbench_cmd(), "--db", str(db), "stability", "--runs", "1", "2", "--format", "json"],
                        capture_output=True, text=True, check=True).stdout
    assert '"cases": 2' in js and '"2%": 2' in js
    assert "by estimator (share within 2%/5%/10%): median 100%/100%/100%; min 100%/100%/100%; mean" in out


def test_no_plan_and_no_runs_is_one_clear_error(tmp_path: Path) -> None:
    r = subprocess.run([*tlsbench_cmd(), "--db", str(tmp_path / "x.sqlite"), "stability"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "tlsbench: error: stability: give a plan (file or preset name) or --runs A B"]
