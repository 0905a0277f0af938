"""The in-memory TLS memory pass counts several connections a round on the host, where a handshake's
own draws move its heap, and one where the target's counts are exact: each connection is a sample,
numbered across the rounds."""

from __future__ import annotations

from tlsbench.engine.case import Sample
from tlsbench.families.base import Context
from tlsbench.families.tls import runner
from tlsbench.families.tls.family import TlsFamily
from tlsbench.plans.plan import parse_plan

PLAN = ('[select]\nlibraries = ["mbedtls"]\nkinds = ["tls"]\n[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\n'
        'groups = ["x25519"]\ncerts = ["ecdsa-p256"]\n[method]\nrepeats = 2\nrounds = 2\nwarmup = 0\n')


def _heap(samples: list[Sample]) -> list[Sample]:
    return sorted((s for s in samples if s.counter == "server_heap_peak_bytes"), key=lambda s: s.idx)


def test_each_counted_connection_of_a_round_is_a_sample(agents) -> None:
    plan = parse_plan(PLAN, "p.toml")
    (c,) = runner.expand_tls(plan)
    m = runner.measure_tls(agents["mbedtls"], c, {"seed": "passes"}, plan, 1, memory_passes=4)
    assert m.status == "ok"
    heap = _heap(m.samples)
    assert [s.idx for s in heap] == [4, 5, 6, 7] and all(s.iters == 1 and s.total > 10_000 for s in heap)
    one = runner.measure_tls(agents["mbedtls"], c, {"seed": "passes"}, plan, 1)
    assert [s.idx for s in _heap(one.samples)] == [1]  # one pass: the round's own index, as before


def test_the_host_counts_host_memory_passes_and_an_exact_target_one(agents, monkeypatch) -> None:
    plan = parse_plan(PLAN, "p.toml")
    (c,) = runner.expand_tls(plan)
    asked: list[int] = []
    real = runner.measure_tls

    def spy(*args, **kwargs):
        asked.append(kwargs.get("memory_passes", args[7] if len(args) > 7 else 1))
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "measure_tls", spy)

    class Exact:  # a target whose counts are exact (firmware): its draws are restarted, one pass says it all
        deterministic = True

    info = type("Info", (), {"path": agents["mbedtls"]})()
    TlsFamily().measure(c, Context(info, {"seed": "passes"}, plan), 0)  # type: ignore[arg-type]
    TlsFamily().measure(c, Context(info, {"seed": "passes"}, plan, target=Exact()), 0)  # type: ignore[arg-type]
    assert asked == [runner.HOST_MEMORY_PASSES, 1]
