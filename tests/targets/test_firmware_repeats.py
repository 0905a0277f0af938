"""Every repeat of a firmware case does the same work: the deterministic
seed stream and the libraries' generators restart before every batch and
every handshake (tb_rng_restart), so P-256 key generation, ECDSA signing and
ECDSA-signed TLS 1.3 and 1.2 handshakes (the signature's length is in the
bytes sent) give the same count in every repeat, for Mbed TLS and wolfSSL."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_tools
from plan_text import TLS12_SUITE, TLS13_SUITE, memory_tls, plan_text

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

PLAN = plan_text(
    "firmware-repeats",
    select={"libraries": ["mbedtls", "wolfssl"], "kinds": ["kex", "sig", "tls"],
            "algorithms": ["p256", "ecdsa-p256-sha256"], "ops": ["keygen", "sign"]},
    tls=memory_tls([TLS13_SUITE, TLS12_SUITE], ["p256"], ["full"]),
    method={"repeats": 3, "warmup": 1, "timeout_s": 300})


def test_every_repeat_of_a_case_counts_the_same(firmware, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    run_id = runner.run(parse_plan(PLAN, "test plan"), PLAN, store, show_progress=False, target=firmware)
    cases = report.load(store, run_id).cases
    assert {c["status"] for c in cases} == {"ok"}, [(c["name"], c["status"], c["reason"]) for c in cases]
    kinds = {(c["library"], c["kind"]) for c in cases}
    assert kinds == {(lib, k) for lib in ("mbedtls", "wolfssl") for k in ("kex", "sig", "tls")}
    checked = 0
    for c in cases:
        for metric, r in c["results"].items():
            if r["n"] > 1:  # the repeats' own values (heap and stack come from one pass)
                assert r["min"] == r["max"], (c["name"], metric, r["min"], r["max"])
                checked += 1
    for lib in ("mbedtls", "wolfssl"):
        tls = [c for c in cases if c["library"] == lib and c["kind"] == "tls"]
        assert len(tls) == 2  # TLS 1.3 (PSA's key shares in Mbed TLS) and TLS 1.2
        for c in tls:
            for metric in ("client_instructions", "server_instructions", "c2s_bytes", "s2c_bytes"):
                assert c["results"][metric]["n"] == 3, (c["name"], metric)
        keygen = next(c for c in cases if c["library"] == lib and c["kind"] == "kex")
        assert keygen["results"]["instructions"]["n"] == 3
    assert checked >= 22
