"""docs/results-min-ram.md's generator (tlsbench study results-min-ram): every statement of the page is
computed from the runs' stored figures; here on small made-up runs (no measurement)."""

from __future__ import annotations

import pytest

from tlsbench.engine.store import RunInfo
from tlsbench.errors import TlsbenchError
from tlsbench.plans.plan import presets
from tlsbench.report.tables import RunData
from tlsbench.studies import resultsminram as page

TLS12 = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
TLS13 = "TLS_AES_128_GCM_SHA256"


def _case(lib: str, suite: str, op: str, status: str = "ok", reason: str = "", **figures: int) -> dict:
    return {"name": f"{lib}/min-ram/{suite}/{op}", "library": lib, "kind": "min-ram", "alg": suite, "op": op,
            "status": status, "reason": reason, "results": {m: {"median": v} for m, v in figures.items()}}


def _sides(client: int, server: int, peak_extra: int = 0, config: int = 1000) -> dict[str, int]:
    return {"client_min_heap_bytes": client, "client_conn_heap_peak_bytes": client + peak_extra,
            "client_stack_bytes": 1500, "client_endpoint_heap_bytes": config,
            "server_min_heap_bytes": server, "server_conn_heap_peak_bytes": server,
            "server_stack_bytes": 1900, "server_endpoint_heap_bytes": config}


def _run(run_id: int, cases: list[dict], profiles: dict[str, str], plan: str = "min-ram", flags: str = "") -> RunData:
    # the plan source as `tlsbench run --preset min-ram [flags]` stores it
    source = presets()["min-ram"].read_text() + (f"\n# overridden on the command line: {flags}\n" if flags else "")
    info = RunInfo(run_id, 1795000000.0, 1795000125.0, "complete", "qemu:mps2-an386", plan, source, {},
                   {"profiles": profiles}, "0.1.0+abcdef123456", {})
    libs = [{"library": lib, "version": {"mbedtls": "Mbed TLS 3.6.7", "wolfssl": "5.9.2"}[lib]}
            for lib in dict.fromkeys(c["library"] for c in cases)]
    sizes = [{"library": lib["library"], "component": "library", "flash_bytes": 1, "ram_bytes": 1256}
             for lib in libs]
    return RunData(run=info, libraries=libs, checks=[], cases=cases, code_sizes=sizes)


SMALL = _run(1, [
    _case("mbedtls", TLS13, "x25519/ecdsa-p256-full", **_sides(20196, 18224)),
    _case("mbedtls", TLS12, "x25519/ecdsa-p256-full/mfl=512", **_sides(18364, 15296), negotiated_max_frag_bytes=512),
    _case("mbedtls", TLS12, "x25519/ecdsa-p256-full", **_sides(18364, 15296)),
    _case("mbedtls", TLS13, "x25519/ecdsa-p256-full/mfl=512", "unsupported",
          "Mbed TLS 3.6 asks for a maximum fragment length in TLS 1.2 only"),
    _case("mbedtls", TLS13, "x25519/ecdsa-p256-full/resume-psk-only", **_sides(18200, 16524)),
], {"mbedtls": "small"})
SMALL_2K = _run(3, [
    _case("mbedtls", TLS12, "x25519/ecdsa-p256-full", **_sides(14268, 11200)),
    _case("mbedtls", TLS13, "x25519/ecdsa-p256-full", **_sides(16100, 12360, peak_extra=32)),
], {"mbedtls": "small-2k"}, flags="--libraries mbedtls")
SAME = (["summary: 5 same", "deterministic metrics: 40 same"], True, (0, 0))


def test_the_heap_table_orders_by_protocol_then_handshake_and_names_what_was_not_measured() -> None:
    assert page.heap_rows(SMALL) == [
        ["mbedtls (small)", "TLS 1.2 ECDHE-ECDSA (X25519, P-256)", "none", "18,364", "18,364", "1,500", "15,296",
         "15,296", "1,900", "-"],
        ["mbedtls (small)", "TLS 1.2 ECDHE-ECDSA (X25519, P-256)", "512", "18,364", "18,364", "1,500", "15,296",
         "15,296", "1,900", "512"],
        ["mbedtls (small)", "TLS 1.3 X25519 + ECDSA P-256", "none", "20,196", "20,196", "1,500", "18,224", "18,224",
         "1,900", "-"],
        ["mbedtls (small)", "TLS 1.3 X25519 + ECDSA P-256", "512",
         "unsupported: Mbed TLS 3.6 asks for a maximum fragment length in TLS 1.2 only", "", "", "", "", "", ""],
        ["mbedtls (small)", "TLS 1.3 X25519 + ECDSA P-256, PSK resumption (psk_ke)", "none", "18,200", "18,200",
         "1,500", "16,524", "16,524", "1,900", "-"]]


def test_the_findings_are_the_stored_figures_compared() -> None:
    assert page.fallback_finding([SMALL, SMALL_2K]) == (
        "**The least heap equals the uncapped peak in 11 of 12 case sides**: there, one byte less than the peak"
        " fails (the search confirms it), so the library does not fall back under a cap. Less than the peak"
        " suffices in mbedtls (small-2k), TLS 1.3 X25519 + ECDSA P-256, client: 16,100 B against a peak of"
        " 16,132 B.")
    assert page.mfl_rows(SMALL) == [["mbedtls (small)", "TLS 1.2 ECDHE-ECDSA (X25519, P-256)", "512",
                                     "+0", "+0", "+0", "+0"]]
    assert page.record_size_rows([SMALL, SMALL_2K], "mbedtls") == [
        ["TLS 1.2 ECDHE-ECDSA (X25519, P-256)", "none", "client", "18,364", "14,268", "-4,096"],
        ["TLS 1.2 ECDHE-ECDSA (X25519, P-256)", "none", "server", "15,296", "11,200", "-4,096"],
        ["TLS 1.3 X25519 + ECDSA P-256", "none", "client", "20,196", "16,100", "-4,096"],
        ["TLS 1.3 X25519 + ECDSA P-256", "none", "server", "18,224", "12,360", "-5,864"]]
    assert page.record_size_rows([SMALL], "mbedtls") == []  # one profile: nothing to compare
    assert page.psk_finding(SMALL) == ["mbedtls (small): 18,200 / 16,524 B (client / server) with PSK resumption,"
                                       " 20,196 / 18,224 B for the full TLS 1.3 handshake"]
    # 1,000 config + heap + 1,500 or 1,900 stack + 1,256 static: the server's TLS 1.2 and PSK sides fit 20 KiB
    assert page.fit_lines(SMALL) == ["mbedtls (small), 8 case sides: 2 fit 20 KiB, 8 fit 32 KiB, 8 fit 64 KiB,"
                                     " 8 fit 128 KiB, 8 fit 256 KiB"]


def test_the_page_shows_each_pair_and_its_agreement() -> None:
    second, second_2k = (_run(n, d.cases, d.run.machine["profiles"], flags=f)
                         for n, d, f in ((2, SMALL, ""), (4, SMALL_2K, "--libraries mbedtls")))
    text = page.render([SMALL, second, SMALL_2K, second_2k], [SAME, (["summary: 2 same", "deterministic"
                                                                      " metrics: 1 same, 1 changed"], False, (2, 0))])
    # a run that copied cases from the result cache was not made with --no-cache
    assert ("tlsbench run --preset min-ram --libraries mbedtls --target qemu:mps2-an386 --profile mbedtls=small-2k"
            "   # twice: runs 3 and 4") in text
    assert ("- runs 1 and 2 (`tlsbench run --preset min-ram --target qemu:mps2-an386 --profile mbedtls=small"
            " --no-cache`; tlsbench abcdef123456 and"
            " abcdef123456): every exact figure is identical; `tlsbench compare 1 2`: summary: 5 same; deterministic"
            " metrics: 40 same; run 1 measured all 5 cases, run 2 measured all 5 cases. Wall time 2 min 05 s and"
            " 2 min 05 s") in text
    assert ("run 3 copied 2 of its 2 cases from the result cache (measured before with the same image, inputs and"
            " code), run 4 measured all 2 cases") in text
    assert "Each command was run twice; each pair's line says how many cases a run copied from the result" in text
    assert "- runs 3 and 4 (" in text and "**the runs DIFFER** (tlsbench compare)" in text
    assert "Made from 2026-11-18 with today's default versions (mbedtls Mbed TLS 3.6.7)" in text
    assert "- **mbedtls under two build profiles** (mbedtls (small) against mbedtls (small-2k)" in text
    assert "differs by -4,096, -5,864 B." in text
    assert "Mbed TLS sizes its record buffers at compile time" in text  # mfl changed nothing for Mbed TLS


def test_runs_that_are_not_pairs_are_refused_in_one_line() -> None:
    with pytest.raises(TlsbenchError, match=r"^1 runs: give them in pairs, each command's first run then its"
                       r" second$"):
        page.render([SMALL], [])
    with pytest.raises(TlsbenchError, match=r"^runs 1 and 3 are not a pair \(plan, target or profiles differ\)$"):
        page.render([SMALL, SMALL_2K], [SAME])
    other = _run(5, [{**SMALL.cases[0], "kind": "tls"}], {"mbedtls": "small"}, plan="cortex-m")
    with pytest.raises(TlsbenchError, match=r"^run 5 \(cortex-m\) has no min-ram case \(results-min-ram renders the"
                       r" least-heap searches\)$"):
        page.render([SMALL, other], [SAME])


def test_a_device_side_is_set_beside_the_same_side_in_one_image() -> None:
    client = {"client_min_heap_bytes": 20180, "client_conn_heap_peak_bytes": 20180, "client_stack_bytes": 2956}
    device = _run(7, [_case("mbedtls", TLS13, "x25519/ecdsa-p256-full/device=client", **client),
                      _case("mbedtls", TLS12, "x25519/ecdsa-p256-full/device=client",
                            **{**client, "client_min_heap_bytes": 18348})], {"mbedtls": "small"}, plan="min-ram-device")
    assert page.is_device_run(device) and not page.is_device_run(SMALL)
    assert page.device_rows(device, [SMALL]) == [
        ["mbedtls (small)", "TLS 1.2 ECDHE-ECDSA (X25519, P-256)", "client", "18,364", "18,348", "-16"],
        ["mbedtls (small)", "TLS 1.3 X25519 + ECDSA P-256", "client", "20,196", "20,180", "-16"]]
    assert page.device_rows(device, [SMALL_2K]) == []  # another profile: not the same firmware
    assert page.heap_rows(device)[0][6:] == ["host peer", "", "", "-"]  # the host's side is never searched
