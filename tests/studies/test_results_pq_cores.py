"""docs/results-pq-cores.md's generator (tlsbench study results-pq-cores): the summary table is each run's
stored counts; here on small made-up runs (no measurement)."""

from __future__ import annotations

import pytest

from tlsbench.engine.store import RunInfo
from tlsbench.errors import TlsbenchError
from tlsbench.report.tables import RunData
from tlsbench.studies import resultspqcores as page


def _case(name: str, **figures: int) -> dict:
    lib, kind, alg, op = name.split("/", 3)
    return {"name": name, "library": lib, "kind": kind, "alg": alg, "op": op, "status": "ok", "reason": "",
            "results": {m: {"median": v} for m, v in figures.items()}}


def _run(run_id: int, target: str, cpu: str, scale: int, c2s: int = 249, plan: str = "pq-cortex-m") -> RunData:
    tls = "wolfssl/tls/TLS_AES_128_GCM_SHA256"
    heap = "wolfssl/min-ram/TLS_AES_128_GCM_SHA256"
    cases = [_case("wolfssl/kem/ml-kem-768/keygen", instructions=1 * scale),
             _case("wolfssl/kem/ml-kem-768/encaps", instructions=2 * scale),
             _case("wolfssl/kem/ml-kem-768/decaps", instructions=3 * scale),
             _case("wolfssl/pqsig/ml-dsa-44/sign", instructions=4 * scale),
             # ML-DSA-44 verify not measured: shown as such, never as a zero
             _case(f"{tls}/x25519/ecdsa-p256-full", client_instructions=5 * scale, server_instructions=6 * scale,
                   c2s_bytes=c2s, s2c_bytes=1636),
             _case(f"{tls}/x25519mlkem768/ecdsa-p256-full", client_instructions=7 * scale,
                   server_instructions=8 * scale, c2s_bytes=1433, s2c_bytes=2725),
             _case(f"{heap}/x25519/ecdsa-p256-full", client_min_heap_bytes=13364, server_min_heap_bytes=16708),
             _case(f"{heap}/x25519mlkem768/ecdsa-p256-full", client_min_heap_bytes=22388,
                   server_min_heap_bytes=20896)]
    info = RunInfo(run_id, 1795000000.0, 1795000100.0, "complete", target, plan, "", {}, {"board_cpu": cpu},
                   "0.1.0+abcdef123456", {})
    return RunData(run=info, libraries=[{"library": "wolfssl", "version": "5.9.2"}], checks=[], cases=cases)


M3 = _run(1, "qemu:mps2-an385", "cortex-m3", 1000)
RV = _run(2, "qemu:rv32-virt", "rv32imc", 2000, c2s=251)


def test_a_row_is_the_runs_stored_counts_and_a_missing_one_is_not_measured() -> None:
    assert page.summary_row(M3) == ["Cortex-M3 (qemu:mps2-an385)", "1,000 / 2,000 / 3,000", "4,000 / n/m",
                                    "5,000 / 6,000", "7,000 / 8,000", "13,364 / 16,708", "22,388 / 20,896"]
    assert page.core_label(RV) == "RV32IMC (qemu:rv32-virt)"


def test_the_bytes_are_one_figure_only_when_every_core_sent_the_same() -> None:
    assert page.bytes_note([M3, RV]) == ("both sides' bytes are with X25519: 249 + 1,636 B on Cortex-M3"
                                         " (qemu:mps2-an385), 251 + 1,636 B on RV32IMC (qemu:rv32-virt) and 1,433 +"
                                         " 2,725 B with X25519MLKEM768 on every core")


def test_the_page_is_the_summary_then_each_runs_own_page_one_heading_level_down() -> None:
    assert page.demoted("# A\n\n```\n# not a heading\n```\n## B") == "## A\n\n```\n# not a heading\n```\n### B"
    with pytest.raises(TlsbenchError, match=r"^run 3 is not a pq-cortex-m run \(results-pq-cores renders the"
                       r" pq-cortex-m preset\)$"):
        page.render([M3, _run(3, "qemu:mps2-an500", "cortex-m7", 1, plan="cortex-m")])


def test_the_page_says_which_runs_copied_cases_from_the_result_cache() -> None:
    assert page.measured_note([M3, RV], {}) == "every run measured all its cases (runs 1, 2)"
    assert page.measured_note([M3, RV], {2: 3}) == ("run 2 copied 3 of its 8 cases from the result cache (measured"
                                                    " before with the same image, inputs and code)")


def test_the_commands_name_no_cache_only_for_runs_that_copied_nothing() -> None:
    plan = " (PLAN: the plan as given, in the report's context)"
    assert page.commands([M3, RV], {2: 3}) == [f"tlsbench run PLAN --target qemu:mps2-an385{plan} --no-cache",
                                               f"tlsbench run PLAN --target qemu:rv32-virt{plan}"]
