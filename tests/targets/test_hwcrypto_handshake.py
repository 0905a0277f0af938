"""A whole TLS handshake of wolfSSL's "hw" build on the stm32f439zi profile's
CRYP and HASH, on the "hw" images of tests/targets/test_hwcrypto_firmware.py (no
image of its own): the handshake reaches the peripherals through the crypto
callbacks, and the count profiles (tlsbench.targets.hwcount) count exactly
what each side handed them: the model cycles grow by the count and not one
instruction moves. A few seconds of QEMU once the images are built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools
from test_hwcrypto_firmware import HW, HW_LIBRARIES

from tlsbench.families.tls.cases import run_handshakes
from tlsbench.families.tls.runner import TlsVariant, tls_case
from tlsbench.targets import boardprofiles, cyclemodel, hwcount
from tlsbench.targets import target as targets

pytestmark = [needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "cc"), builds_in_set_up]

SUITE = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
SIDES = ("client", "server")
MATERIAL: dict = {}  # one set of keys and chains for every handshake here: the same bytes each time


@pytest.fixture(scope="module")
def wolfssl_hw(firmware_images) -> Path:
    cyclemodel.build_plugin()
    return targets.write_launcher(firmware_images(HW, HW_LIBRARIES), "wolfssl")


def handshakes(launcher: Path, profile: boardprofiles.Profile, repeats: int = 1,
               warmup: int = 0) -> list[dict[str, tuple[int, int]]]:
    """Each side's (instructions, model cycles) of each TLS 1.2 handshake of one process on the cycle model of
    this profile."""
    case = tls_case(SUITE, TlsVariant.parse("p256/ecdsa-p256-full"), MATERIAL, 0)
    saved = {k: os.environ.pop(k, None) for k in (cyclemodel.MODEL_ENV, cyclemodel.MODEL_SHA_ENV)}
    try:
        os.environ.update(cyclemodel.run_env(profile))
        result = run_handshakes(launcher, case, repeats=repeats, warmup=warmup, timeout=300)
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v
    assert result.status == "ok", result.message
    return [{side: (int(s[f"{side}_instructions"]), int(s[f"{side}_model_cycles"])) for side in SIDES}
            for s in result.samples]


def handshake(launcher: Path, profile: boardprofiles.Profile) -> dict[str, tuple[int, int]]:
    return handshakes(launcher, profile)[0]


def test_every_handshake_of_a_run_costs_the_same_model_cycles(wolfssl_hw: Path) -> None:
    # QEMU ends a translation block wherever its instruction budget runs out (about every 16.8 M instructions
    # from where the emulator last resumed, which the host's timing decides), so each handshake is split at
    # another point; the ART's prefetch must not see the split. Before the model carried a line's cycles across
    # blocks, these four differed by up to 5 cycles (21,470,908 to 21,470,913 on the client).
    runs = handshakes(wolfssl_hw, boardprofiles.load("stm32f439zi"), repeats=4, warmup=1)
    assert all(run == runs[0] for run in runs), runs


def test_a_handshakes_blocks_on_the_peripherals_are_counted_exactly(wolfssl_hw: Path, tmp_path: Path) -> None:
    f439 = boardprofiles.load("stm32f439zi")
    hw = handshake(wolfssl_hw, f439)
    paths = {p.stem.split(hwcount.SEPARATOR)[1]: p for p in hwcount.write_count_profiles("stm32f439zi", tmp_path)}
    sent = {}
    for algorithm in ("aes-gcm", "sha256"):
        counted = handshake(wolfssl_hw, boardprofiles.parse(paths[algorithm]))
        for side in SIDES:
            assert counted[side][0] == hw[side][0]  # not one instruction moves: exact, repeatable
        sent[algorithm] = {side: counted[side][1] - hw[side][1] for side in SIDES}
    # each side seals one Finished record and opens the other's: per record one header block (the 13 bytes of
    # associated data), one payload block (the 16-byte message) and the block of lengths that gives the tag
    assert sent["aes-gcm"] == {"client": 6, "server": 6}
    # the transcript, the PRF and the certificate's hash reach the HASH (the exact figure is the library's)
    assert all(n > 50 for n in sent["sha256"].values()), sent
    # the F405 declares no accelerator: the same image runs all of it in wolfCrypt's software, counted
    software = handshake(wolfssl_hw, boardprofiles.load("stm32f405"))
    for side in SIDES:
        assert software[side][0] > hw[side][0]


def test_a_count_profile_differs_from_its_board_in_one_algorithms_figures(tmp_path: Path) -> None:
    paths = hwcount.write_count_profiles("stm32f439zi", tmp_path)
    assert [hwcount.counted_algorithm(boardprofiles.parse(p)) for p in paths] == [
        ("stm32f439zi", a) for a in ("sha1", "sha256", "aes-ecb", "aes-cbc", "aes-ctr", "aes-gcm")]
    gcm = next(p for p in paths if p.stem.endswith("aes-gcm")).read_text()
    assert "header_cycles_per_block = 11" in gcm and "cycles_per_block = 15" in gcm  # RM0090's 10 and 14, plus one
    (pka,) = [p for p in hwcount.write_count_profiles("stm32u585ai", tmp_path) if p.stem.endswith("verify")]
    assert "cycles_per_operation = 2938001" in pka.read_text()
    assert hwcount.counted_algorithm(boardprofiles.load("stm32f439zi")) is None  # the board itself
    # two figures changed, or one by two cycles: not a count profile (its difference would not be the count)
    twice = tmp_path / f"stm32f439zi{hwcount.SEPARATOR}sha256.toml"
    twice.write_text(gcm.replace("cycles_per_block = 50", "cycles_per_block = 51"))
    assert hwcount.counted_algorithm(boardprofiles.parse(twice)) is None
    twice.write_text(hwcount.count_profile_text(boardprofiles.load("stm32f439zi"), "sha256").replace("= 51", "= 52"))
    assert hwcount.counted_algorithm(boardprofiles.parse(twice)) is None


def test_a_board_without_accelerators_has_no_count_profiles(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="board profile stm32f405 declares no \\[accelerators\\]: nothing to count"):
        hwcount.write_count_profiles("stm32f405", tmp_path)


def test_the_count_profiles_of_docs_data_are_their_boards_own() -> None:
    # docs/data/pages.toml's count runs name these files: each must be its board's profile of today, one figure up
    folder = Path(__file__).resolve().parents[2] / "docs" / "data" / "hwcount"
    found = {}
    for path in sorted(folder.glob("*.toml")):
        counted = hwcount.counted_algorithm(boardprofiles.parse(path))
        assert counted is not None, f"{path.name}: not its board's profile with one figure one cycle higher"
        assert path.read_text() == hwcount.count_profile_text(boardprofiles.load(counted[0]), counted[1]), path.name
        found.setdefault(counted[0], []).append(counted[1])
    for board, algorithms in found.items():
        assert sorted(algorithms) == sorted(boardprofiles.load(board).accelerators), board
    assert sorted(found) == ["stm32f217", "stm32f439zi", "stm32u585ai"]
