"""One side of the handshake on the device (qemu:mps2-an386), its peer the
host agent of the same library, the records relayed over the UART.

For the same suite, group and certificates, what the device client counts
(bytes and records each way, flights, round trips) equals the in-image
handshake, record by record, except the one record that carries the
server's ECDSA signature: its DER length (70 to 72 bytes) depends on the
random nonce, and a TLS 1.3 server may pad the record to 16 bytes. The
device's counts are also exactly the bytes the relay carried, and the same
in every run (the host peer draws from a fixed test stream too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import needs_tools
from device_compare import check_plan_cases, image_and_device, record_lengths, server_records_differ
from plan_text import TLS12_SUITE, TLS13_SUITE, device_plan

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError, TlsbenchError
from tlsbench.families.tls import device as device_tls
from tlsbench.families.tls import tables as tls_tables
from tlsbench.families.tls.cases import run_handshakes
from tlsbench.families.tls.runner import TlsVariant, tls_case
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import build
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

CASES = [  # suite, variant, whether the server signs
    ("TLS_AES_128_GCM_SHA256", "x25519/ecdsa-p256-full", True),
    ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "x25519/ecdsa-p256-full", True),
    ("TLS_PSK_WITH_AES_128_GCM_SHA256", "psk-kx/psk-none", False),
]


@pytest.fixture(scope="module")
def material() -> dict:
    return {}  # one set of chains and one PSK for every case of the module


@pytest.mark.parametrize("library", build.FIRMWARE_LIBRARIES)
@pytest.mark.parametrize(("suite", "op", "signed"), CASES)
def test_device_client_counts_equal_the_in_image_handshake(firmware, material, library: str, suite: str, op: str,
                                                           signed: bool) -> None:
    tc = tls_case(suite, TlsVariant.parse(op), material, 0)
    image, dev = image_and_device(firmware, firmware, library, tc, "client")
    i, d = image.samples[0], dev.of_type("tls")[0]
    assert d["side"] == "client" and "server_instructions" not in d.fields and d["client_instructions"] > 0
    for f in ("c2s_bytes", "c2s_records", "s2c_records", "flights", "round_trips", "total_c2s_bytes"):
        assert d[f] == i[f], (f, d[f], i[f])
    # the device counted exactly the bytes the relay carried (the measured connection is the last)
    c2s, s2c = dev.connections[-1]
    assert (d["total_c2s_bytes"], d["total_s2c_bytes"]) == (len(c2s), len(s2c))
    # the in-image transcript comes from its counted (memory) connection, not a timed one
    m = image.memory
    assert m is not None and m["c2s_bytes"] == i["c2s_bytes"]
    assert c2s[: d["c2s_bytes"]] and (record_lengths(c2s[: d["c2s_bytes"]])
                                      == record_lengths(image.wire["client"][: m["c2s_bytes"]]))
    differ = server_records_differ(s2c[: d["s2c_bytes"]], image.wire["server"][: m["s2c_bytes"]], signed)
    assert d["s2c_bytes"] - m["s2c_bytes"] == sum(a - b for a, b in differ)
    stack = dev.of_type("tls_stack")
    assert len(stack) == 1 and stack[0]["client_stack"] > 256 and "server_stack" not in stack[0].fields


def test_a_damaged_rx_line_is_refused_by_the_device(firmware, material, monkeypatch: pytest.MonkeyPatch) -> None:
    tc = tls_case(CASES[0][0], TlsVariant.parse(CASES[0][1]), material, 0)
    good = device_tls._rx_line
    monkeypatch.setattr(device_tls, "_rx_line", lambda data: good(data)[:-3] + b"00\n")  # a wrong crc
    dev = device_tls.run(firmware, "mbedtls", tc, "client", repeats=1, warmup=0)
    assert dev.status == "error" and "rx line damaged" in dev.message


PLAN = device_plan("device-side", ["mbedtls", "wolfssl"], [TLS13_SUITE, TLS12_SUITE], ["full", "resume-psk-only"],
                  device_side="client", method={"repeats": 2, "warmup": 1})


def test_a_plan_puts_the_client_on_the_device_and_its_counts_repeat(firmware, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    # the second run repeats the full handshakes (both suites, both libraries), not the resumptions
    again = PLAN.replace('handshakes = ["full", "resume-psk-only"]', 'handshakes = ["full"]')
    runs = [runner.run(parse_plan(text, "test plan"), text, store, show_progress=False, target=firmware,
                       cache=False)  # the second run is measured again, never reused
            for text in (PLAN, again)]
    assert store.reuse_marks(runs[1]) == {}
    data = [report.load(store, r) for r in runs]
    cases = {c["name"]: c for c in data[0].cases}
    # TLS 1.2 too: the server's random carries its clock (Mbed TLS), frozen like the device's
    check_plan_cases(cases, "client", {"client_instructions", "client_heap_peak_bytes", "client_stack_bytes",
                                       "c2s_bytes", "s2c_bytes", "flights", "round_trips"})
    counts = [{(c["name"], m): r["median"] for c in d.cases for m, r in c["results"].items()} for d in data]
    assert len({name for name, _m in counts[1]}) == 4 and not any("resume" in name for name, _m in counts[1])
    assert counts[1] == {key: counts[0].get(key) for key in counts[1]}
    for lib in ("mbedtls", "wolfssl"):  # a resumed TLS 1.3 handshake (PSK without ECDHE) costs far less
        base = f"{lib}/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full/"
        full, psk = (counts[0][(base + o + "device=client", "client_instructions")] for o in ("", "resume-psk-only+"))
        assert psk < full / 5, (lib, full, psk)
    store.close()


def test_device_side_is_checked_where_it_is_given() -> None:
    bad = PLAN.replace('device_side = "client"', 'device_side = "both"')
    with pytest.raises(PlanError, match=r'test plan:11: \[tls\] device_side: must be one of: "client", "server"'):
        parse_plan(bad, "test plan")
    with pytest.raises(TlsbenchError, match="give a firmware target"):
        runner.fit_to_target(parse_plan(PLAN, "test plan"), targets.HOST)


@pytest.mark.parametrize("library", build.FIRMWARE_LIBRARIES)
def test_the_server_on_the_device_counts_what_the_in_image_server_does(firmware, material, library: str) -> None:
    suite, op, _signed = CASES[2]  # a PSK suite: no signature, every byte the same
    tc = tls_case(suite, TlsVariant.parse(op), material, 0)
    image = run_handshakes(targets.write_launcher(firmware, library), tc, repeats=1, warmup=0, timeout=300)
    dev = device_tls.run(firmware, library, tc, "server", repeats=1, warmup=0)
    assert image.status == "ok" and dev.status == "ok", (image.message, dev.message)
    i, d = image.samples[0], dev.of_type("tls")[0]
    assert d["side"] == "server" and d["server_instructions"] > 0 and "client_instructions" not in d.fields
    assert "round_trips" not in d.fields  # the client's to count
    for f in ("c2s_bytes", "s2c_bytes", "c2s_records", "s2c_records", "flights", "total_c2s_bytes",
              "total_s2c_bytes"):
        assert d[f] == i[f], (f, d[f], i[f])
    assert dev.of_type("tls_stack")[0]["server_stack"] > 256


# ---- a device side under a board profile's cycle model ----

PSK_PLAN = """
name = "device-client-model"
[select]
libraries = ["mbedtls"]
kinds = ["tls"]
[tls]
suites = ["TLS_PSK_WITH_AES_128_GCM_SHA256"]
device_side = "client"
[method]
repeats = 2
warmup = 0
rounds = 1
outliers = "none"
timeout_s = 300
"""
PSK_CASE = "mbedtls/tls/TLS_PSK_WITH_AES_128_GCM_SHA256/psk-kx/psk-none/device=client"
MODEL_METRICS = {f"{p}client_{m}" for p in ("", "app_") for m in ("model_cycles", "model_time_ns")}


def _psk_run(firmware: targets.Target, tmp_path: Path, board: str | None,
             monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict[str, str]]:
    """The PSK case's results with the device as client, under `board`'s cycle model or none; and
    its row of the TLS table, by column."""
    from tlsbench.targets import cyclemodel

    with monkeypatch.context() as m:
        m.delenv(cyclemodel.MODEL_SHA_ENV, raising=False)
        if board is None:
            m.delenv(cyclemodel.MODEL_ENV, raising=False)
        else:
            cyclemodel.build_plugin()
            m.setenv(cyclemodel.MODEL_ENV, board)
        store = Store(tmp_path / f"{board}.sqlite")
        run = runner.run(parse_plan(PSK_PLAN, "test plan"), PSK_PLAN, store, show_progress=False, target=firmware)
        data = report.load(store, run)
        store.close()
    (case,) = data.cases
    assert (case["name"], case["status"]) == (PSK_CASE, "ok"), case.get("reason")
    header, (row,) = tls_tables.tls_table(data)
    return case["results"], dict(zip(header, row, strict=True))


def test_a_device_client_keeps_its_model_cycles_and_time(firmware, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """With a board profile the device client's results carry model cycles
    and time exactly as a both-sides handshake's do; the model leaves its
    instruction counts as they were; without one there is no model figure at
    all (never a zero)."""
    from tlsbench.targets import boardprofiles

    plain, plain_row = _psk_run(firmware, tmp_path, None, monkeypatch)
    modelled, row = _psk_run(firmware, tmp_path, "nucleo-f446re", monkeypatch)
    assert not any("model" in metric for metric in plain)
    assert not any("model" in column for column in plain_row)  # no column of zeros either
    assert MODEL_METRICS <= set(modelled)
    # the TLS table shows the device side's model figures; the host peer's are not measured
    shown = modelled["client_model_cycles"]
    varies = " (varies)" if shown["min"] != shown["max"] else ""
    assert row["client model cycles"] == f"{shown['median']:,.0f}{varies}"
    assert (row["server model cycles"], row["server model time"]) == ("n/m", "n/m")
    for metric in ("client_instructions", "app_client_instructions", "c2s_bytes", "s2c_bytes"):
        assert modelled[metric]["median"] == plain[metric]["median"], metric
    clock = boardprofiles.load("nucleo-f446re").clock_hz
    for p in ("", "app_"):
        cycles = modelled[f"{p}client_model_cycles"]
        # the two connections run the same instructions and differ by a few cycles at most (the second
        # meets the ART and its buffers as the first left them: 5 cycles in this image, not traced), at
        # least one cycle per instruction on a Cortex-M4
        assert modelled[f"{p}client_instructions"]["min"] == modelled[f"{p}client_instructions"]["max"]
        assert cycles["max"] - cycles["min"] <= 10
        assert cycles["min"] >= modelled[f"{p}client_instructions"]["median"]
        assert modelled[f"{p}client_model_time_ns"]["median"] == pytest.approx(cycles["median"] * 1e9 / clock)
    assert not any(metric.startswith("server_") for metric in modelled)
    # the exact figures of this image (Mbed TLS as libraries.lock.toml pins it, Debian's arm-none-eabi-gcc,
    # -Os): a change of either moves them, and the new values belong here with the reason
    assert {m: modelled[m]["median"] for m in ("client_instructions", "client_model_cycles",
                                               "app_client_instructions", "app_client_model_cycles")} == {
        # model cycles were 727,520 and 47,562 before the firmware gained the no_room flag and the hw driver
        # hooks (the same instructions, the code laid out elsewhere in flash: other ART misses); 535,506
        # instructions and 728,994 / 47,791 cycles before the platform's shared files (heap_sbrk.c,
        # tim2_wraps.c, the core's family tables) moved code and data: the handshake's C code is unchanged,
        # 53 instructions fewer (not traced; the C library's copies see other buffer alignments); 729,698 /
        # 47,532 cycles before the UART wait slept instead of polling (other lines in the ART when a call
        # starts; the same instructions); 731,107 / 47,647 before the ART model counted the cycles run in a line
        # since it was fetched, across the blocks QEMU splits it into (more of the next line's fetch hidden)
        # 535,453 instructions and 723,345 / 47,115 cycles, both connections alike, before the in-memory
        # driver's memory pass became a loop (core/tls.c, memory_passes: the code laid out elsewhere in flash);
        # then 722,930 and 722,935 cycles (46,999 and 47,004) for the two connections, until the core gained the
        # socket server's warm pass (tb_tls_warm, unused on the device: the code laid out elsewhere in flash,
        # the same instructions); 721,916 and 47,220 until the TLS request gained the capacity client's window_ms
        # (a field of the request the firmware parses too: its code laid out elsewhere in flash, the same
        # instructions; the two connections now a few cycles apart)
        "client_instructions": 535_506, "client_model_cycles": 721_985.5,
        "app_client_instructions": 31_830, "app_client_model_cycles": 47_095.5}


def test_the_host_peer_waits_for_the_device_as_long_as_the_case_may_take() -> None:
    """A handshake step of an emulated device under the cycle model can outlast a host peer's default
    20 s between flights on a loaded machine: the peer waits the case's timeout, within the agent's limit."""
    assert [device_tls.peer_wait_ms(t) for t in (0.0005, 300, 1000)] == [1, 300_000, 600_000]
