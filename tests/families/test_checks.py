"""Every library reproduces the known answers and agrees with the others;
and the checker does catch a library that is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import versions
from tlsbench.families.primitive import checks, keys
from tlsbench.families.primitive.catalog import ALGORITHMS, DEFAULT_KINDS, LIBRARIES
from tlsbench.targets.libraries import probe

ALL = {(kind, alg) for kind, algs in ALGORITHMS.items() for alg in algs}


@pytest.fixture(scope="module")
def infos(agents: dict[str, Path]):
    return {lib: probe(lib) for lib in LIBRARIES}


@pytest.fixture(scope="module")
def run_keys():
    return keys.generate()


def test_all_libraries_pass_known_answers_and_cross_checks(infos, run_keys) -> None:
    results = checks.run_checks({n: i.path for n, i in infos.items()}, {n: i.support for n, i in infos.items()},
                                run_keys, ALL, timeout=120)
    failed = [f"{r.library} {r.alg}: {r.detail}" for r in results if r.status == "fail"]
    assert failed == []
    status = {(r.library, r.alg): r.status for r in results}
    # Mbed TLS 3.6 has no Ed25519: reported as unsupported, never as a failure or a zero
    assert status[("mbedtls", "ed25519")] == "unsupported"
    # everything else the catalog names is implemented by OpenSSL, GnuTLS and wolfSSL; the post-quantum
    # kinds by the default versions that have them (OpenSSL 3.5, wolfSSL 5.9; tests/families/test_pq.py)
    for lib in ("openssl", "gnutls", "wolfssl"):
        assert all(status[(lib, alg)] == "pass" for kind, alg in ALL if kind in DEFAULT_KINDS), lib
        pq = "pass" if "kem" in versions.version_of(lib).features else "unsupported"
        assert all(status[(lib, alg)] == pq for kind, alg in ALL if kind not in DEFAULT_KINDS), lib
    # the cross-check really ran: every signing library's signature was verified by the others
    passed = {(r.library, r.alg): r.detail for r in results if r.status == "pass"}
    assert "checks passed" in passed[("openssl", "ecdsa-p256-sha256")]


def test_a_wrong_answer_is_caught(infos, run_keys, monkeypatch: pytest.MonkeyPatch) -> None:
    real = checks.kex_reference

    def lying_reference(alg, priv, peer):
        pub, shared = real(alg, priv, peer)
        return pub, bytes([shared[0] ^ 1]) + shared[1:]

    monkeypatch.setattr(checks, "kex_reference", lying_reference)
    results = checks.run_checks({"openssl": infos["openssl"].path}, {"openssl": infos["openssl"].support},
                                run_keys, {("kex", "x25519")}, timeout=60)
    assert results[0].status == "fail" and "derive" in results[0].detail


def test_the_c_catalog_matches_the_python_catalog(infos) -> None:
    from tlsbench.engine import agent

    res = agent.call(infos["openssl"].path, ["list"], 30, "list")
    listed = {(r["kind"], r["alg"], r["op"]) for r in res.responses[0].of_type("alg")}
    expected = {(k, a, op) for k, algs in ALGORITHMS.items() for a, ops in algs.items() for op in ops}
    assert listed == expected
