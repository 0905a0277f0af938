"""The timing instrument against independent references: two clocks that
must agree, the linear cost of hashing, the batch size that must not matter,
and two runs that must agree.

Our machines are shared VMs whose speed drifts for seconds at a time (a
busy neighbour on the same core slows scalar code by a third), so the
comparisons that involve time use the thread's CPU time (what other
processes take shows in wall time only) and the least-disturbed figure, the
fastest sample of several interleaved rounds (noise only ever adds time),
and a comparison that misses is measured again, up to three times: a wrong
instrument misses every time, a noisy moment does not.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request

X25519_DERIVE = dict(kind="kex", alg="x25519", op="derive",
                     key=bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"),
                     peer=bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))


def _bench(path: Path, **fields) -> list:
    fields.setdefault("warmup", 1)
    fields.setdefault("repeats", 7)
    fields.setdefault("min_ns", 5_000_000)
    req = encode_request("bench", **fields)
    resp = agent.call(path, [req], 120, "instrument").responses[0]
    assert resp.status == "ok", resp.message
    return resp.of_type("sample")


def _per_op(samples: list, counter: str = "wall_ns") -> list[float]:
    return [int(s[counter]) / int(s["iters"]) for s in samples]


def _fastest(path: Path, variants: dict, rounds: int = 8) -> dict:
    """Fastest per-operation time of each variant, measured in interleaved
    rounds of short bursts (this host's speed flips between two levels for
    seconds at a time: every variant must get its chance at the fast one)."""
    best: dict = {}
    for _ in range(rounds):
        for name, fields in variants.items():
            t = min(_per_op(_bench(path, **{"repeats": 4, "min_ns": 3_000_000, **fields}), "cpu_ns"))
            best[name] = min(best.get(name, t), t)
    return best


def _eventually(measure: Callable[[], tuple[bool, object]], attempts: int = 3) -> None:
    seen = []
    for _ in range(attempts):
        ok, detail = measure()
        if ok:
            return
        seen.append(detail)
    raise AssertionError(f"failed {attempts} times: {seen}")


def test_thread_cpu_time_agrees_with_the_kernels_accounting(agents) -> None:
    """The batches' CPU time against an independent reference, the kernel's
    own account of the agent process (getrusage of the finished child), and
    against wall time, which it can never exceed. Both hold however busy the
    machine is: another process's share shows in neither."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = _bench(agents["openssl"], kind="hash", alg="sha256", op="hash", size=16384, min_ns=20_000_000)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    process_ns = ((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)) * 1e9
    batches_ns = sum(int(x["cpu_ns"]) for x in s)
    # the measured batches are most of the process's work (calibration, warm-up and start-up the rest)
    assert 0.5 * process_ns < batches_ns <= process_ns * 1.01 + 2e7, (batches_ns, process_ns)
    assert all(int(x["cpu_ns"]) <= int(x["wall_ns"]) * 1.01 for x in s)


def test_tsc_ticks_are_proportional_to_time(agents) -> None:
    a = _bench(agents["openssl"], kind="hash", alg="sha256", op="hash", size=64, min_ns=10_000_000)
    b = _bench(agents["gnutls"], kind="aead", alg="aes-128-gcm", op="encrypt", size=4096, key=bytes(16),
               nonce=bytes(12), min_ns=10_000_000)
    rate = [int(s["tsc"]) / int(s["wall_ns"]) for s in a + b]
    assert max(rate) / min(rate) < 1.02  # a constant-rate counter, the same in every process


def test_cost_of_hashing_is_linear_in_size(agents) -> None:
    """t(n) = a + b*n: the line through the two smaller sizes must predict the largest.

    The prediction depends only on ratios of the three times, so each round
    measures the three sizes back to back (a slow phase of the host, which
    lasts seconds, scales them alike) and the median error of the rounds counts.
    """
    # Mbed TLS's scalar SHA-256 at 16 KiB runs up to 20% slower per byte on this
    # host right after AVX-heavy work (such as the fidelity test), while its
    # instruction count stays linear (callgrind): a machine effect, so its sizes stop at 4 KiB.
    for lib, sizes in (("openssl", (1024, 4096, 16384)), ("mbedtls", (256, 1024, 4096))):
        def measure(lib: str = lib, sizes: tuple[int, int, int] = sizes) -> tuple[bool, object]:
            errors = []
            for _ in range(9):
                small, mid, large = (min(_per_op(_bench(agents[lib], kind="hash", alg="sha256", op="hash", size=n,
                                                        repeats=4, min_ns=3_000_000), "cpu_ns"))
                                     for n in sizes)
                per_byte = (mid - small) / (sizes[1] - sizes[0])
                predicted = mid + per_byte * (sizes[2] - sizes[1])
                errors.append(large / predicted - 1)
            median = statistics.median(errors)
            # wide: a loaded shared host moved it past 8%, while what it guards against (a size not
            # honoured, such as a capped or reused buffer) misses by over 60%
            return abs(median) < 0.25, (lib, [round(e, 3) for e in errors])

        _eventually(measure)


def test_batch_length_does_not_change_the_per_operation_time(agents) -> None:
    args = dict(kind="aead", alg="chacha20-poly1305", op="encrypt", size=1024, key=bytes(32), nonce=bytes(12))

    def measure() -> tuple[bool, object]:
        # the batches really differ in length (calibrated on wall time: a slow moment shortens one)
        short = _bench(agents["wolfssl"], **{**args, "min_ns": 2_000_000})
        long = _bench(agents["wolfssl"], **{**args, "min_ns": 20_000_000})
        iters = int(short[0]["iters"]), int(long[0]["iters"])
        t = _fastest(agents["wolfssl"], {"short": {**args, "min_ns": 2_000_000},
                                         "long": {**args, "min_ns": 20_000_000}})
        # a bound wide enough for a loaded 2-core CI machine; a per-batch cost
        # charged to the operations would show far beyond it at 2 ms batches
        return iters[1] > 3 * iters[0] and abs(t["long"] / t["short"] - 1) < 0.25, (iters, t)

    _eventually(measure)


def test_two_runs_agree(agents) -> None:
    def measure() -> tuple[bool, object]:
        t = _fastest(agents["openssl"], {"first": X25519_DERIVE, "second": X25519_DERIVE})
        return abs(t["first"] / t["second"] - 1) < 0.05, t

    _eventually(measure)
