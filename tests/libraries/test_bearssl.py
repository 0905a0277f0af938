"""BearSSL 0.6 as a library under test: its host agent passes the same
checks as the others (known answers, agreement with OpenSSL and
pyca/cryptography) and completes TLS 1.2 full and session-ID handshakes in
memory with exact bytes and no heap; what it lacks is "unsupported" with a
reason. On the emulated Cortex-M4 the same plan gives identical
instruction counts in two runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import needs_tools
from plan_text import BOARD_METHOD, TLS12_SUITE, TLS13_SUITE, memory_tls, plan_text

from tlsbench import paths
from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import build
from tlsbench.targets import target as targets

FULL = "bearssl/tls/TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256/x25519/ecdsa-p256-full"
HOST_PLAN = plan_text(
    "bearssl-host",
    select={"libraries": ["bearssl", "openssl"], "kinds": ["hash", "aead", "kex", "sig", "pke", "tls"],
            "algorithms": ["sha256", "sha3-256", "aes-128-gcm", "chacha20-poly1305", "x25519", "x448",
                           "ecdsa-p256-sha256", "rsa2048-pkcs1-sha256", "rsa2048-pss-sha256", "rsa2048-pkcs1v15"],
            "sizes": [64]},
    tls=memory_tls([TLS12_SUITE, TLS13_SUITE], ["x25519"], ["full", "resume-id"]),
    method={"repeats": 1, "warmup": 0, "rounds": 1, "min_sample_ms": 1, "outliers": "none", "timeout_s": 120})
FIRMWARE_PLAN = plan_text(
    "bearssl-firmware",
    select={"libraries": ["bearssl"], "kinds": ["hash", "tls"], "algorithms": ["sha256"], "sizes": [64]},
    tls=memory_tls([TLS12_SUITE], ["x25519"], ["full", "resume-id"]), method=BOARD_METHOD)


def _cases(store: Store, run_id: int) -> dict[str, dict]:
    return {c["name"]: c for c in report.load(store, run_id).cases}


def _medians(case: dict) -> dict[str, float]:
    return {m: r["median"] for m, r in case["results"].items()}


@pytest.fixture(scope="module")
def host_agent() -> Path:
    if not all(paths.agent_path(lib).exists() for lib in (*LIBRARIES, "bearssl")):
        build.build_agents([*LIBRARIES, "bearssl"])
    return paths.agent_path("bearssl")


def test_host_checks_pass_and_tls12_completes_with_exact_bytes_and_no_heap(host_agent, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    run = runner.run(parse_plan(HOST_PLAN, "test plan"), HOST_PLAN, store, show_progress=False, target=targets.HOST)
    cases = _cases(store, run)
    status = {n: c["status"] for n, c in cases.items() if n.startswith("bearssl/")}
    for name in ("hash/sha256/hash/64", "aead/aes-128-gcm/decrypt/64", "aead/chacha20-poly1305/encrypt/64",
                 "kex/x25519/derive", "sig/ecdsa-p256-sha256/verify", "sig/rsa2048-pkcs1-sha256/sign"):
        assert status[f"bearssl/{name}"] == "ok", (name, cases[f"bearssl/{name}"]["reason"])
    # what BearSSL 0.6 lacks is said, never a zero
    for name in ("hash/sha3-256/hash/64", "kex/x448/derive", "sig/rsa2048-pss-sha256/sign",
                 "pke/rsa2048-pkcs1v15/encrypt", "tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full"):
        assert status[f"bearssl/{name}"] == "unsupported", name
    # decrypt passes its check (a pyca/cryptography ciphertext) but its benchmark needs the library's encrypt
    assert status["bearssl/pke/rsa2048-pkcs1v15/decrypt"] == "unsupported"
    assert "no public PKCS#1 v1.5 encryption" in cases["bearssl/pke/rsa2048-pkcs1v15/decrypt"]["reason"]
    assert "no TLS 1.3" in cases["bearssl/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full"]["reason"]
    full, resumed = _medians(cases[FULL]), _medians(cases[FULL + "/resume-id"])
    # ClientHello, then ClientKeyExchange + CCS + Finished: no random length in them
    assert full["c2s_bytes"] == 223 and full["round_trips"] == 2
    # abbreviated: ClientHello with the session ID; ServerHello + CCS + Finished
    assert (resumed["c2s_bytes"], resumed["s2c_bytes"], resumed["round_trips"]) == (213, 137, 1)
    for side in ("client", "server"):  # BearSSL allocates nothing; its buffers are static
        assert full[f"{side}_heap_peak_bytes"] == 0 and resumed[f"{side}_heap_peak_bytes"] == 0
        assert full[f"{side}_stack_bytes"] > 0
    store.close()


@needs_tools("qemu-system-arm", "arm-none-eabi-gcc")
def test_firmware_counts_of_the_full_handshake_are_identical_in_a_second_run(tmp_path: Path, firmware_images) -> None:
    m4 = firmware_images(targets.parse("qemu:mps2-an386"), ["bearssl"])
    store = Store(tmp_path / "r.sqlite")
    # the second run repeats the full handshake alone (its key exchange and signature: what a
    # seed or clock left to chance would move), not the whole plan
    again = (FIRMWARE_PLAN.replace('kinds = ["hash", "tls"]', 'kinds = ["tls"]')
             .replace('algorithms = ["sha256"]\n', "").replace('"full", "resume-id"', '"full"'))
    runs = [runner.run(parse_plan(text, "test plan"), text, store, show_progress=False, target=m4,
                       cache=False)  # the second run is measured again, never reused
            for text in (FIRMWARE_PLAN, again)]
    assert store.reuse_marks(runs[1]) == {}
    first, second = _cases(store, runs[0]), _cases(store, runs[1])
    assert {n: c["status"] for n, c in first.items()} == {n: "ok" for n in first}
    assert list(second) == [FULL]
    assert _medians(second[FULL]) == _medians(first[FULL])
    full, resumed = _medians(first[FULL]), _medians(first[FULL + "/resume-id"])
    assert (full["c2s_bytes"], full["s2c_bytes"]) == (223, 1583)  # a deterministic seed: the signature too
    assert (resumed["c2s_bytes"], resumed["s2c_bytes"]) == (213, 137)
    assert resumed["client_instructions"] < full["client_instructions"] / 10
    assert full["client_heap_peak_bytes"] == 0 and full["server_heap_peak_bytes"] == 0
    assert _medians(first["bearssl/hash/sha256/hash/64"])["instructions"] > 0
    store.close()
