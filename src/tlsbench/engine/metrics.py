"""What every metric is, in one place: its unit, whether it is an exact count
or a noisy measurement, which direction is better, its label and how it is
shown. The runner takes units and the outlier rule from here, compare takes
exact-or-statistical from here, and every report formats through here, so a
metric is never exact in one place and noisy in another.

Exact metrics (bytes, records, round trips, instruction counts, heap, stack,
allocations) never lose a value to the outlier policy and compare as equal or
changed; noisy ones (times, cycle and TSC counts, rates) get the outlier
policy and a statistical comparison.

The TLS metrics of one side exist for the client and the server under the
same rule: ``[app_|bulk_]<side>_<base>``; they are derived from one table
below, not listed twice.
"""

from __future__ import annotations

import difflib
import statistics
from dataclasses import dataclass

from tlsbench.errors import PlanError

DISPLAYS = ("time", "count", "bytes", "rate", "value")


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str  # as stored with every result row
    exact: bool  # a deterministic count: no outliers dropped, compared exactly
    lower_is_better: bool
    label: str
    display: str  # one of DISPLAYS: how reports format a value


def _m(name: str, unit: str, exact: bool, label: str, display: str, lower_is_better: bool = True) -> Metric:
    return Metric(name, unit, exact, lower_is_better, label, display)


# A primitive's counters, per operation (what the agent's samples carry).
COUNTERS = (
    _m("wall_ns", "ns/op", False, "wall time per operation", "time"),
    _m("cpu_ns", "ns/op", False, "thread CPU time per operation", "time"),
    _m("tsc", "tsc-ticks/op", False, "TSC ticks per operation", "value"),
    _m("cycles", "cycles/op", False, "cycles per operation", "count"),
    _m("instructions", "instructions/op", True, "instructions per operation", "count"),
    # a board profile's cycle model (targets/cyclemodel.py, --board): deterministic, and a model
    _m("model_cycles", "model-cycles/op", True, "model cycles per operation (board profile's cycle model)", "count"),
)
# A primitive's memory pass: agent record field -> metric (one untimed pass per round).
MEMORY_FIELDS = {
    "heap_peak": "heap_peak_bytes", "heap_held": "heap_held_bytes", "allocs": "allocations",
    "stack": "stack_bytes", "setup_heap_held": "state_heap_bytes",
}
MEMORY = (
    _m("heap_peak_bytes", "bytes", True, "heap peak", "bytes"),
    _m("heap_held_bytes", "bytes", True, "heap held after the operation", "bytes"),
    _m("allocations", "allocations/op", True, "allocations per operation", "count"),
    _m("stack_bytes", "bytes", True, "stack peak", "bytes"),
    _m("state_heap_bytes", "bytes", True, "heap held by the set-up state", "bytes"),
)
PRIMITIVE_DERIVED = (
    _m("throughput", "B/s", False, "throughput", "rate", lower_is_better=False),
    _m("model_time_ns", "model-ns/op", True, "model time per operation (model cycles / the profile's clock)", "time"),
    _m("model_energy_nj", "model-nJ/op", True, "model energy per operation (model cycles x V x I / f)", "value"),
)

# TLS: the same base for the client and the server side, in the phases it is measured in.
SIDES = ("client", "server")
_SIDED = (  # (base, unit, exact, label, display, phases)
    ("cpu_ns", "ns", False, "CPU time", "time", ("", "app_", "bulk_")),
    ("instructions", "instructions", True, "instructions", "count", ("", "app_", "bulk_")),
    # valgrind's simulated CPU: the code paths its CPUID offers, not the native ones (docs/method.md)
    ("callgrind_instructions", "instructions", True, "instructions under callgrind", "count", ("",)),
    ("heap_peak_bytes", "bytes", True, "heap peak", "bytes", ("",)),
    ("heap_held_bytes", "bytes", True, "heap held", "bytes", ("",)),
    ("stack_bytes", "bytes", True, "stack peak", "bytes", ("",)),
    ("model_cycles", "model cycles", True, "model cycles", "count", ("", "app_", "bulk_")),
    ("model_time_ns", "model-ns", True, "model time", "time", ("", "app_", "bulk_")),
    ("model_energy_nj", "model-nJ", True, "model energy", "value", ("", "app_", "bulk_")),
)
_PHASE_LABEL = {"": "handshake", "app_": "request/response", "bulk_": "bulk transfer"}
TLS_SIDED = tuple(
    _m(f"{phase}{side}_{base}", unit, exact, f"{side} {label} ({_PHASE_LABEL[phase]})", display)
    for base, unit, exact, label, display, phases in _SIDED
    for phase in phases
    for side in SIDES
)
TLS_SHARED = (
    _m("exchange_wall_ns", "ns", False, "wall time of the handshake and request/response", "time"),
    _m("connect_wall_ns", "ns", False, "TCP connect wall time", "time"),
    _m("handshake_wall_ns", "ns", False, "client wall time to handshake complete", "time"),
    _m("server_handshake_wall_ns", "ns", False, "server wall time to handshake complete", "time"),
    _m("transaction_wall_ns", "ns", False, "wall time of one request/response transaction", "time"),
    _m("bulk_wall_ns", "ns", False, "bulk transfer wall time", "time"),
    _m("c2s_bytes", "bytes", True, "handshake bytes client to server", "bytes"),
    _m("s2c_bytes", "bytes", True, "handshake bytes server to client", "bytes"),
    _m("total_c2s_bytes", "bytes", True, "all bytes client to server", "bytes"),
    _m("total_s2c_bytes", "bytes", True, "all bytes server to client", "bytes"),
    _m("c2s_records", "records", True, "handshake records client to server", "count"),
    _m("s2c_records", "records", True, "handshake records server to client", "count"),
    _m("flights", "flights", True, "flights", "count"),
    _m("round_trips", "round trips", True, "round trips", "count"),
    _m("bulk_throughput_per_s", "B/s", False, "bulk throughput", "rate", lower_is_better=False),
    # one side on a device: the heap the harness holds beside that side for the whole request (its rx line
    # and the uploaded chain and key), which a board needs too; not the side's, so not in its heap figures
    _m("device_harness_heap_bytes", "bytes", True, "harness heap beside the device's side (rx line, uploads)",
       "bytes"),
    _m("transactions_per_s", "transactions/s", False, "transactions per second", "rate", lower_is_better=False),
)
# The minimum-RAM search (families/minram), per side: the least heap cap one connection (handshake and
# request/response) completes under, and what the side's configuration (certificates, keys, settings) holds
# outside any connection; and the largest record plaintext the client sends after asking for a maximum
# fragment length (mfl=<n>).
MIN_RAM = (
    *(_m(f"{side}_{base}", "bytes", True, f"{side} {label}", "bytes") for base, label in (
        ("min_heap_bytes", "least heap to complete the handshake and request/response"),
        ("endpoint_heap_bytes", "heap held by the configuration"),
        ("conn_heap_peak_bytes", "heap peak of the uncapped connection (handshake and request/response)"))
      for side in SIDES),
    _m("negotiated_max_frag_bytes", "bytes", True, "largest record plaintext the client sends (max fragment)",
       "bytes"),
)
# Post-quantum primitives: the sizes of what their operations output, as the library produced it.
PQ_SIZES = (
    _m("public_key_bytes", "bytes", True, "public key size (keygen's output)", "bytes"),
    _m("ciphertext_bytes", "bytes", True, "KEM ciphertext size (encaps' output)", "bytes"),
    _m("signature_bytes", "bytes", True, "signature size (sign's output)", "bytes"),
)
SIZE = (
    _m("flash_bytes", "bytes", True, "flash (text + rodata + data)", "bytes"),
    _m("ram_bytes", "bytes", True, "static RAM (data + bss)", "bytes"),
)

REGISTRY: dict[str, Metric] = {}
for _metric in (*COUNTERS, *MEMORY, *PRIMITIVE_DERIVED, *PQ_SIZES, *TLS_SIDED, *TLS_SHARED, *MIN_RAM, *SIZE):
    assert _metric.name not in REGISTRY, f"metric {_metric.name} is registered twice"
    assert _metric.display in DISPLAYS, _metric
    REGISTRY[_metric.name] = _metric

COUNTER_NAMES = tuple(m.name for m in COUNTERS)

# Exact counts that are not exact between two host runs. A host run draws its
# keys fresh and the library's own generator feeds every nonce, blinding value
# and key pair, so the sizes of a library's bignums, and with them the heap
# and the allocations of an operation, the deepest stack of a bignum routine
# (an RSA-3072 signature's 2,312-3,016 B within one run), and the length of a
# DER-encoded ECDSA signature in a handshake, depend on the values drawn. A run measures that
# spread itself (several memory passes per round, a handshake per repeat);
# compare allows a difference between two host runs up to it and calls a
# larger one a change. On firmware every value comes from a seeded stream
# restarted for every repeat: every count is exact by construction there.
VARIES_ON_HOST = frozenset({
    "heap_peak_bytes", "heap_held_bytes", "allocations", "state_heap_bytes",
    *(f"{side}_{base}" for side in SIDES for base in ("heap_peak_bytes", "heap_held_bytes", "stack_bytes")),
    "stack_bytes", "c2s_bytes", "s2c_bytes", "total_c2s_bytes", "total_s2c_bytes",
})
assert VARIES_ON_HOST <= set(REGISTRY)


def exact_between_runs(name: str, host_run: bool) -> bool:
    """Whether two unchanged runs measure this count alike: every exact count on
    firmware, and on the host (``host_run``: targets.target.is_host) those no
    drawn value reaches (VARIES_ON_HOST); a noisy metric never."""
    return is_exact(name) and not (host_run and name in VARIES_ON_HOST)


def get(name: str) -> Metric:
    """The metric of this name; an unknown name is a PlanError with the nearest known names."""
    m = REGISTRY.get(name)
    if m is None:
        near = difflib.get_close_matches(name, REGISTRY, n=3)
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        raise PlanError(f"unknown metric {name!r}{hint} (tlsbench list metrics)")
    return m


def unit(name: str) -> str:
    return get(name).unit


def is_exact(name: str) -> bool:
    """Counts, not times: no outlier is dropped and two runs compare as equal or not.
    A name not registered (a metric a newer agent sends) counts as noisy."""
    m = REGISTRY.get(name)
    return m is not None and m.exact


def lower_is_better(name: str) -> bool:
    m = REGISTRY.get(name)
    return m is None or m.lower_is_better


def display(name: str) -> str:
    m = REGISTRY.get(name)
    return m.display if m is not None else "value"


def sided(base: str, side: str, phase: str = "") -> str:
    """The name of one side's TLS metric: sided("cpu_ns", "client", "app_") -> app_client_cpu_ns."""
    name = f"{phase}{side}_{base}"
    get(name)
    return name


# Said next to every instruction count a report shows.
INSTRUCTIONS_NOTE = ("Instructions are exact counts of executed instructions (QEMU -icount, identical in every run):"
                     " not cycles and not time; a cycle or time figure derived from them is a model, labelled so.")

# What compare and the reports show for a case when no metric is named: every
# one of these the case measured (in compare: in both runs), per side for TLS.
# A host run has times; a firmware run has exact instruction counts per side.
HEADLINE = (
    "wall_ns", "instructions", "cycles",
    "handshake_wall_ns", "exchange_wall_ns", "transactions_per_s",
    *(f"{side}_{base}" for base in ("cpu_ns", "instructions") for side in SIDES),
    "flash_bytes", "ram_bytes",
    *(f"{side}_min_heap_bytes" for side in SIDES),  # min-ram cases
)


def headline(measured: set[str] | list[str]) -> list[str]:
    """The headline metrics among ``measured``, in the registry's order."""
    have = set(measured)
    return [m for m in HEADLINE if m in have]


# Which stored statistic of a metric's samples the reports show as its figure. A host timing headlines
# the fastest of all its samples (the minimum time, the maximum rate; the outlier policy never drops
# it): on a shared machine it is what two runs repeat (docs/method.md "Which headline figure repeats");
# an exact count, and any figure of a firmware target, shows the median as before (there min = median
# for a count that does not vary).
ESTIMATORS = ("median", "min", "max")


def headline_estimator(name: str, host_run: bool) -> str:
    """The stored column ("median", "min" or "max") that is this metric's figure in a run; ``host_run``: the
    run's target is this machine (the caller asks targets.target.is_host: this registry sits below targets/)."""
    if not host_run or name not in REGISTRY or is_exact(name):
        return "median"
    return "min" if lower_is_better(name) else "max"


def figure_of(estimator: str, values: list[float]) -> float:
    """The figure ``estimator`` (headline_estimator's answer) takes from raw per-operation values."""
    return {"min": min, "max": max}.get(estimator, statistics.median)(values)


def headline_of(result: dict) -> float:
    """A stored result's figure: the column its "estimator" names (rundata.load sets it), else the median."""
    return result[result.get("estimator", "median")]


def estimator_label(estimator: str, samples: int | None = None) -> str:
    """How a legend names the figure: "min of 6 samples", "median"."""
    of = f" of {samples} samples" if samples else " of all samples" if estimator != "median" else " of the kept samples"
    return "median" + of if estimator == "median" else f"{estimator}{of}"


def format_value(name: str, value: float) -> str:
    """A value of this metric with its unit, as every report shows it."""
    kind = display(name)
    if kind == "time":
        return format_time(value)
    if kind == "rate":
        return format_rate(value) if unit(name) == "B/s" else f"{value:,.4g} {unit(name)}"
    if kind == "bytes":
        return f"{value:,.0f} B"
    if kind == "count":
        u = REGISTRY[name].unit.split("/")[0] if name in REGISTRY else ""
        return f"{value:,.0f} {u}".rstrip()
    return f"{value:.4g} {REGISTRY[name].unit if name in REGISTRY else ''}".rstrip()


def format_time(ns: float) -> str:
    for u, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {u}"
    return f"{ns:.3g} ns"


def format_rate(per_s: float) -> str:
    return f"{per_s / 1e6:,.1f} MB/s"


REPORTED_AS = ("noisy", "exact", "varies")


def reported_as(name: str, low: float, high: float) -> str:
    """How a result of this metric is reported, from its repeats' range: a
    measurement is "noisy" (statistics, compared by a test); a count is
    "exact" when every repeat gave the same value, and "varies" when they
    differ (randomness a library draws per operation, e.g. Mbed TLS's RSA
    blinding: on firmware its RSA signatures and every handshake with an RSA
    certificate vary by up to 0.15% of their instructions, wolfSSL's do not;
    on the host the keys and values each run draws, over the memory passes'
    key sets; or state a library keeps between calls): a varying count is
    shown with its range and compared as varying, never as an exact figure."""
    if not is_exact(name):
        return "noisy"
    return "exact" if low == high else "varies"
