"""Every shipped preset parses and expands to uniquely named cases; the
study presets re-run what their study measured."""

from __future__ import annotations

import pytest

from tlsbench.engine import runner
from tlsbench.families.tls import catalog as tls_catalog
from tlsbench.plans.plan import load_preset, presets

STUDY_PRESETS = ("handshake-by-suite", "tls13-vs-tls12", "kex-transactions", "tls12-suites-cost", "hash-by-size")


def test_the_study_presets_are_shipped() -> None:
    assert set(STUDY_PRESETS) <= set(presets())


@pytest.mark.parametrize("name", sorted(presets()))
def test_every_preset_parses_and_expands_without_duplicates(name: str) -> None:
    plan, text = load_preset(name)
    assert plan.name == name, "a preset's name is its file's name"
    assert plan.description.strip() and text.strip()
    cases = runner.expand(plan)
    assert cases, f"preset {name} expands to no case"
    names = [c.name for c in cases]
    assert len(names) == len(set(names))
    assert {c.library for c in cases} <= set(plan.libraries)


def _tls(name: str) -> list:
    return [c for c in runner.expand(load_preset(name)[0]) if c.kind == "tls"]


def test_handshake_by_suite_is_tls12_rsa_and_ecdhe_rsa_against_s_server() -> None:
    cases = _tls("handshake-by-suite")
    suites = {c.alg for c in cases}
    assert {s.split("_WITH_")[0] for s in suites} == {"TLS_RSA", "TLS_ECDHE_RSA"}
    assert all(tls_catalog.version_of(s) == 12 for s in suites)
    assert any("CBC" in s for s in suites) and any("GCM" in s for s in suites)
    assert all(c.op.endswith("/tcp+server=openssl-s_server") for c in cases)


def test_tls13_vs_tls12_has_the_studys_four_connection_types() -> None:
    cases = _tls("tls13-vs-tls12")
    kinds = {(tls_catalog.version_of(c.alg), c.op.split("/")[1]) for c in cases if c.alg != "TCP"}
    assert {(12, "rsa2048-full"), (13, "rsa2048-full"), (13, "ecdsa-p256-full")} <= kinds
    assert any(c.alg == "TCP" for c in cases), "the plain TCP baseline"
    plan = load_preset("tls13-vs-tls12")[0]
    assert plan.method.repeats == 10 and plan.method.outliers == "trim:2"


def test_kex_transactions_measures_transactions_per_key_exchange() -> None:
    plan = load_preset("kex-transactions")[0]
    assert set(plan.libraries) == {"gnutls", "openssl"}
    capacity = [c for c in runner.expand(plan) if "clients=" in c.op]
    assert {c.alg.split("_WITH_")[0] for c in capacity} == {"TLS_RSA", "TLS_DHE_RSA", "TLS_ECDHE_RSA"}
    assert {c.op.rsplit("clients=", 1)[1] for c in capacity} == {"1", "4"}
    assert any(c.kind == "aead" and "cbc" in c.alg for c in runner.expand(plan))


def test_tls12_suites_cost_has_both_authentications_and_the_primitives() -> None:
    cases = runner.expand(load_preset("tls12-suites-cost")[0])
    tls = [c for c in cases if c.kind == "tls"]
    assert any("mutual" in c.op for c in tls) and any("mutual" not in c.op for c in tls)
    assert {c.alg for c in cases if c.kind == "kex"} == {"p256", "x25519"}
    assert {c.alg for c in cases if c.kind == "sig"} == {"ecdsa-p256-sha256", "ed25519"}


def test_hash_by_size_is_the_riot_table() -> None:
    cases = runner.expand(load_preset("hash-by-size")[0])
    assert {c.alg for c in cases} == {"md5", "sha1", "sha224", "sha256", "sha3-256", "sha3-384", "sha3-512"}
    assert {c.size for c in cases} == {16, 32, 64, 128, 256, 512, 1024}
