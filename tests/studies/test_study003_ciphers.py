"""Study 003's cipher tables (studies/study003_ciphers.py): the paper's Table 3 with its software and
hardware columns beside ours on 15,360 bytes, a cipher without a peripheral named so (never a zero), and its
Table 5 beside our stack and heap; a run's image that is not here is said so, never sized from another."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import cli
from tlsbench.engine.case import Result
from tlsbench.engine.store import Store
from tlsbench.families.size import crypto_modules
from tlsbench.studies import study003_ciphers
from tlsbench.studies import studysources as src
from tlsbench.targets import boardprofiles, cyclemodel

# the paper's Tables 3 and 5 as its text prints them (tab-separated), cut to two rows each
STUDY_003 = """\
Table 3: Throughput comparison (Bytes/second) between Software and Hardware implementations.

Algorithm\tSW throughput\tHW throughput
AES128-GCM\t304,216\t8,757,487
Chacha20-Poly1305\t771,962\tNA

Table 5: Space requirements for authenticated ciphers expressed in bytes.

Algorithm\tStack\tHeap\tTotal RAM\tCode\tConst. data\tTotal FLASH
Chacha20-poly1305\t604\t0\t604\t3,300\t52\t3,352
AES128-GCM SW\t4,804\t11,644\t16,448\t3,288\t10,846\t14,134
AES128-CBC-HMAC-SHA1 SW\t1,004\t3,841\t4,845\t4,502\t10,360\t14,862
AES128-GCM HW\t440\t0\t440\t978\t0\t978
AES128-CBC-HMAC-SHA1 HW\t712\t0\t712\t2,180\t10\t2,190
"""
NO_PERIPHERAL = "mbedtls=hw hands no chacha20-poly1305 to a peripheral (its driver does sha1, aes-128-gcm)"


def _result(metric: str, unit: str, value: float) -> Result:
    return Result.of(metric, unit, 1, 0, value, value, None, value, value, None, None)


def _store(db: Path, hw: bool, time_ns: dict[str, float]) -> int:
    """A run of aead-15k on the paper's board profile, Mbed TLS only: each AEAD's model time, stack and heap."""
    store = Store(db)
    profile = boardprofiles.load("stm32f217")
    run = store.create_run(target="qemu:mps2-an385", plan_name="aead-15k", plan_source="",
                           plan={"method": {"repeats": 1, "warmup": 0, "outliers": "none", "min_sample_ms": 0,
                                            "timeout_s": 9, "rounds": 1, "env": cyclemodel.run_env(profile)}},
                           machine={"board": "mps2-an385", "board_cpu": "cortex-m3",
                                    "profiles": {"mbedtls": "hw", "wolfssl": "hw"} if hw else {}},
                           version="v1", keys={})
    store.put_board_profile(run, profile.name, profile.origin, profile.text, profile.sha256)
    store.put_library(run, "mbedtls", "3.6.7", "config", "test", "0" * 64, "instructions", {})
    for alg in ("aes-128-gcm", "aes-128-cbc-hmac-sha1", "chacha20-poly1305"):
        name = f"mbedtls/aead/{alg}/encrypt/15360"
        if alg not in time_ns:
            store.put_case(run, name=name, library="mbedtls", kind="aead", alg=alg, op="encrypt", size=15360,
                           params={}, status="unsupported", reason=NO_PERIPHERAL, iters=None, started=0,
                           transcript="", results=[])
            continue
        store.put_case(run, name=name, library="mbedtls", kind="aead", alg=alg, op="encrypt", size=15360, params={},
                       status="ok", reason="", iters=1, started=0, transcript="",
                       results=[_result("model_time_ns", "model-ns", time_ns[alg]),
                                _result("stack_bytes", "bytes", 400 + (100 if hw else 0)),
                                _result("heap_peak_bytes", "bytes", 0 if alg != "aes-128-gcm" else 32)])
    store.finish_run(run)
    store.close()
    return run


def _page_lines(tmp_path: Path) -> list[str]:
    """Study 003's page rendered from a software and a hw run stored by the test: its lines."""
    db = tmp_path / "r.sqlite"
    # 15,360 bytes in 30.72 ms is 500,000 B/s; in 1.536 ms 10,000,000 B/s
    _store(db, False, {"aes-128-gcm": 30_720_000, "aes-128-cbc-hmac-sha1": 15_360_000,
                       "chacha20-poly1305": 7_680_000})
    _store(db, True, {"aes-128-gcm": 1_536_000, "aes-128-cbc-hmac-sha1": 3_072_000})
    assert cli.main(["study", "pages", "--db", str(db), "--studies", str(tmp_path / "studies"),
                     "--out", str(tmp_path / "out"), "--only", "003"]) == 0
    return (tmp_path / "out" / "003-tls12-suites-cost.md").read_text().splitlines()


def test_table_3_has_the_papers_software_and_hardware_columns_beside_ours(tmp_path: Path) -> None:
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "003_test.txt").write_text(STUDY_003)
    lines = _page_lines(tmp_path)
    assert "  - command: `tlsbench run --preset aead-15k --target qemu:mps2-an385 --board stm32f217 --profile" \
           " wolfssl=hw,mbedtls=hw`" in lines
    cells = [[c.strip() for c in line.split("|")[1:-1]] for line in lines if line.startswith("| ")]
    table3 = {row[1]: row[2:] for row in cells if row[0] == "stm32f217 (120 MHz)"}
    # published SW, ours, published / ours; published HW, ours hw, published / ours
    assert table3["AES128-GCM"] == ["304,216", "500,000", "0.61", "8,757,487", "10,000,000", "0.88"]
    assert table3["Chacha20-Poly1305"] == ["771,962", "2,000,000", "0.39", "NA (the paper: no hardware for it)",
                                           f"unsupported: {NO_PERIPHERAL}", "-"]
    assert [row[1:] for row in cells if row[0].startswith("in hardware AES-128-GCM")] == [
        ["holds (its Table 3)", "holds (GCM / CBC+HMAC throughput 2.00)"]]
    # the F439's runs are not stored: named with their commands
    assert ("Not on this page: no complete run of `tlsbench run --preset aead-15k --target qemu:mps2-an386 --board"
            " stm32f439zi`, `tlsbench run --preset aead-15k --target qemu:mps2-an386 --board stm32f439zi --profile"
            " wolfssl=hw,mbedtls=hw` is stored.") in lines
    rows = {row[0]: row[1:] for row in cells}
    # Table 5: the published stack / heap and flash beside our stack / heap; this checkout has not the runs'
    # images (their sha256 is a test's), so no flash is read from another image
    not_here = ("not measured: the run's image is not in this checkout (built again since, or made elsewhere):"
                " run it again here")
    assert rows["AES128-GCM SW"] == ["4,804 / 11,644", "14,134 (3,288 + 10,846)", "400 / 32", not_here, ""]
    assert rows["AES128-CBC-HMAC-SHA1 HW"] == ["712 / 0", "2,190 (2,180 + 10)", "500 / 0", not_here, ""]
    assert rows["Chacha20-poly1305"] == ["604 / 0", "3,352 (3,300 + 52)", "400 / 0", not_here, ""]
    assert not any("hardware throughput of Table 3" in line or "flash and code size per primitive" in line
                   for line in lines)


@pytest.mark.outside_checkout
@pytest.mark.skipif(not src.studies_dir().exists(), reason="no shared/studies beside the checkout")
def test_table_5_is_read_from_the_papers_text() -> None:
    space = {f.key: f.value for f in src.cipher_space(src.study_text("003")[1])}
    assert len(space) == 5 * 6
    assert [space[("AES128-GCM SW", k)] for k in ("stack", "heap", "ram", "code", "const", "flash")] == [
        4_804, 11_644, 16_448, 3_288, 10_846, 14_134]
    assert space[("AES128-CBC-HMAC-SHA1 HW", "flash")] == 2_190 and space[("Chacha20-poly1305", "ram")] == 604


# an image's map cut to the modules Table 5 counts: Mbed TLS's AES, GCM and ChaCha20-Poly1305, its driver
MAP = """\
Linker script and memory map

.text           0x00000000      0x700
 .text.aes      0x00000000      0x100 mbedtls/library/libmbedcrypto.a(aes.c.obj)
 .text.gcm      0x00000100       0x80 mbedtls/library/libmbedcrypto.a(gcm.c.obj)
 .text.chacha   0x00000180       0x40 mbedtls/library/libmbedcrypto.a(chacha20.c.obj)
 .text.poly     0x000001c0       0x20 mbedtls/library/libmbedcrypto.a(poly1305.c.obj)
 .text.chapo    0x000001e0       0x10 mbedtls/library/libmbedcrypto.a(chachapoly.c.obj)
 .text.hwgcm    0x000001f0      0x200 mbedtls/library/libmbedcrypto.a(hw_gcm.c.obj)
 .text.main     0x000003f0      0x310 CMakeFiles/tlsbench-agent-mbedtls.dir/core/main.c.obj

.bss            0x20000000       0x10
 .bss.aes_tables
                0x20000000       0x10 mbedtls/library/libmbedcrypto.a(aes.c.obj)
"""


def test_table_5_sums_each_ciphers_own_modules_from_the_runs_image(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The flash beside the paper's is the cipher's modules in the map, plus the driver in the HW rows
    (the run's image found and its sha256 matching: here, a map written by the test)."""
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "003_test.txt").write_text(STUDY_003)
    (tmp_path / "agent.map").write_text(MAP)
    monkeypatch.setattr(study003_ciphers, "_image_objects",
                        lambda _data, lib: crypto_modules.object_parts(tmp_path / "agent.map", lib))
    lines = _page_lines(tmp_path)
    rows = {c[0]: c[3:] for line in lines if line.startswith("| ")
            for c in [[x.strip() for x in line.split("|")[1:-1]]]}
    assert rows["Chacha20-poly1305"] == ["400 / 0", f"{0x40 + 0x20 + 0x10}", "0"]
    assert rows["AES128-GCM SW"] == ["400 / 32", f"{0x100 + 0x80}", "16"]  # aes + gcm, aes's tables in RAM
    assert rows["AES128-GCM HW"] == ["500 / 32", f"{0x100 + 0x80 + 0x200}", "16"]  # and the driver
