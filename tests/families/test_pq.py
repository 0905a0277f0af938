"""Post-quantum primitives (ML-KEM, ML-DSA, SLH-DSA) in OpenSSL 3.5 and wolfSSL 5.9:
known answers from the published vectors in the pinned OpenSSL source,
agreement across libraries arbitrated by pyca/cryptography, and their exact
sizes stored with a run. The default versions have none: unsupported, with
the versions that have them."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest
from conftest import env_without_agent_dir, needs_tools, tlsbench_cmd

from tlsbench import paths, versions
from tlsbench.engine import agent
from tlsbench.families.primitive import checks, pqvectors
from tlsbench.families.primitive.catalog import ALGORITHMS
from tlsbench.families.primitive.checks import run_checks
from tlsbench.targets import build
from tlsbench.targets.libraries import probe

# by their identifiers, whichever versions are the defaults
PQ_LIBS = (versions.canonical("openssl@3.5"), versions.canonical("wolfssl@5.9"))
OSSL30 = versions.canonical("openssl@3.0")
NO_KEYS = {"aead": {}, "kex": {}, "sig": {}, "pke": {}}


@pytest.fixture(scope="module")
def pq_agents(agents) -> dict[str, Path]:
    """The two post-quantum versions' agents (built once by scripts/setup) and OpenSSL 3.0's."""
    if not all(paths.agent_path(lib).exists() for lib in (*PQ_LIBS, OSSL30)):
        build.build_agents([*PQ_LIBS, OSSL30])
    return {lib: paths.agent_path(lib) for lib in (*PQ_LIBS, OSSL30)}


def _checks(pq_agents: dict[str, Path]) -> dict[tuple[str, str], tuple[str, str]]:
    infos = {lib: probe(lib) for lib in pq_agents}
    selected = {(k, a) for k in ("kem", "pqsig") for a in ALGORITHMS[k]}
    results = run_checks({lib: i.path for lib, i in infos.items()}, {lib: i.support for lib, i in infos.items()},
                         NO_KEYS, selected, 120)
    return {(r.library, r.alg): (r.status, r.detail) for r in results}


def test_the_vectors_have_the_sizes_of_fips_203_and_204() -> None:
    for alg, ek, ct in (("ml-kem-512", 800, 768), ("ml-kem-768", 1184, 1088), ("ml-kem-1024", 1568, 1568)):
        vecs = pqvectors.kem_vectors(alg)
        assert len(vecs) == pqvectors.PER_SET
        assert {(len(v.seed), len(v.ek), len(v.m), len(v.ct), len(v.ss)) for v in vecs} == {(64, ek, 32, ct, 32)}
        assert "evppkey_ml_kem_" in vecs[0].source and "sha256 a8c0d28a529ca480" in vecs[0].source
    for alg, pk in (("ml-dsa-44", 1312), ("ml-dsa-65", 1952), ("ml-dsa-87", 2592)):
        assert {(len(v.seed), len(v.pk)) for v in pqvectors.dsa_vectors(alg)} == {(32, pk)}
    # SLH-DSA (FIPS 205) at category 1: 3n = 48-byte seeds, 2n = 32-byte public keys, one sign answer of
    # the agent's interface (deterministic, pure, empty context) per set, of 7,856 (128s) / 17,088 (128f) bytes
    for alg, sig, msg in (("slh-dsa-sha2-128s", 7856, 8192), ("slh-dsa-sha2-128f", 17088, 1)):
        assert {(len(v.seed), len(v.pk)) for v in pqvectors.dsa_vectors(alg)} == {(48, 32)}
        assert [(len(v.seed), len(v.pk), len(v.msg), len(v.sig)) for v in pqvectors.sign_vectors(alg)] == \
            [(48, 32, msg, sig)]
        assert "evppkey_slh_dsa_siggen.txt" in pqvectors.sign_vectors(alg)[0].source
    # ML-DSA sign answers (ACVP sigGen): FIPS 204's encoded private keys, not seeds, and signatures of its sizes;
    # the archive has one answer of the agent's interface (deterministic, pure, empty context) per set
    for alg, sk, msg, sig, name in (("ml-dsa-44", 2560, 5710, 2420, "ML_DSA_44_8"),
                                    ("ml-dsa-65", 4032, 8192, 3309, "ML_DSA_65_39"),
                                    ("ml-dsa-87", 4896, 1, 4627, "ML_DSA_87_67")):
        assert [(len(v.seed), len(v.pk), len(v.msg), len(v.sig)) for v in pqvectors.sign_vectors(alg)] == \
            [(sk, 0, msg, sig)]
        source = pqvectors.sign_vectors(alg)[0].source
        assert "sha256 a8c0d28a529ca480" in source and "evppkey_ml_dsa_siggen.txt" in source and f"({name})" in source
    # the first official ML-KEM-768 vector, as FIPS 203's reference publishes it
    assert pqvectors.kem_vectors("ml-kem-768")[0].ss.hex() == \
        "e7184a0975ee3470878d2d159ec83129c8aec253d4ee17b4810311d198cd0368"


def test_both_libraries_pass_every_known_answer_and_each_others_outputs(pq_agents) -> None:
    got = _checks(pq_agents)
    for lib in PQ_LIBS:
        # 3 vectors x (keygen, encaps, decaps) + tampered + kept encaps (+ pyca's ciphertext) + the other's ciphertext
        assert got[(lib, "ml-kem-512")] == ("pass", "12 checks passed")
        assert got[(lib, "ml-kem-768")] == ("pass", "13 checks passed")
        assert got[(lib, "ml-kem-1024")] == ("pass", "13 checks passed")
        # 3 keygen vectors + the sign vector + sign + pyca's signature + a tampered one + the other's signature
        for alg in ("ml-dsa-44", "ml-dsa-65", "ml-dsa-87"):
            assert got[(lib, alg)] == ("pass", "8 checks passed")
        # SLH-DSA (no pyca/cryptography reference): 3 keygen vectors + the sign vector, its signature
        # verified and a tampered one rejected + the kept signature + the other library's signature
        for alg in ("slh-dsa-sha2-128s", "slh-dsa-sha2-128f"):
            assert got[(lib, alg)] == ("pass", "8 checks passed")
    assert got[(OSSL30, "ml-kem-768")] == (
        "unsupported", f"openssl 3.0 has no kem algorithms; versions with them: {', '.join(versions.having('kem'))}")
    assert versions.having("kem") == [versions.canonical("wolfssl@5.9"), versions.canonical("openssl@3.5")]


def test_a_wrong_known_answer_fails_both_libraries(pq_agents, monkeypatch) -> None:
    original = pqvectors.kem_vectors
    right = original("ml-kem-768")
    bad = dataclasses.replace(right[1], ss=bytes(32))
    monkeypatch.setattr(pqvectors, "kem_vectors",
                        lambda alg: (right[0], bad, *right[2:]) if alg == "ml-kem-768" else original(alg))
    got = _checks({lib: pq_agents[lib] for lib in PQ_LIBS})
    for lib in PQ_LIBS:
        status, detail = got[(lib, "ml-kem-768")]
        assert status == "fail" and detail.startswith("encaps: KAT openssl_3.5.7.orig.tar.gz") and "vector 1" in detail
        assert got[(lib, "ml-kem-512")][0] == "pass"


def test_a_wrong_ml_dsa_sign_answer_fails_both_libraries(pq_agents, monkeypatch) -> None:
    """The sign answers are checked byte for byte: one flipped bit of a published signature fails the set."""
    original = pqvectors.sign_vectors
    right = original("ml-dsa-65")[0]
    sig = bytearray(right.sig)
    sig[100] ^= 1
    bad = dataclasses.replace(right, sig=bytes(sig))
    monkeypatch.setattr(pqvectors, "sign_vectors", lambda alg: (bad,) if alg == "ml-dsa-65" else original(alg))
    got = _checks({lib: pq_agents[lib] for lib in PQ_LIBS})
    for lib in PQ_LIBS:
        status, detail = got[(lib, "ml-dsa-65")]
        assert status == "fail" and detail.startswith("sign: KAT openssl_3.5.7.orig.tar.gz")
        assert "evppkey_ml_dsa_siggen.txt" in detail
        assert got[(lib, "ml-dsa-44")] == ("pass", "8 checks passed")


def test_a_run_stores_the_exact_sizes(pq_agents, tmp_path: Path) -> None:
    p = subprocess.run([*tlsbench_cmd(), "run", "--db", str(tmp_path / "r.sqlite"), "--json", "--libraries",
                        "openssl@3.5,wolfssl@5.9", "--algorithms",
                        "ml-kem-768,ml-dsa-44,slh-dsa-sha2-128s,slh-dsa-sha2-128f", "--ops",
                        "keygen,encaps,sign", "--repeats", "1", "--warmup", "0", "--rounds", "1"],
                       capture_output=True, text=True, env=env_without_agent_dir(), timeout=600)
    assert p.returncode == 0, p.stderr
    sizes = {(r["case"], r["metric"]): r["median"] for r in map(json.loads, p.stdout.splitlines())
             if r.get("metric", "").endswith("_bytes") and "heap" not in r["metric"] and "stack" not in r["metric"]}
    for lib in PQ_LIBS:
        assert sizes[(f"{lib}/kem/ml-kem-768/keygen", "public_key_bytes")] == 1184
        assert sizes[(f"{lib}/kem/ml-kem-768/encaps", "ciphertext_bytes")] == 1088
        assert sizes[(f"{lib}/pqsig/ml-dsa-44/keygen", "public_key_bytes")] == 1312
        assert sizes[(f"{lib}/pqsig/ml-dsa-44/sign", "signature_bytes")] == 2420
        for alg, sig in (("slh-dsa-sha2-128s", 7856), ("slh-dsa-sha2-128f", 17088)):
            assert sizes[(f"{lib}/pqsig/{alg}/keygen", "public_key_bytes")] == 32
            assert sizes[(f"{lib}/pqsig/{alg}/sign", "signature_bytes")] == sig


def _tls_run(tmp_path: Path, name: str, libraries: str, groups: str, tcp: str) -> list[dict]:
    plan = tmp_path / f"{name}.toml"
    plan.write_text(f'[select]\nlibraries = [{libraries}]\nkinds = ["tls"]\n'
                    f'[tls]\nsuites = ["TLS_AES_128_GCM_SHA256"]\ngroups = [{groups}]\ncerts = ["ecdsa-p256"]\n{tcp}'
                    '[method]\nwarmup = 0\nrepeats = 1\nrounds = 1\n')
    db = tmp_path / f"{name}.sqlite"
    p = subprocess.run([*tlsbench_cmd(), "run", "--db", str(db), "--json", "--plan", str(plan)], capture_output=True,
                       text=True, env=env_without_agent_dir(), timeout=600)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_the_ml_kem_tls_groups_complete_in_both_libraries_and_between_them(pq_agents, tmp_path: Path) -> None:
    groups = ("x25519mlkem768", "secp256r1mlkem768", "mlkem768")
    rows = _tls_run(tmp_path, "memory", '"openssl@3.5", "wolfssl@5.9", "openssl@3.0"',
                    ", ".join(f'"{g}"' for g in groups), "")
    c2s = {r["case"]: r["median"] for r in rows if r.get("metric") == "c2s_bytes"}
    base = "{lib}/tls/TLS_AES_128_GCM_SHA256/{group}/ecdsa-p256-full"
    mem = {(lib, g): c2s[base.format(lib=lib, group=g)] for lib in PQ_LIBS for g in groups}
    for lib in PQ_LIBS:
        # the hybrids' client shares: ML-KEM-768's 1184-byte key plus X25519's 32 or P-256's 65 bytes
        assert mem[(lib, "x25519mlkem768")] - mem[(lib, "mlkem768")] == 32
        assert mem[(lib, "secp256r1mlkem768")] - mem[(lib, "mlkem768")] == 65
    # OpenSSL 3.0 has no such group: no figure, the reason instead
    reasons = {r["case"]: r.get("reason", "") for r in rows if r.get("metric") is None}
    assert "has no group x25519mlkem768" in reasons[base.format(lib=OSSL30, group="x25519mlkem768")]
    # over TCP, each client against either library's server: it completes, with the same ClientHello
    tcp = _tls_run(tmp_path, "tcp", '"openssl@3.5", "wolfssl@5.9"', '"x25519mlkem768"',
                   'transports = ["tcp"]\nservers = ["openssl@3.5", "wolfssl@5.9"]\n')
    c2s = {r["case"]: r["median"] for r in tcp if r.get("metric") == "c2s_bytes"}
    for lib in PQ_LIBS:
        for server in PQ_LIBS:
            assert c2s[base.format(lib=lib, group="x25519mlkem768") + f"/tcp+server={server}"] == \
                mem[(lib, "x25519mlkem768")]


@needs_tools("valgrind")
@pytest.mark.parametrize("library", PQ_LIBS)
def test_the_post_quantum_checks_run_clean_under_valgrind(pq_agents, library: str) -> None:
    """As tests/agent/test_memory.py for the default versions: no invalid read or write in any check."""
    info = probe(library)
    # SLH-DSA at its fast set only: a 128s signature takes seconds under valgrind
    selected = {(k, a) for k in ("kem", "pqsig") for a in ALGORITHMS[k] if a != "slh-dsa-sha2-128s"}
    items = [it for it in checks.phase1_items(NO_KEYS, selected) if (it.kind, it.alg, it.op) in info.support]
    # every kem and pqsig item of phase 1: ML-KEM, ML-DSA (3 keygen + 1 sign answer + 3), SLH-DSA-128f
    assert len(items) == 3 * (3 * 3 + 2) + 2 + 3 * (3 + 1 + 3) + (3 + 3 + 1)
    res = agent.call(info.path, [checks.request_for(it) for it in items], 900, f"{library} under valgrind",
                     wrapper=("valgrind", "-q", "--error-exitcode=99", "--leak-check=no"))
    assert len(res.responses) == len(items) and res.stderr == ""
