"""Mbed TLS and wolfSSL firmware on the emulated Cortex-M4 (qemu:mps2-an386)
through the whole pipeline: build, checks, runner, store, report. A second
run of one case per kind (the handshakes with both their key exchange and
signatures among them) must give identical counts for every metric, and
the code-size parts must add up to what arm-none-eabi-size says."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import needs_tools
from plan_text import TLS12_SUITE, TLS13_SUITE, memory_tls, plan_text

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.families.size import maps as sizes
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import build

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

PLAN = plan_text(
    "firmware-twice",
    select={"libraries": ["mbedtls", "wolfssl"], "kinds": ["hash", "aead", "kex", "sig", "tls"],
            "algorithms": ["sha256", "aes-128-gcm", "chacha20-poly1305", "x25519", "ecdsa-p256-sha256", "ed25519"],
            "sizes": [64, 1024]},
    tls=memory_tls([TLS13_SUITE, TLS12_SUITE], ["x25519"], ["full", "resume-ticket"]),
    method={"repeats": 2, "warmup": 0, "timeout_s": 300})

# Every case boots its own emulator, so a case's counts do not depend on the cases run
# before it: a second run of these, one per kind and library, shows the counts repeat
# (20 of its 42 cases)
AGAIN = plan_text(
    "firmware-again",
    select={"libraries": ["mbedtls", "wolfssl"], "kinds": ["hash", "aead", "kex", "sig", "tls"],
            "algorithms": ["sha256", "aes-128-gcm", "x25519", "ecdsa-p256-sha256"], "sizes": [64]},
    tls=memory_tls([TLS13_SUITE], ["x25519"], ["full", "resume-ticket"]),
    method={"repeats": 2, "warmup": 0, "timeout_s": 300})


def _counts(store: Store, run_id: int) -> dict[tuple[str, str], float]:
    data = report.load(store, run_id)
    return {(c["name"], metric): r["median"] for c in data.cases for metric, r in c["results"].items()}


def test_a_second_run_gives_identical_counts_for_every_case_it_repeats(firmware, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    runs = [runner.run(parse_plan(text, "test plan"), text, store, show_progress=False, target=firmware,
                       cache=False)  # the second run is measured again, never reused
            for text in (PLAN, AGAIN)]
    assert store.reuse_marks(runs[1]) == {}
    statuses = {c["name"]: c["status"] for c in report.load(store, runs[0]).cases}
    assert statuses["mbedtls/sig/ed25519/sign"] == "unsupported"  # Mbed TLS has no Ed25519: said, not zero
    failed = {n: s for n, s in statuses.items() if s not in ("ok", "unsupported")}
    assert failed == {}
    first, second = _counts(store, runs[0]), _counts(store, runs[1])
    repeated = {name.split("/")[1] for name, _m in second}
    assert repeated == {"hash", "aead", "kex", "sig", "tls"} and len({n for n, _m in second}) == 20  # of 42
    assert second == {key: first.get(key) for key in second}
    metrics = {m for _n, m in first}
    for m in ("instructions", "heap_peak_bytes", "stack_bytes", "client_instructions", "server_instructions",
              "c2s_bytes", "s2c_bytes", "client_heap_peak_bytes", "client_stack_bytes", "round_trips"):
        assert m in metrics, m
    assert not any(m.endswith("_ns") for m in metrics)  # no clock on the emulator: nothing timed is claimed
    # firmware keeps its layout (offset 0) and is not paced: its counts are exact and must not move
    assert store.case_rounds(runs[0]) == []
    calibs = [line for c in store.cases(runs[0]) for line in c["transcript"].splitlines()
              if line.startswith("tb1 calib ")]
    assert calibs and all(" stack_shift=0 " in x and " heap_shift=0 " in x and " timed_heap_calls=0 " in x
                          for x in calibs)
    # what the handshakes must show on measured data: resumption is cheaper than a full handshake
    for lib in ("mbedtls", "wolfssl"):
        base = f"{lib}/tls/TLS_AES_128_GCM_SHA256/x25519/ecdsa-p256-full"
        full, resumed = first[(base, "client_instructions")], first[(base + "/resume-ticket", "client_instructions")]
        assert resumed < full / 2, (lib, full, resumed)
        assert first[(f"{lib}/tls/TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256/x25519/ecdsa-p256-full",
                      "round_trips")] == 2
        assert first[(base, "round_trips")] == 1
    store.close()


@pytest.mark.parametrize("library", build.FIRMWARE_LIBRARIES)
def test_code_size_parts_add_up_to_the_image(firmware, library: str) -> None:
    out = subprocess.run(["arm-none-eabi-size", "-A", str(firmware.firmware_path(library))], capture_output=True,
                         text=True, check=True).stdout
    section = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\.\S+)\s+(\d+)\s+\d+$", out, re.M)}
    parts = sizes.sizes(firmware.map_path(library), library)
    flash = section[".text"] + section.get(".ARM.exidx", 0) + section[".data"]
    ram = section[".data"] + section[".bss"]
    assert sum(p.flash_bytes for p in parts) == flash
    assert sum(p.ram_bytes for p in parts) == ram
    lib_part = next(p for p in parts if p.component == "library")
    assert lib_part.flash_bytes > 50_000  # the library is the bulk of the image, not lost to "other"
    assert not any(p.component == "other" for p in parts)


def test_list_algorithms_on_a_target_asks_its_firmware(firmware, capsys) -> None:
    from tlsbench.cli import main

    assert main(["list", "algorithms", "--target", firmware.name]) == 0
    out = capsys.readouterr().out.splitlines()
    # the default images first; a further version's image is listed once a test built it in this folder
    assert out[0].startswith(f"on {firmware.name}: the firmware's libraries (mbedtls, wolfssl")
    header = out[1].split()
    assert header[:5] == ["kind", "algorithm", "ops", "mbedtls", "wolfssl"]
    assert all(col.split("@")[0] in ("mbedtls", "wolfssl") for col in header[3:])  # no host-only library
    sha = next(line.split() for line in out if line.split()[:2] == ["hash", "sha256"])
    assert sha[3:5] == ["yes", "yes"]
