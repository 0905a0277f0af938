"""The metric registry: one answer per metric to what it is, used by the
runner, compare and the reports."""

from __future__ import annotations

import pytest

from tlsbench.engine import metrics
from tlsbench.engine.case import Sample
from tlsbench.engine.case_summary import summarize_samples
from tlsbench.errors import PlanError
from tlsbench.families import registry
from tlsbench.families.tls import runner as tls_runner
from tlsbench.targets.target import is_host


def test_an_unknown_metric_names_the_nearest() -> None:
    with pytest.raises(PlanError, match=r"unknown metric 'heap_peak'; did you mean heap_peak_bytes"):
        metrics.get("heap_peak")
    with pytest.raises(PlanError, match=r"unknown metric 'zzz' \(tlsbench list metrics\)"):
        metrics.get("zzz")


def test_per_side_tls_metrics_come_in_pairs_by_rule() -> None:
    sided = [m.name for m in metrics.TLS_SIDED]
    # cpu, instructions and the cycle model's cycles, time and energy in three phases, heap peak/held,
    # stack and callgrind's instructions once; two sides
    assert len(sided) == 2 * 19
    for name in sided:
        other = name.replace("client_", "server_") if "client_" in name else name.replace("server_", "client_")
        a, b = metrics.get(name), metrics.get(other)
        assert (a.unit, a.exact, a.display) == (b.unit, b.exact, b.display)
    assert metrics.sided("cpu_ns", "client", "app_") == "app_client_cpu_ns"
    with pytest.raises(PlanError):
        metrics.sided("stack_bytes", "client", "bulk_")


def test_every_metric_a_family_stores_is_registered() -> None:
    tables = (tls_runner.MEMORY_METRICS, tls_runner.STACK_METRICS, tls_runner.TCP_CLIENT_METRICS,
              tls_runner.TCP_SERVER_METRICS, tls_runner.FOREIGN_CLIENT_METRICS, tls_runner.BASELINE_METRICS,
              metrics.MEMORY_FIELDS)
    stored = {m for table in tables for m in table.values()} | {"bulk_throughput_per_s", "transactions_per_s"}
    stored |= set(metrics.COUNTER_NAMES)
    assert stored - set(metrics.REGISTRY) == set()
    owned = [m.name for f in registry.FAMILIES for m in f.metrics()]
    assert sorted(owned) == sorted(metrics.REGISTRY)  # each metric belongs to one family


def test_units_are_as_stored_by_earlier_versions() -> None:
    """Units are stored with every result: renaming one would split a series."""
    assert [metrics.unit(m) for m in ("wall_ns", "cpu_ns", "tsc", "cycles", "instructions", "allocations",
                                      "throughput", "client_cpu_ns", "client_instructions", "round_trips",
                                      "transactions_per_s", "flash_bytes")] == [
        "ns/op", "ns/op", "tsc-ticks/op", "cycles/op", "instructions/op", "allocations/op", "B/s", "ns",
        "instructions", "round trips", "transactions/s", "bytes"]


def test_exact_and_direction() -> None:
    assert [metrics.is_exact(m) for m in ("wall_ns", "cycles", "instructions", "c2s_bytes", "stack_bytes",
                                          "bulk_throughput_per_s", "not-registered")] == [
        False, False, True, True, True, False, False]
    assert not metrics.lower_is_better("throughput") and metrics.lower_is_better("client_heap_peak_bytes")


def test_the_outlier_policy_applies_to_noisy_metrics_only() -> None:
    # the same values as wall time and as an instruction count: Tukey drops the far one from the time only
    values = [100, 101, 102, 100, 101, 5000]
    samples = [Sample(i, False, 1, m, v) for m in ("wall_ns", "instructions") for i, v in enumerate(values)]
    rows = {r.metric: r for r in summarize_samples(samples, None, "tukey")}
    wall, ins = rows["wall_ns"], rows["instructions"]
    assert (wall.unit, wall.n, wall.removed) == ("ns/op", 5, 1)
    assert (ins.unit, ins.n, ins.removed) == ("instructions/op", 6, 0)
    assert rows["instructions"].max == 5000  # the far value is kept


def test_the_fastest_sample_is_never_dropped_as_an_outlier() -> None:
    """Five of six rounds met a slow phase: Tukey's fences would drop the one at the machine's speed, and the
    figure a host timing shows (its fastest sample) would be a slow round's. The fastest end spans every
    sample (the least time, the highest rate); the median and the count kept stay the policy's."""
    times = [2307, 3431, 3339, 3457, 3399, 3040]  # one case's client over TCP, its six rounds' minima (µs)
    samples = [Sample(i, False, 1, m, v) for m in ("handshake_wall_ns", "client_cpu_ns") for i, v in enumerate(times)]
    wall = [Sample(i, False, 4, "wall_ns", 4 * v) for i, v in enumerate(times)]
    rows = {r.metric: r for r in summarize_samples(samples + wall, 1024, "tukey")}
    for metric in ("handshake_wall_ns", "client_cpu_ns", "wall_ns"):
        r = rows[metric]
        assert (r.n, r.removed, r.min, r.max) == (5, 1, 2307, 3457)  # the slow rounds' spread, the fast round's figure
        assert r.median == 3399
    rate = rows["throughput"]  # a rate's fastest end is its highest value
    assert (rate.removed, rate.max) == (1, pytest.approx(1024 * 1e9 / 2307))
    assert rate.min == pytest.approx(1024 * 1e9 / 3457)
    # without a slow phase nothing changes: the fastest kept sample is the fastest
    calm = {r.metric: r for r in summarize_samples([Sample(i, False, 1, "wall_ns", v)
                                                    for i, v in enumerate([100, 101, 102, 100, 101, 5000])], None,
                                                   "tukey")}
    assert (calm["wall_ns"].min, calm["wall_ns"].max, calm["wall_ns"].removed) == (100, 102, 1)


def test_a_count_whose_repeats_differ_is_reported_as_varying_never_as_exact() -> None:
    from tlsbench.engine import metrics as m

    assert m.reported_as("instructions", 55_082_368, 55_159_412) == "varies"  # Mbed TLS RSA sign on firmware
    assert m.reported_as("instructions", 7_000, 7_000) == "exact"
    assert m.reported_as("client_heap_peak_bytes", 100, 120) == "varies"
    assert m.reported_as("wall_ns", 100, 100) == "noisy"  # a measurement stays a measurement
    assert m.reported_as("a_metric_a_newer_agent_sends", 1, 2) == "noisy"


def test_which_counts_are_exact_between_runs_on_which_target() -> None:
    """A host run draws its keys and random values anew: heap, allocations, the stack and handshake bytes depend
    on them there; on firmware (seeded) every count is exact; a noisy metric is never exact."""
    host = is_host("host")
    assert [metrics.exact_between_runs(m, host) for m in ("allocations", "heap_peak_bytes", "state_heap_bytes",
                                                          "client_heap_peak_bytes", "s2c_bytes", "stack_bytes",
                                                          "client_stack_bytes", "flights", "signature_bytes",
                                                          "wall_ns")] == [
        False, False, False, False, False, False, False, True, True, False]
    assert all(metrics.exact_between_runs(m, is_host("qemu:mps2-an386")) for m in metrics.VARIES_ON_HOST)
    assert metrics.VARIES_ON_HOST <= {m for m in metrics.REGISTRY if metrics.is_exact(m)}
