"""Crypto accelerators in board profiles ([accelerators.NAME]): the shipped
figures and their sources, and a bad table refused with its file, line and
what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.errors import PlanError
from tlsbench.targets import boardprofiles, boardtemplate

BASE = (boardprofiles.BOARDS_DIR / "stm32f405.toml").read_text()
SHA1 = """
[accelerators.sha1]
peripheral = "HASH"
cycles_per_block = 66
load_cycles_per_block = 16
data_movement = "cpu"
source = "RM0090 Rev 11, 25.3.1"
"""


def compose(table: str) -> str:
    """The table after the profile's [sources], or a top-level key before it."""
    return table.lstrip() + BASE if table.lstrip().startswith("accelerators =") else BASE + table


def refused(tmp_path: Path, table: str) -> str:
    path = tmp_path / "board.toml"
    path.write_text(compose(table))
    with pytest.raises(PlanError) as e:
        boardprofiles.parse(path)
    return str(e.value).replace(str(path), "board.toml")


def line(table: str, start: str) -> int:
    return compose(table).splitlines().index(start) + 1


def test_the_f417_declares_its_hash_sha1_and_cryp_aes_from_rm0090() -> None:
    f417 = boardprofiles.load("stm32f417")
    assert list(f417.accelerators) == ["sha1", "aes-ecb", "aes-cbc", "aes-ctr"]
    sha1 = f417.accelerators["sha1"]
    assert (sha1.peripheral, sha1.cycles_per_block, sha1.load_cycles_per_block, sha1.data_movement,
            sha1.block_bytes) == ("HASH", 66, 16, "cpu", 64)
    assert sha1.source.startswith("RM0090 Rev 11 (DocID018909), 25.3.1 'Duration of the processing'")
    # the CPU writes the words itself (counted instructions): the peripheral's busy time is its processing
    assert sha1.busy_cycles_per_block == 66
    # the CRYP's AES-128 block, Table 112 (F415/417); GCM is the F42x/43x's only: not declared
    for name in ("aes-ecb", "aes-cbc", "aes-ctr"):
        aes = f417.accelerators[name]
        assert (aes.peripheral, aes.cycles_per_block, aes.busy_cycles_per_block, aes.block_bytes) == (
            "CRYP", 14, 14, 16)
        assert aes.source.startswith("RM0090 Rev 21, 23.2 'CRYP main features', Table 112")
    # the F405 and F446 have no CRYP or HASH processor; the H753's (RM0433) figures were not found
    for name in ("stm32f405", "nucleo-f446re", "stm32h753zi"):
        assert boardprofiles.load(name).accelerators == {}, name


def test_the_f217_declares_the_f4s_figures_saying_they_are_rm0090s_not_rm0033s() -> None:
    f217, f417 = boardprofiles.load("stm32f217"), boardprofiles.load("stm32f417")
    assert list(f217.accelerators) == ["sha1", "aes-ecb", "aes-cbc", "aes-ctr"]
    for name, accel in f217.accelerators.items():
        f4 = f417.accelerators[name]
        assert (accel.peripheral, accel.cycles_per_block, accel.load_cycles_per_block, accel.data_movement) == (
            f4.peripheral, f4.cycles_per_block, f4.load_cycles_per_block, f4.data_movement)
        assert accel.source.startswith("NOT RM0033's: ")
        assert accel.source.endswith("It is RM0090's: " + f4.source)


def test_the_f439_declares_its_own_rm0090_figures_sha256_and_gcm_with_its_phases() -> None:
    f439 = boardprofiles.load("stm32f439zi")
    assert (f439.core, f439.clock_hz, f439.flash_wait_states) == ("cortex-m4", 180_000_000, 5)
    assert "STM324x9I_EVAL/Templates/Src/main.c" in f439.sources["flash_wait_states"]
    assert list(f439.accelerators) == ["sha1", "sha256", "aes-ecb", "aes-cbc", "aes-ctr", "aes-gcm"]
    figures = {n: (a.peripheral, a.cycles_per_block, a.load_cycles_per_block, a.setup_cycles,
                   a.busy_cycles_per_header_block) for n, a in f439.accelerators.items()}
    # RM0090 25.3.1 (HASH: SHA-1 66, SHA-256 50, plus at least 16 to load); Table 113 (F43x CRYP, AES-128:
    # ECB/CBC/CTR 14; GCM init 24, header 10, payload 14, tag 14)
    assert figures == {"sha1": ("HASH", 66, 16, 0, 66), "sha256": ("HASH", 50, 16, 0, 50),
                       "aes-ecb": ("CRYP", 14, 0, 0, 14), "aes-cbc": ("CRYP", 14, 0, 0, 14),
                       "aes-ctr": ("CRYP", 14, 0, 0, 14), "aes-gcm": ("CRYP", 14, 0, 24, 10)}
    assert all(a.source.startswith("RM0090 Rev 21, 2") for a in f439.accelerators.values())
    assert "Table 113" in f439.accelerators["aes-gcm"].source
    assert "25.3.1" in f439.accelerators["sha256"].source
    assert f439.accelerators["aes-gcm"].summary() == (
        "CRYP aes-gcm: 14 cycles per 16-byte block, 10 per header block + 24 set-up, data by cpu")


def test_a_dma_fed_peripheral_adds_its_load_time(tmp_path: Path) -> None:
    path = tmp_path / "dma.toml"
    path.write_text(BASE + SHA1.replace('"cpu"', '"dma"'))
    assert boardprofiles.parse(path).accelerators["sha1"].busy_cycles_per_block == 66 + 16


def test_board_show_lists_each_accelerator_with_its_source() -> None:
    shown = boardtemplate.show(boardprofiles.load("stm32f417")).splitlines()
    i = shown.index("  accelerator HASH sha1: 66 cycles per 64-byte block (+16 to load), data by cpu")
    assert shown[i + 1].startswith("    source: RM0090 Rev 11")
    assert "  accelerators: none declared (every algorithm in software)" in boardtemplate.show(
        boardprofiles.load("stm32f405"))


@pytest.mark.parametrize("name", ["stm32f417", "stm32f439zi", "stm32u585ai"])
def test_a_new_profile_started_from_a_shipped_one_keeps_its_accelerators(tmp_path: Path, name: str) -> None:
    base = boardprofiles.load(name)
    start = boardprofiles.parse(tmp_path / "x.toml", boardtemplate.starting_point(base, "x.toml"))
    assert start.accelerators == base.accelerators


@pytest.mark.parametrize(("table", "at", "message"), [
    (SHA1.replace("[accelerators.sha1]", "[accelerators.sha3]"), "[accelerators.sha3]",
     "accelerators.sha3: unknown algorithm (did you mean sha1, sha256?); allowed: sha1, sha256, aes-ecb, aes-cbc,"
     " aes-ctr, aes-gcm, ecdsa-p256-sign, ecdsa-p256-verify, ecc-p256-mul,"
     " rsa-2048-private, rsa-2048-public"),
    (SHA1.replace("[accelerators.sha1]", "[accelerators.aes-gmc]"), "[accelerators.aes-gmc]",
     "accelerators.aes-gmc: unknown algorithm (did you mean aes-gcm, aes-ecb?); allowed: sha1, sha256, aes-ecb,"
     " aes-cbc, aes-ctr, aes-gcm, ecdsa-p256-sign, ecdsa-p256-verify, ecc-p256-mul, rsa-2048-private,"
     " rsa-2048-public"),
    (SHA1.replace("cycles_per_block = 66", "cycles_per_blok = 66"), "cycles_per_blok = 66",
     "cycles_per_blok: unknown key (did you mean cycles_per_block, load_cycles_per_block?); allowed: peripheral,"
     " cycles_per_block, cycles_per_operation, load_cycles_per_block, setup_cycles, header_cycles_per_block,"
     " data_movement, source"),
    (SHA1.replace("cycles_per_block = 66", "cycles_per_block = 66.5"), "cycles_per_block = 66.5",
     "cycles_per_block: must be a whole number of cycles 0..1,000,000, got 66.5"),
    (SHA1.replace("cycles_per_block = 66", "cycles_per_block = 0"), "cycles_per_block = 0",
     "cycles_per_block: must be at least 1 (a peripheral takes time)"),
    (SHA1.replace('data_movement = "cpu"', 'data_movement = "bus"'), 'data_movement = "bus"',
     "data_movement: must be one of cpu, dma, got 'bus'"),
    (SHA1.replace('source = "RM0090 Rev 11, 25.3.1"', 'source = " "'), 'source = " "',
     "source: must be a non-empty string, got ' '"),
    (SHA1.replace('source = "RM0090 Rev 11, 25.3.1"\n', ""), "[accelerators.sha1]",
     "accelerators.sha1: source missing (every accelerator sets: peripheral, cycles_per_block, data_movement,"
     " source)"),
    (SHA1.replace("cycles_per_block = 66", "cycles_per_block = 66\nheader_cycles_per_block = 10"),
     "header_cycles_per_block = 10",
     "header_cycles_per_block: is an AEAD's (associated-data blocks): only for aes-gcm"),
    ("\naccelerators = 3\n", "accelerators = 3",
     "accelerators: must be a table of [accelerators.NAME] tables, NAME one of sha1, sha256, aes-ecb, aes-cbc,"
     " aes-ctr, aes-gcm, ecdsa-p256-sign, ecdsa-p256-verify, ecc-p256-mul, rsa-2048-private, rsa-2048-public"),
])
def test_a_bad_accelerator_is_one_line_naming_file_line_and_what_is_allowed(tmp_path: Path, table: str, at: str,
                                                                            message: str) -> None:
    got = refused(tmp_path, table)
    assert got == f"board.toml:{line(table, at)}: {message}"


def test_an_accelerator_the_user_vouches_for_is_named_with_the_users_figures(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(BASE + SHA1.replace('source = "RM0090 Rev 11, 25.3.1"', 'source = "user"'))
    mine = boardprofiles.parse(path)
    assert mine.user_figures == ["accelerators.sha1"]
    assert '; source "user": accelerators.sha1)' in mine.described()


PKA_SIGN = """
[accelerators.ecdsa-p256-sign]
peripheral = "PKA"
cycles_per_operation = 2_744_000
data_movement = "cpu"
source = "RM0456 Rev 6, 53.5.2, Table 523"
"""


def test_the_u5_declares_its_pkas_ecdsa_p256_figures_per_operation_from_rm0456() -> None:
    u5 = boardprofiles.load("stm32u585ai")
    assert (u5.core, u5.clock_hz, u5.flash_wait_states, u5.icache) == ("cortex-m33", 160_000_000, 4, True)
    sign, verify = u5.accelerators["ecdsa-p256-sign"], u5.accelerators["ecdsa-p256-verify"]
    assert (sign.peripheral, sign.cycles_per_operation, sign.cycles_per_block) == ("PKA", 2_744_000, 0)
    assert verify.cycles_per_operation == 2_938_000
    assert "Table 523" in sign.source and "Table 524" in verify.source and "RM0456 Rev 6" in sign.source
    assert sign.summary() == "PKA ecdsa-p256-sign: 2,744,000 cycles per operation, data by cpu"


@pytest.mark.parametrize(("table", "at", "message"), [
    (PKA_SIGN.replace("cycles_per_operation = 2_744_000\n", ""), "[accelerators.ecdsa-p256-sign]",
     "accelerators.ecdsa-p256-sign: cycles_per_operation missing (every operation accelerator sets: peripheral,"
     " cycles_per_operation, data_movement, source)"),
    (PKA_SIGN.replace("cycles_per_operation = 2_744_000", "cycles_per_block = 2_744"), "cycles_per_block = 2_744",
     "cycles_per_block: is a block's figure: ecdsa-p256-sign takes cycles_per_operation"),
    (PKA_SIGN.replace("2_744_000", "3_000_000_000"), "cycles_per_operation = 3_000_000_000",
     "cycles_per_operation: must be a whole number of cycles 0..2,000,000,000, got 3000000000"),
    (PKA_SIGN.replace("2_744_000", "0"), "cycles_per_operation = 0",
     "cycles_per_operation: must be at least 1 (a peripheral takes time)"),
    (SHA1.replace("cycles_per_block = 66", "cycles_per_operation = 66"), "cycles_per_operation = 66",
     "cycles_per_operation: is an operation's figure (only for ecdsa-p256-sign, ecdsa-p256-verify,"
     " ecc-p256-mul, rsa-2048-private, rsa-2048-public): sha1 takes cycles_per_block"),
])
def test_a_bad_operation_accelerator_is_one_line_naming_file_line_and_what_is_allowed(
        tmp_path: Path, table: str, at: str, message: str) -> None:
    assert refused(tmp_path, table) == f"board.toml:{line(table, at)}: {message}"
