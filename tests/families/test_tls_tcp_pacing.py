"""A paced round over TCP: the reference workload before it and after it, each in an agent of its own, and
the CPU kept busy between the round and the reference after it (the round's processes and connections
are torn down by the kernel then, which a reference taken at once would time)."""

from __future__ import annotations

import time

import pytest

from tlsbench.engine import pacing
from tlsbench.engine.case import Measured
from tlsbench.families.base import Context
from tlsbench.families.tls import runner
from tlsbench.families.tls.family import TlsFamily
from tlsbench.plans.plan import parse_plan

PLAN = ('[select]\nlibraries = ["mbedtls"]\nkinds = ["tls"]\n[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\n'
        'groups = ["x25519"]\ncerts = ["ecdsa-p256"]\ntransports = ["tcp"]\n[method]\nrepeats = 2\nrounds = 2\n')


def test_a_tcp_round_is_settled_before_the_reference_after_it(monkeypatch) -> None:
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
    monkeypatch.setattr(pacing, "settle", lambda seconds=pacing.SETTLE_S: calls.append(f"settle {seconds:g}"))
    monkeypatch.setattr(runner, "measure_tls", round_)
    info = type("Info", (), {"path": "agent"})()
    m = TlsFamily().measure(case, Context(info, {}, plan, paced=True), 0)  # type: ignore[arg-type]
    assert calls == ["reference", "round", f"settle {pacing.SETTLE_S:g}", "reference"]
    assert m.round_info == {"reference_ns": 3_000_000, "reference_after_ns": 4_000_000}
    calls.clear()
    TlsFamily().measure(case, Context(info, {}, plan, paced=False), 0)  # type: ignore[arg-type]
    assert calls == ["round"]  # not paced (a run of exact counts): no reference, nothing to settle


def test_settling_computes_and_never_sleeps(monkeypatch) -> None:
    def no_sleep(_s: float) -> None:
        raise AssertionError("settle slept: an idle CPU is what it must avoid")

    monkeypatch.setattr(time, "sleep", no_sleep)
    start = time.monotonic()
    pacing.settle(0.02)
    assert time.monotonic() - start >= 0.02
    with pytest.raises(AssertionError):  # the guard itself works
        time.sleep(0.0)
