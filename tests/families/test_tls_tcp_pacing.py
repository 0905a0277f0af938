"""A paced round over TCP: the reference workload just before it and just after it, each in an agent of its
own (the round's processes cannot time it), stored with the round; no reference when the run is not paced."""

from __future__ import annotations

from tlsbench.engine import pacing
from tlsbench.engine.case import Measured
from tlsbench.families.base import Context
from tlsbench.families.tls import runner
from tlsbench.families.tls.family import TlsFamily
from tlsbench.plans.plan import parse_plan

PLAN = ('[select]\nlibraries = ["mbedtls"]\nkinds = ["tls"]\n[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\n'
        'groups = ["x25519"]\ncerts = ["ecdsa-p256"]\ntransports = ["tcp"]\n[method]\nrepeats = 2\nrounds = 2\n')


def test_a_tcp_round_has_a_reference_just_before_and_just_after_it(monkeypatch) -> None:
    plan = parse_plan(PLAN, "p.toml")
    (case,) = [c for c in runner.expand_tls(plan) if "/tcp" in c.name and c.alg != runner.BASELINE]
    calls: list[str] = []
    refs = iter([3_000_000, 4_000_000])

    def reference(_path, timeout: float = 30) -> int:
        calls.append("reference")
        return next(refs)

    def round_(*_args, **_kwargs) -> Measured:
        calls.append("round")
        return Measured("ok", "", None, "", [], [])

    monkeypatch.setattr(pacing, "reference_ns", reference)
    monkeypatch.setattr(runner, "measure_tls", round_)
    info = type("Info", (), {"path": "agent"})()
    m = TlsFamily().measure(case, Context(info, {}, plan, paced=True), 0)  # type: ignore[arg-type]
    assert calls == ["reference", "round", "reference"]
    assert m.round_info == {"reference_ns": 3_000_000, "reference_after_ns": 4_000_000}
    calls.clear()
    TlsFamily().measure(case, Context(info, {}, plan, paced=False), 0)  # type: ignore[arg-type]
    assert calls == ["round"]  # not paced (a run of exact counts): no reference

