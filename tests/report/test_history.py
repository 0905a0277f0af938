"""tlsbench history: a trend per case over stored runs, changes marked by
compare's own test. The runs here are fabricated and stored through the
store API (no agent runs): their samples are chosen so that exactly one
change is real (run 4: 30% slower), the rest are jitter of 1%, and one run
is another machine's (its own series, never compared with the first's)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tlsbench.cli import main
from tlsbench.engine.case import Sample
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.report import chromium, history

HASH = "openssl/hash/sha256/hash/1024"
FIRMWARE = "mbedtls/aead/aes-128-gcm/encrypt/64"
JITTER = (1.0, 1.01, 0.99, 1.005, 0.995, 1.0, 1.008, 0.992, 1.002)  # 9 batches, within 1%
ITERS = 1000


def _run(store: Store, day: int, ns_per_op: float, instructions: int, host: str = "lab-1",
         label: str = "nightly") -> int:
    machine = {"hostname": host, "cpu_model": f"cpu of {host}", "tlsbench": f"0.1+{day:07x}aaaaa"}
    run = store.create_run(target="host", plan_name="history", plan_source="", plan={}, machine=machine,
                           version="v", keys={"day": day}, labels={"job": label})
    store.put_case(run, name=HASH, library="openssl", kind="hash", alg="sha256", op="hash", size=1024, params={},
                   status="ok", reason="", iters=ITERS, started=0, transcript="",
                   samples=[Sample(i, False, ITERS, "wall_ns", round(ns_per_op * j * ITERS))
                            for i, j in enumerate(JITTER)])
    store.put_case(run, name=FIRMWARE, library="mbedtls", kind="aead", alg="aes-128-gcm", op="encrypt", size=64,
                   params={}, status="ok", reason="", iters=1, started=0, transcript="",
                   samples=[Sample(i, False, 1, "instructions", instructions) for i in range(3)])
    store.finish_run(run)
    # run of day d: made on 2026-01-01 + d days (for --since)
    store.db.execute(store.dialect.sql("UPDATE runs SET created=? WHERE id=?"), (1767225600 + day * 86400, run))
    if store.dialect.name == "sqlite":
        store.db.commit()
    return run


def _history_db(where: str) -> Store:
    store = Store(where)
    for day, ns, ins in ((1, 1000, 5000), (2, 1000, 5000), (3, 1000, 5000), (4, 1300, 5000), (5, 1300, 5000)):
        _run(store, day, ns, ins)
    _run(store, 6, 2000, 5000, host="lab-2")  # another machine: its own series, no change against lab-1
    return store


def test_history_marks_exactly_the_injected_regression(db_path: Path) -> None:
    store = _history_db(str(db_path))
    h = history.read(store, [HASH, FIRMWARE])
    hash_case, fw_case = h.cases
    assert h.runs == [1, 2, 3, 4, 5, 6]
    assert (hash_case.metric, fw_case.metric, fw_case.exact) == ("wall_ns", "instructions", True)
    assert [(p.run_id, p.verdict) for p in hash_case.changes()] == [(4, "slower")]
    assert round(hash_case.changes()[0].ratio, 3) == 1.3
    assert fw_case.changes() == []
    assert sorted(hash_case.series) == ["lab-1 · host", "lab-2 · host"]
    assert [(p.run_id, p.verdict) for p in hash_case.series["lab-2 · host"]] == [(6, "")]
    first = hash_case.series["lab-1 · host"][0]
    assert first.median == 1000 and first.low is not None and first.low <= 1000 <= first.high
    assert first.commit == "0000001aaaaa"
    # the figure each run's report shows beside it: a host timing's fastest batch, a count's median
    assert (first.estimator, first.figure) == ("min", 990)
    assert [(p.estimator, p.figure) for p in fw_case.points()][:1] == [("median", 5000)]
    text = history.render_text(h)
    assert text.count("SLOWER") == 1 and "SLOWER x1.300" in text
    assert "990 ns (min)" in text


def test_history_filters_by_date_and_label_and_names_what_is_wrong(db_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    store = _history_db(str(db_path))
    assert history.read(store, [HASH], since="2026-01-06").runs == [5, 6]
    assert history.read(store, [HASH], labels=["machine=lab-2"]).runs == [6]
    assert history.read(store, ["openssl/hash/*"], labels=["job=nightly", "git.dirty=false"]).cases[0].name == HASH
    with pytest.raises(PlanError, match="no selected run has a case 'openssl/hash/sha265/hash/1024'; nearest: "
                                        + re.escape(HASH)):
        history.read(store, ["openssl/hash/sha265/hash/1024"])
    with pytest.raises(PlanError, match=f"case {FIRMWARE} has no wall_ns values in the selected runs"):
        history.read(store, [FIRMWARE], metric="wall_ns")
    with pytest.raises(PlanError, match="--since '5 Jan': expected a UTC date YYYY-MM-DD"):
        history.read(store, [HASH], since="5 Jan")
    assert main(["--db", str(db_path), "history", HASH, "--label", "Bad Key=1"]) == 2
    assert "--label 'Bad Key=1': expected KEY=VALUE" in capsys.readouterr().err
    assert main(["--db", str(db_path), "runs", "--label", "job=nightly", "--label", "machine=lab-2"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 2 and listed[1].split()[0] == "6" and listed[1].endswith("job=nightly")


def test_history_on_postgresql_matches_sqlite(db_path: Path, pg_server) -> None:
    on_pg = history.read(_history_db(pg_server.new_database("history")), [HASH, FIRMWARE])
    on_file = history.read(_history_db(str(db_path)), [HASH, FIRMWARE])
    for a, b in zip(on_pg.cases, on_file.cases, strict=True):
        assert [(p.run_id, p.median, p.low, p.high, p.verdict) for p in a.points()] == \
               [(p.run_id, p.median, p.low, p.high, p.verdict) for p in b.points()]


def test_history_page_in_chromium_marks_one_change(db_path: Path, tmp_path: Path) -> None:
    if chromium.find() is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and no Chromium is installed: {chromium.INSTALL}")
        pytest.skip(f"no Chromium on this machine ({chromium.INSTALL}); CI runs this test")
    _history_db(str(db_path)).close()
    out = tmp_path / "history.html"
    assert main(["--db", str(db_path), "history", HASH, FIRMWARE, "--format", "html", "-o", str(out)]) == 0
    text = out.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # self-contained
    dom = chromium.dump_dom(out)
    assert 'data-report="ready"' in dom and 'data-charts="2"' in dom
    assert re.findall(r'data-change="(\w+)" data-run="(\d+)"', dom) == [("slower", "4")]
    assert dom.count("<circle") == 2 * 6 + 1  # a point per run and case, one ring
    assert "run 4, 2026-01-05 00:00 UTC, commit 0000004aaaaa, lab-1 · host: 1.3 µs" in dom
    # the exact metric is drawn as steps (H/V segments), the timed one as lines
    timed, exact = re.findall(r'<path d="(M[^"]+)"[^>]*data-series="lab-1 · host"', dom)  # lab-2: one point, no line
    assert "L" in timed and "H" not in timed and "H" in exact and "V" in exact and "L" not in exact
    shot = chromium.screenshot(out, tmp_path / "history.png", 1280, 1800)
    print(f"screenshot: {shot}")


def test_history_page_spaces_runs_by_date_and_names_their_commits(db_path: Path) -> None:
    """Runs on days 1, 2 and 10: the gap after run 2 is eight times the first
    on the x axis (not evenly spaced), and each point's hover names its commit."""
    from tlsbench.report import history_html

    store = Store(str(db_path))
    for day in (1, 2, 10):
        _run(store, day, 1000, 5000)
    h = history.read(store, [FIRMWARE])
    assert h.created == {1: 1767225600 + 86400, 2: 1767225600 + 2 * 86400, 3: 1767225600 + 10 * 86400}
    page = history_html.render(h)
    xs = {int(run): float(x) for x, run in re.findall(r'<circle cx="([\d.]+)" cy="[\d.]+" r="3.5"[^>]*data-run="(\d+)"',
                                                    page)}
    assert sorted(xs) == [1, 2, 3]
    assert round((xs[3] - xs[2]) / (xs[2] - xs[1]), 1) == 8.0  # x is written to 0.1 px
    assert "run 3, 2026-01-11 00:00 UTC, commit 000000aaaaaa" in page
    assert re.findall(r'data-tick="date">([^<]+)<', page)[0] == "2026-01-02"
    assert "run date (UTC" in page
