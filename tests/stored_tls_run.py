"""A stored TLS run with known figures, for the report tests of several folders (the HTML page, the
command line's per-side metric names)."""

from __future__ import annotations

from tlsbench.engine.case import Result
from tlsbench.engine.store import Store


def result_of(metric: str, unit: str, median: float, mean: float | None = None, half: float | None = None) -> Result:
    """A stored figure of five samples: its median, mean and 95% half-width as given."""
    mean = median if mean is None else mean
    lo, hi = (None, None) if half is None else (mean - half, mean + half)
    return Result.of(metric, unit, 5, 0, median, mean, None if half is None else half, median, median, lo, hi)


def make_tls_run(store: Store) -> int:
    """A stored TLS run with known figures: in memory, over TCP against a
    foreign client (server side only), a failed case, an interop pair."""
    run = store.create_run(target="host", plan_name="constructed", plan_source="# made by the test",
                           plan={"method": {"repeats": 5, "warmup": 0, "outliers": "none", "min_sample_ms": 1,
                                            "timeout_s": 9, "rounds": 1, "env": {"OPENSSL_ia32cap": "~0x2"}},
                                 "description": "test"},
                           machine={"cpu_model": "Test CPU", "cores": 2, "os": "Test OS", "kernel": "1"},
                           version="test", keys={})
    for lib in ("openssl", "wolfssl"):
        store.put_library(run, lib, f"{lib} 1.0", f"{lib} config", "test", "0" * 64, "wall_ns,cpu_ns", {})

    def case(name: str, lib: str, alg: str, op: str, status: str = "ok", reason: str = "",
             results: tuple = ()) -> None:
        store.put_case(run, name=name, library=lib, kind="tls", alg=alg, op=op, size=None, params={},
                       status=status, reason=reason, iters=1, started=0, transcript="", results=list(results))

    suite = "TLS_AES_128_GCM_SHA256"
    case(f"openssl/tls/{suite}/x25519/ecdsa-p256-full", "openssl", suite, "x25519/ecdsa-p256-full", results=(
        result_of("client_cpu_ns", "ns", 1_500_000), result_of("server_cpu_ns", "ns", 2_500_000),
        result_of("exchange_wall_ns", "ns", 4_000_000, 4_100_000, 200_000), result_of("c2s_bytes", "bytes", 500),
        result_of("s2c_bytes", "bytes", 1200), result_of("round_trips", "round trips", 1),
        result_of("client_heap_peak_bytes", "bytes", 30_000), result_of("server_heap_peak_bytes", "bytes", 40_000)))
    case(f"wolfssl/tls/{suite}/x25519/ecdsa-p256-full", "wolfssl", suite, "x25519/ecdsa-p256-full", "failed",
         "handshake failed: alert 40")
    case(f"wolfssl/tls/{suite}/x25519/ecdsa-p256-full/tcp+client=gnutls-cli", "wolfssl", suite,
         "x25519/ecdsa-p256-full/tcp+client=gnutls-cli", results=(
             result_of("server_cpu_ns", "ns", 3_000_000), result_of("c2s_bytes", "bytes", 510),
             result_of("s2c_bytes", "bytes", 1210),
             result_of("server_handshake_wall_ns", "ns", 5_000_000)))
    case(f"openssl/tls/{suite}/x25519/ecdsa-p256-full/tcp+server=wolfssl", "openssl", suite,
         "x25519/ecdsa-p256-full/tcp+server=wolfssl", results=(
             result_of("client_cpu_ns", "ns", 1_000_000), result_of("server_cpu_ns", "ns", 1_000_000),
             result_of("handshake_wall_ns", "ns", 7_000_000, 7_000_000, 100_000), result_of("c2s_bytes", "bytes", 500),
             result_of("s2c_bytes", "bytes", 1200)))
    case(f"wolfssl/tls/{suite}/x25519/ecdsa-p256-full/tcp+server=openssl", "wolfssl", suite,
         "x25519/ecdsa-p256-full/tcp+server=openssl", "failed", "handshake failed: no shared group")
    store.finish_run(run)
    return run
