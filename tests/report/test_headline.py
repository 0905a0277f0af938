"""Which stored column is a figure: a host timing shows its fastest sample (results.min, a rate's
results.max), labelled so; a count, and every figure of a firmware run, shows the median as before."""

from __future__ import annotations

import json
from pathlib import Path

from tlsbench.engine import metrics
from tlsbench.engine.case import Result
from tlsbench.engine.store import Store
from tlsbench.families.tls import tables as tls_tables
from tlsbench.report import html as html_report
from tlsbench.report import stability
from tlsbench.report import tables as report
from tlsbench.targets.target import is_host

METHOD = {"repeats": 6, "warmup": 1, "outliers": "none", "min_sample_ms": 1, "timeout_s": 9, "rounds": 2, "env": {}}


def _result(metric: str, unit: str, median: float, low: float, high: float) -> Result:
    return Result.of(metric, unit, 6, 0, median, median, 0.0, low, high, None, None)


def _run(store: Store, target: str, scale: float = 1.0) -> int:
    run = store.create_run(target=target, plan_name="p", plan_source="", plan={"method": METHOD},
                           machine={"cpu_model": "cpu", "cores": 2}, version="1", keys={})
    store.put_case(run, name="openssl/hash/sha256/hash/64", library="openssl", kind="hash", alg="sha256", op="hash",
                   size=64, params={}, status="ok", reason="", iters=10, started=0, transcript="",
                   results=[_result("wall_ns", "ns/op", 200.0, 150.0 * scale, 400.0),
                            _result("throughput", "B/s", 3.2e8, 1.6e8, 4.0e8 * scale),
                            _result("heap_peak_bytes", "bytes", 100.0, 90.0, 110.0)])
    store.put_case(run, name="openssl/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full", library="openssl", kind="tls",
                   alg="TLS_AES_128_GCM_SHA256", op="x25519/ecdsa-p256-full", size=None, params={}, status="ok",
                   reason="", iters=3, started=0, transcript="",
                   results=[_result("client_cpu_ns", "ns", 500_000.0, 300_000.0, 900_000.0),
                            _result("server_cpu_ns", "ns", 700_000.0, 400_000.0, 990_000.0),
                            _result("c2s_bytes", "bytes", 400.0, 400.0, 400.0),
                            _result("s2c_bytes", "bytes", 900.0, 900.0, 900.0)])
    store.finish_run(run)
    return run


def test_the_estimator_follows_the_metric_kind_and_the_target() -> None:
    assert metrics.headline_estimator("wall_ns", is_host("host")) == "min"
    assert metrics.headline_estimator("client_cpu_ns", is_host("host")) == "min"
    # a rate: the fastest sample is its largest
    assert metrics.headline_estimator("throughput", is_host("host")) == "max"
    assert metrics.headline_estimator("transactions_per_s", is_host("host")) == "max"
    for exact in ("instructions", "heap_peak_bytes", "c2s_bytes", "client_instructions"):
        assert metrics.headline_estimator(exact, is_host("host")) == "median"
    for target in ("qemu:mps2-an386", "serial:/dev/ttyACM0"):  # no host: every figure stays the median
        assert metrics.headline_estimator("wall_ns", is_host(target)) == "median"
        assert metrics.headline_estimator("cycles", is_host(target)) == "median"
    assert metrics.headline_estimator("a_metric_nobody_registered", is_host("host")) == "median"
    assert metrics.estimator_label("min", 6) == "min of 6 samples"


def test_a_host_run_shows_the_fastest_sample_in_every_format(db_path: Path) -> None:
    store = Store(db_path)
    data = report.load(store, _run(store, "host"))
    table = report.render(data, "table")
    assert "400.0 MB/s ±0.0%" in table and "320.0 MB/s" not in table  # the fastest sample, not the median
    assert "cells: the fastest sample (min of 6 samples)" in table
    md = report.render(data, "markdown")
    assert "C 300 µs / S 400 µs, 400+900 B" in md  # per side the least CPU, the bytes their median
    view = tls_tables.tls_text(data, md=False)
    assert "timed figures the fastest, min of 6 samples" in view and "300 µs" in view and "500 µs" not in view
    doc = json.loads(report.render(data, "json"))
    assert doc["format"] == 2
    res = {c["name"]: c["results"] for c in doc["cases"]}["openssl/hash/sha256/hash/64"]
    assert (res["wall_ns"]["estimator"], res["throughput"]["estimator"],
            res["heap_peak_bytes"]["estimator"]) == ("min", "max", "median")
    by_time = report.render(data, "table", metric="wall_ns")
    assert "150 ns" in by_time and "cells: min of 6 samples wall_ns per operation" in by_time
    page = html_report.render(data)
    assert "for a timing the fastest of all samples" in page
    assert "400.0 MB/s" in page and "320.0 MB/s" not in page


def test_a_firmware_run_renders_its_medians_as_before(db_path: Path) -> None:
    """The same stored rows on a firmware target: every cell is the median, the legends say median."""
    store = Store(db_path)
    data = report.load(store, _run(store, "qemu:mps2-an386"))
    table = report.render(data, "table")
    assert "320.0 MB/s" in table and "400.0 MB/s" not in table and "cells: median throughput" in table
    assert "C 500 µs / S 700 µs" in table
    assert "TLS cases: medians per handshake" in tls_tables.tls_text(data, md=False)
    doc = json.loads(report.render(data, "json"))
    assert {r["estimator"] for c in doc["cases"] for r in c["results"].values()} == {"median"}
    # the cells without the estimator field (as every figure read before it) are the same text
    for case in data.cases:
        for r in case["results"].values():
            r.pop("estimator")
    assert report.render(data, "table") == table


def test_stability_compares_the_figure_the_reports_show(db_path: Path) -> None:
    """Two host runs whose medians agree and whose minima differ by 20%: stability judges the minima."""
    store = Store(db_path)
    a, b = _run(store, "host"), _run(store, "host", scale=1.2)
    s = stability.assess(store, a, b, "wall_ns")
    assert (s.estimator, s.cases, s.within["10%"]) == ("min", 1, 0)
    assert s.by_estimator["median"]["2%"] == 1  # the medians agree
    assert "(wall_ns: minima of all samples)" in stability.render(s)
