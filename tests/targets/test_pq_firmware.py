"""wolfSSL 5.9 on a Cortex-M4 (qemu:mps2-an386): the wolfssl@5.9 image,
named so and built from the pinned 5.9.2 tree beside the board's other
images, has ML-KEM-768 and the X25519MLKEM768 TLS 1.3 group; its
known-answer check passes on the device, and two runs count exactly the
same instructions, bytes and heap."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools
from plan_text import TLS13_SUITE, memory_tls, plan_text

from tlsbench import versions
from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import target as targets

pytestmark = [needs_tools("qemu-system-arm", "arm-none-eabi-gcc"), builds_in_set_up]

WOLF59 = versions.canonical("wolfssl@5.9")  # its identifier, whichever wolfSSL is the default
PLAN = plan_text("pq-firmware", select={"libraries": [WOLF59], "kinds": ["kem", "tls"], "algorithms": ["ml-kem-768"]},
                 tls=memory_tls([TLS13_SUITE], ["x25519", "x25519mlkem768"], ["full"]),
                 method={"repeats": 1, "warmup": 0, "rounds": 1, "timeout_s": 300})
EXACT = ("instructions", "client_instructions", "server_instructions", "c2s_bytes", "s2c_bytes",
         "client_heap_peak_bytes", "server_heap_peak_bytes", "public_key_bytes", "ciphertext_bytes")


@pytest.fixture(scope="module")
def pq_m4(firmware_images):
    # built under the board folder's lock (tests/images.py): other workers run the M4's images meanwhile
    m4 = firmware_images(targets.parse("qemu:mps2-an386"), ["wolfssl@5.9"])
    assert m4.firmware_path(WOLF59).exists()
    assert m4.firmware_path(WOLF59).parent == m4.cmake_dir()  # the board's own folder, no user tree
    return m4


# the second run repeats the hybrid handshake alone: ML-KEM-768's keygen, encapsulation and
# decapsulation, X25519 and ECDSA all run inside it
AGAIN = (PLAN.replace('kinds = ["kem", "tls"]', 'kinds = ["tls"]').replace('algorithms = ["ml-kem-768"]\n', "")
         .replace('groups = ["x25519", "x25519mlkem768"]', 'groups = ["x25519mlkem768"]'))


def _run(m4, tmp_path: Path, name: str, plan: str = PLAN) -> dict[tuple[str, str], float]:
    store = Store(tmp_path / f"{name}.sqlite")
    run_id = runner.run(parse_plan(plan, "test plan"), plan, store, show_progress=False, target=m4)
    data = report.load(store, run_id)
    store.close()
    assert {c["status"] for c in data.cases} == {"ok"}, [(c["name"], c["reason"]) for c in data.cases]
    if plan == PLAN:
        assert [(c["alg"], c["status"]) for c in data.checks] == [("ml-kem-768", "pass")]
    return {(c["name"], m): r["median"] for c in data.cases for m, r in c["results"].items() if m in EXACT}


def test_ml_kem_and_the_hybrid_handshake_count_the_same_in_a_second_run(pq_m4, tmp_path: Path) -> None:
    first, second = _run(pq_m4, tmp_path, "a"), _run(pq_m4, tmp_path, "b", AGAIN)
    assert {name for name, _m in second} == {WOLF59 + "/tls/TLS_AES_128_GCM_SHA256/x25519mlkem768/ecdsa-p256-full"}
    assert second == {key: first.get(key) for key in second}
    assert first[(f"{WOLF59}/kem/ml-kem-768/keygen", "public_key_bytes")] == 1184
    tls = WOLF59 + "/tls/TLS_AES_128_GCM_SHA256/{}/ecdsa-p256-full"
    hybrid, classic = tls.format("x25519mlkem768"), tls.format("x25519")
    # the hybrid's shares: ML-KEM-768's key (1,184 B) and ciphertext (1,088 B) on top of X25519's; the
    # server's ECDSA signature (DER, 70-72 B) differs with the transcript it signs
    assert first[(hybrid, "c2s_bytes")] - first[(classic, "c2s_bytes")] == 1184
    assert 1088 - 2 <= first[(hybrid, "s2c_bytes")] - first[(classic, "s2c_bytes")] <= 1088 + 2
    assert first[(hybrid, "client_instructions")] > first[(classic, "client_instructions")]
