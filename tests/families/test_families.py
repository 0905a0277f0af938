"""Case families behind one interface, registered in one place; the runner
only loops over them."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path

import pytest

from tlsbench.engine import metrics, runner
from tlsbench.engine.case import Case, Measured, Sample
from tlsbench.families import registry
from tlsbench.families.base import Context, Family
from tlsbench.plans.plan import Plan
from tlsbench.targets.libraries import LibraryInfo


def test_every_kind_belongs_to_one_family() -> None:
    kinds = [k for f in registry.FAMILIES for k in f.kinds]
    assert len(kinds) == len(set(kinds))
    assert registry.family_of("tls").name == "tls" and registry.family_of("aead").name == "primitive"
    assert registry.family_of("size").name == "size"
    with pytest.raises(Exception, match="no case family measures kind 'pq'"):
        registry.family_of("pq")


def test_a_plan_expands_family_by_family() -> None:
    plan = Plan(libraries=["openssl"], kinds=["hash", "tls"], algorithms=["sha256"], sizes=[64])
    plan.tls.suites = ["TLS_AES_128_GCM_SHA256"]
    plan.tls.groups, plan.tls.certs, plan.tls.handshakes = ["x25519"], ["ed25519"], ["full"]
    assert [c.name for c in runner.expand(plan)] == [
        "openssl/hash/sha256/hash/64", "openssl/tls/TLS_AES_128_GCM_SHA256/x25519/ed25519-full"]


class _Toy:
    """A family added by one class and one registry entry."""

    name = "toy"
    kinds = ("toy",)
    needs_checks = False

    def expand(self, plan: Plan) -> list[Case]:
        return [Case(lib, "toy", "spin", "run", None) for lib in plan.libraries]

    def metrics(self) -> tuple[metrics.Metric, ...]:
        return (metrics.get("wall_ns"),)

    def prepare(self, plan: Plan, keys: dict, now: datetime.datetime | None) -> None:
        keys["toy"] = "ready"

    def check(self, agents: dict[str, Path], support: dict, keys: dict, cases: Iterable[Case], timeout: float) -> list:
        return []

    def measure(self, case: Case, ctx: Context, rnd: int) -> Measured:
        return Measured("ok", "", 1, "", [Sample(i, False, 1, "wall_ns", 100 + i) for i in range(3)], [])


def test_a_new_family_is_one_registry_entry(monkeypatch) -> None:
    toy: Family = _Toy()
    monkeypatch.setattr(registry, "FAMILIES", (*registry.FAMILIES, toy))
    monkeypatch.setitem(registry._BY_KIND, "toy", toy)
    plan = Plan(libraries=["openssl"], kinds=["hash"], algorithms=["md5"], sizes=[16])
    cases = runner.expand(plan)
    assert [c.name for c in cases] == ["openssl/hash/md5/hash/16", "openssl/toy/spin/run"]
    info = LibraryInfo("openssl", Path("/nonexistent"), "1", "", "host", ["wall_ns"], {})
    m = runner.measure(info, cases[1], {}, plan)
    assert m.status == "ok" and [s.total for s in m.samples] == [100, 101, 102]


def test_a_duplicate_case_name_is_an_error(monkeypatch) -> None:
    toy = _Toy()
    monkeypatch.setattr(registry, "FAMILIES", (*registry.FAMILIES, toy, toy))
    with pytest.raises(Exception, match="the plan expands to case openssl/toy/spin/run twice"):
        runner.expand(Plan(libraries=["openssl"], kinds=["hash"], algorithms=["md5"], sizes=[16]))
