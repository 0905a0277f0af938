"""A noisy figure is flagged in every report format, with what to do about it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tlsbench.engine.case import Result, Sample
from tlsbench.engine.store import Store
from tlsbench.families.tls import tables as tls_tables
from tlsbench.report import export
from tlsbench.report import html as html_report
from tlsbench.report import tables as report


def _result(metric: str, unit: str, median: float, stdev: float | None) -> Result:
    return Result.of(metric, unit, 10, 0, median, median, stdev, median, median, None, None)


def _run(store: Store) -> int:
    method = {"repeats": 10, "warmup": 1, "outliers": "none", "min_sample_ms": 1, "timeout_s": 9, "rounds": 3,
              "env": {}}
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={"method": method},
                           machine={"cpu_model": "cpu", "cores": 2}, version="1", keys={})
    for alg, stdev in (("sha256", 55.4), ("sha512", 2.0)):  # ±55.4% and ±2% of a median of 100 ns
        store.put_case(run, name=f"openssl/hash/{alg}/hash/64", library="openssl", kind="hash", alg=alg, op="hash",
                       size=64, params={}, status="ok", reason="", iters=10, started=0, transcript="",
                       results=[_result("wall_ns", "ns/op", 100.0, stdev), _result("throughput", "B/s", 64e7, None),
                                _result("heap_peak_bytes", "bytes", 100.0, 90.0)])  # exact: never noisy
    store.finish_run(run)
    return run


def test_noise_is_flagged_in_every_format(db_path: Path, tmp_path: Path) -> None:
    store = Store(db_path)
    data = report.load(store, _run(store))
    assert [(n, m) for n, m, _s in report.noisy_cases(data)] == [("openssl/hash/sha256/hash/64", "wall_ns")]
    table = report.render(data, "table")
    assert "±55.4% (noisy)" in table and "±2.0%" in table and "±2.0% (noisy)" not in table
    assert "noisy: 1 figure(s) have a spread (stdev/median) over 10%" in table and "--rounds" in table
    assert "noisy: 1 figure(s)" in report.render(data, "markdown")
    rows = {(r["name"], r["metric"]): r for r in csv.DictReader(io.StringIO(report.render(data, "csv")))}
    assert rows[("sha256", "wall_ns")]["noisy"] == "1" and rows[("sha256", "wall_ns")]["spread"] == "0.5540"
    assert rows[("sha512", "wall_ns")]["noisy"] == "0" and rows[("sha256", "heap_peak_bytes")]["noisy"] == "0"
    doc = json.loads(report.render(data, "json"))
    assert doc["noise"]["limit"] == 0.1
    assert [x["case"] for x in doc["noise"]["noisy"]] == ["openssl/hash/sha256/hash/64"]
    assert "noisy: 1 figure(s)" in html_report.render(data)
    md = export.markdown(data, [])
    assert "noisy: 1 figure(s)" in md


def _drift_run(store: Store) -> int:
    """10 repeats in 3 rounds (4, 3, 3 batches): sha256's third round runs 30%
    slower with a small spread inside each round; sha512's rounds agree."""
    method = {"repeats": 10, "warmup": 1, "outliers": "none", "min_sample_ms": 1, "timeout_s": 9, "rounds": 3,
              "env": {}}
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={"method": method},
                           machine={"cpu_model": "cpu", "cores": 2}, version="1", keys={})
    for alg, last in (("sha256", 130), ("sha512", 101)):
        per_op = [100, 101, 99, 100, 100, 101, 99, last, last + 1, last - 1]
        store.put_case(run, name=f"openssl/hash/{alg}/hash/64", library="openssl", kind="hash", alg=alg, op="hash",
                       size=64, params={}, status="ok", reason="", iters=10, started=0, transcript="",
                       samples=[Sample(i, False, 10, "wall_ns", 10 * v) for i, v in enumerate(per_op)],
                       results=[_result("wall_ns", "ns/op", 100.5, 1.0)])
    store.finish_run(run)
    return run


def test_drift_between_rounds_is_flagged_in_every_format(db_path: Path) -> None:
    store = Store(db_path)
    data = report.load(store, _drift_run(store))
    assert [(n, round(d, 3)) for n, d in report.drifting_cases(data)] == [("openssl/hash/sha256/hash/64", 0.299)]
    assert report.noisy_cases(data) == []  # the spread inside the rounds hides it
    table = report.render(data, "table")
    assert "±1.0% (drift)" in table and table.count("(drift)") == 2  # the cell, and the warning
    assert "drift: 1 case(s) whose rounds' median wall_ns differ by more than 10%" in table and "--rounds" in table
    assert "drift: 1 case(s)" in report.render(data, "markdown")
    rows = {(r["name"], r["metric"]): r for r in csv.DictReader(io.StringIO(report.render(data, "csv")))}
    assert rows[("sha256", "wall_ns")]["round_drift"] == "0.2985" and rows[("sha512", "wall_ns")]["round_drift"]
    doc = json.loads(report.render(data, "json"))
    assert doc["noise"]["drift_limit"] == 0.1
    assert [x["case"] for x in doc["noise"]["drifting"]] == ["openssl/hash/sha256/hash/64"]
    assert "drift: 1 case(s)" in html_report.render(data)
    assert "drift: 1 case(s)" in export.markdown(data, [])


def _firmware_run(db_path: Path) -> tuple[Store, int]:
    """An empty stored run on an emulated board, 3 repeats per case."""
    method = {"repeats": 3, "warmup": 1, "outliers": "none", "min_sample_ms": 1, "timeout_s": 9, "rounds": 1,
              "env": {}}
    store = Store(db_path)
    run = store.create_run(target="qemu:mps2-an386", plan_name="p", plan_source="", plan={"method": method},
                           machine={"cpu_model": "cpu", "cores": 2, "board": "mps2-an386"}, version="1", keys={})
    return store, run


def _signing_run(db_path: Path) -> tuple[Store, int]:
    """Two signing cases on the emulated board, finished: RSA's count differs
    between its repeats (55,082,368..55,159,412), ECDSA's does not (7,000)."""
    store, run = _firmware_run(db_path)
    for alg, lo, hi in (("rsa2048-pkcs1-sha256", 55_082_368, 55_159_412), ("ecdsa-p256-sha256", 7_000, 7_000)):
        store.put_case(run, name=f"mbedtls/sig/{alg}/sign", library="mbedtls", kind="sig", alg=alg, op="sign",
                       size=None, params={}, status="ok", reason="", iters=1, started=0, transcript="",
                       results=[Result.of("instructions", "instructions", 3, 0, lo, lo, 0.0, lo, hi, None, None)])
    store.finish_run(run)
    return store, run


def test_an_exact_count_that_differs_between_repeats_is_shown_as_varying(db_path: Path) -> None:
    store, run = _signing_run(db_path)
    data = report.load(store, run)
    assert report.varying_counts(data) == [("mbedtls/sig/rsa2048-pkcs1-sha256/sign", "instructions",
                                            55_082_368, 55_159_412)]
    table = report.render(data, "table")
    assert "55,082,368 instructions (varies) 55,082,368..55,159,412" in table
    assert "7,000 instructions" in table and table.count("(varies)") == 2  # the cell, and the note
    assert "varies: 1 exact count(s) differ between the repeats" in report.render(data, "markdown")
    doc = json.loads(report.render(data, "json"))
    assert doc["noise"]["varying"] == [{"case": "mbedtls/sig/rsa2048-pkcs1-sha256/sign", "metric": "instructions",
                                        "min": 55_082_368, "max": 55_159_412}]
    assert [c["results"]["instructions"]["reported_as"] for c in doc["cases"]] == ["varies", "exact"]
    page = html_report.render(data)
    assert "varies: 1 exact count(s)" in page
    # the host's CPU features do not describe the firmware: labelled as the emulator's machine's
    assert "host CPU features (not the firmware&#x27;s)" in page
    assert "CPU features the libraries dispatch on" not in page + report.render(data, "table")


def _flagged_run(store: Store) -> int:
    """Four sized hash cases over 2 sizes: sha256 noisy (±55%), sha512 with a
    round measured in a slow phase, sha1 clean; one firmware-like count whose
    repeats differ. The charts drawn from it must carry the same marks."""
    method = {"repeats": 10, "warmup": 1, "outliers": "none", "min_sample_ms": 1, "timeout_s": 9, "rounds": 1,
              "env": {}}
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={"method": method},
                           machine={"cpu_model": "cpu", "cores": 2}, version="1", keys={})
    for alg, stdev, slow in (("sha256", 55.4, False), ("sha512", 2.0, True), ("sha1", 2.0, False)):
        for size in (64, 1024):
            store.put_case(run, name=f"openssl/hash/{alg}/hash/{size}", library="openssl", kind="hash", alg=alg,
                           op="hash", size=size, params={}, status="ok", reason="", iters=10, started=0,
                           transcript="", round_info={"slow": slow, "attempts": 2 if slow else 1},
                           results=[_result("wall_ns", "ns/op", 100.0 * size, stdev * size),
                                    _result("throughput", "B/s", 64e7, 1.0)])
    store.finish_run(run)
    return run


def test_chart_exports_mark_flagged_figures(db_path: Path, tmp_path: Path) -> None:
    store = Store(db_path)
    data = report.load(store, _flagged_run(store))
    written = {p.name: p.read_text() for p in export.export(data, "svg", str(tmp_path / "svg"))}
    by_size = written["hash-sha256-by-size.svg"]
    assert by_size.count(">(noisy)</text>") == 2  # both sizes' points, beside them
    assert "flagged: (noisy) spread (stdev/median) over 10%" in by_size and "(slow phase)" not in by_size
    slow = written["hash-sha512-by-size.svg"]
    assert slow.count(">(slow phase)</text>") == 2 and "(noisy)" not in slow
    assert "flagged: (slow phase) a round ran while the machine was slow" in slow
    clean = written["hash-sha1-by-size.svg"]
    assert "(noisy)" not in clean and "(slow phase)" not in clean and "flagged:" not in clean
    # the throughput bars: the throughput itself is steady (stdev 1 B/s); sha512's slow round still marks it
    bars = written["hash-throughput.svg"]
    assert bars.count("(slow phase)</text>") == 1 and "(noisy)" not in bars
    # the size of a flagged chart grows by the line that explains the marks
    assert 'data-flags="1"' in by_size and 'data-flags="1"' not in clean


def test_a_varying_exact_count_is_marked_in_its_chart(db_path: Path) -> None:
    from tlsbench.report import figures

    store, run = _signing_run(db_path)
    (chart,) = figures.figures(report.load(store, run))
    assert chart.svg.count("(varies)</text>") == 1 and "flagged: (varies) an exact count" in chart.svg


def test_a_long_chart_label_keeps_its_start_and_its_end() -> None:
    from tlsbench.report.charts import _clip

    label = "mbedtls/tls/TLS_AES_128_GCM_SHA256/x25519/rsa2048-full client_instructions (same)"
    clipped = _clip(label, 62)
    # the side (client/server) still tells two rows apart
    assert clipped == "mbedtls/tls/TLS_AES_128_…a2048-full client_instructions (same)" and len(clipped) == 62
    assert _clip("short", 62) == "short"


def test_rate_axis_ticks_never_use_an_exponent() -> None:
    from tlsbench.report.figures import fmt_rate

    assert fmt_rate(1e10) == "10,000 MB/s" and fmt_rate(7.6374e9) == "7,637 MB/s"
    assert fmt_rate(2.189e8) == "218.9 MB/s" and fmt_rate(0) == "0 MB/s"


def test_the_tls_per_side_table_marks_a_count_whose_repeats_differ(db_path: Path) -> None:
    store, run = _firmware_run(db_path)
    counts = {"client_instructions": (31_000_000, 31_040_000), "server_instructions": (9_000_000, 9_000_000)}
    store.put_case(run, name="mbedtls/tls/TLS_AES_128_GCM_SHA256/x25519/rsa2048-full", library="mbedtls", kind="tls",
                   alg="TLS_AES_128_GCM_SHA256", op="x25519/rsa2048-full", size=None, params={}, status="ok",
                   reason="", iters=1, started=0, transcript="",
                   results=[Result.of(m, "instructions", 3, 0, lo, lo, 0.0, lo, hi, None, None)
                            for m, (lo, hi) in counts.items()])
    store.finish_run(run)
    data = report.load(store, run)
    header, body = tls_tables.tls_table(data)
    row = dict(zip(header, body[0], strict=True))
    assert row["client instructions"] == "31,000,000 (varies)"
    assert row["server instructions"] == "9,000,000"  # equal repeats stay unmarked
    assert "31,000,000 (varies)" in html_report.render(data)
