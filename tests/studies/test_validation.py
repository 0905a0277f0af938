"""The published-figures data file and its conversion to cycles
(src/tlsbench/studies/validation.py): exact arithmetic, bad rows named by
file and line. No emulator: scripts/validate-model does the runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import paths
from tlsbench.engine.case import Result
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.studies import validation

DATA = paths.root() / validation.DATA


def test_the_shipped_figures_load_and_convert_to_cycles() -> None:
    figures = {f.id: f for f in validation.load(DATA)}
    assert len(figures) == 75
    # HMAC per byte from two sizes, as the hashes (the key set-up and finals cancel)
    assert figures["l4a6z-c-hmac-sha256"].sizes == (1024, 2048)
    assert figures["h753-asm-hmac-sha256"].published_cycles() == pytest.approx(480e6 / (17.896 * 1024 * 1024))
    # the assembly build's ChaCha20-Poly1305 is C: it runs in the sp-asm image of the L4's SP rows
    assert figures["l4a6z-asm-chachapoly"].group() == figures["l4a6z-asm-p256-ecdh"].group()
    # 80 MHz / (847.458 KiB/s) cycles per byte
    assert figures["l4a6z-c-sha256"].published_cycles() == pytest.approx(80e6 / (847.458 * 1024))
    # 31.625 ms at 80 MHz
    assert figures["l4a6z-asm-x25519"].published_cycles() == pytest.approx(2_530_000)
    # (566.5 - 305.0) us over 512 bytes at 180 MHz
    assert figures["riot-f446-sha256"].published_cycles() == pytest.approx(261.5e-6 * 180e6 / 512)
    assert figures["riot-f446-sha256"].sizes == (512, 1024)
    # the library's default profile is not named (it would build a second, identical image)
    assert figures["riot-f446-sha256"].group() == ("qemu:mps2-an386", "", "nucleo-f446re", "mbedtls", "Os")
    # the published portable-C L4 build had WOLFSSL_SMALL_STACK (the STM32Cube template's default)
    assert figures["l4a6z-c-sha256"].group() == ("qemu:mps2-an386", "wolfssl=small-stack", "stm32l4a6zg",
                                                   "wolfssl@5.7", "Os")
    assert figures["h753-asm-x25519"].group() == ("qemu:mps2-an500", "wolfssl=sp-asm", "stm32h753zi",
                                                  "wolfssl@5.7", "O2")
    # the L4 "assembly" build ran the generic C Curve25519/Ed25519 (docs/cycle-model.md, "The published L4
    # build"): the same run as the page's C rows; its SP-ASM rows keep the Thumb-2 SP maths
    for row in ("l4a6z-asm-x25519", "l4a6z-asm-ed25519-sign"):
        assert figures[row].group() == figures["l4a6z-c-sha256"].group()
    assert figures["l4a6z-asm-p256-ecdh"].group() == ("qemu:mps2-an386", "wolfssl=sp-small-asm", "stm32l4a6zg",
                                                      "wolfssl@5.7", "Os")
    assert figures["riot-f103-sha256"].library == "mbedtls"


def write(tmp_path: Path, old: str, new: str) -> Path:
    text = DATA.read_text()
    assert old in text
    path = tmp_path / "figures.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_a_bad_unit_names_the_row_and_the_units(tmp_path: Path) -> None:
    path = write(tmp_path, 'unit = "KiB/s"', 'unit = "KB/s"')
    with pytest.raises(PlanError) as e:
        validation.load(path)
    line = next(i for i, s in enumerate(path.read_text().splitlines(), 1) if s == 'id = "l4a6z-c-sha256"')
    assert str(e.value) == f"{path}:{line}: unit 'KB/s'; allowed: B/s, KiB/s, MiB/s, kB/s, MB/s, ms, us, cycles, ops/s"


def test_a_clock_other_than_the_board_profiles_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "clock_hz = 80_000_000", "clock_hz = 64_000_000")
    with pytest.raises(PlanError, match=r"board profile stm32l4a6zg runs at 80000000 Hz, the source at 64000000 Hz"):
        validation.load(path)


def test_decimal_units_and_pending_rows() -> None:
    figures = {f.id: f for f in validation.load(DATA)}
    # wolfSSL 5.6.0 prints decimal MB: 150 MHz / 5.683e6 B/s
    assert figures["h563-chachapoly"].published_cycles() == pytest.approx(150e6 / 5.683e6)
    assert figures["g071-sha256"].published_cycles() == pytest.approx(64e6 / 476.863e3)
    # no row waits any more: g071-sha256 waited for its board profile only, the public-key rows of the G071
    # (M0+), H563 (M33) and WL55 for the builds the page ran, which are tlsbench profiles now
    assert [f.id for f in figures.values() if f.pending] == []
    assert figures["g071-rsa2048-public"].group() == ("qemu:microbit-roomy", "wolfssl=sp-thumb-small",
                                                      "stm32g071rb", "wolfssl@5.7", "Os")
    assert figures["h563-p256-ecdh"].group() == ("qemu:mps2-an505", "wolfssl=sp-small-asm", "stm32h563zi",
                                                 "wolfssl@5.7", "Os")
    assert figures["wl55-asm-p256-ecdh"].group() == ("qemu:mps2-an386", "wolfssl=sp-small-asm", "stm32wl55jc",
                                                     "wolfssl@5.7", "Os")
    assert figures["g071-sha256"].pending == ""
    assert figures["g071-sha256"].group() == ("qemu:microbit-roomy", "wolfssl=small-stack", "stm32g071rb",
                                              "wolfssl@5.7", "Os")
    assert figures["l4a6z-c-sha256"].pending == ""
    # the H563's SHA-256 ran on its HASH processor (the STM32Cube template's STM32H563xx block): not same code
    assert figures["h563-sha256"].row["match"] == "different"
    # the WL55's three builds ran one C SHA-256: one image and one run serve the six rows, at 48 MHz
    wl55 = ["wl55-c-sha256", "wl55-asm-sha256", "wl55-pka-sha256", "wl55-c-hmac-sha256", "wl55-asm-hmac-sha256",
            "wl55-pka-hmac-sha256"]
    assert {figures[r].group() for r in wl55} == {("qemu:mps2-an386", "wolfssl=small-stack", "stm32wl55jc",
                                                    "wolfssl@5.7", "Os")}
    assert figures["wl55-pka-sha256"].published_cycles() == pytest.approx(48e6 / (551.294 * 1024))


def test_a_pending_row_needs_no_board_profile_but_a_reason(tmp_path: Path) -> None:
    path = write(tmp_path, 'board_profile = "stm32l4a6zg"', 'board_profile = "no-such-board"\npending = "a profile"')
    figures = {f.id: f for f in validation.load(path)}
    assert figures["l4a6z-c-sha256"].pending == "a profile"
    path = write(tmp_path, 'board_profile = "stm32l4a6zg"', 'board_profile = "stm32l4a6zg"\npending = " "')
    with pytest.raises(PlanError, match="pending must say what tlsbench still needs"):
        validation.load(path)


def test_only_selects_rows_in_file_order_and_names_unknown_ids() -> None:
    figures = validation.load(DATA)
    chosen = validation.select(figures, "h753-asm-sha256, l4a6z-c-sha256")
    assert [f.id for f in chosen] == ["l4a6z-c-sha256", "h753-asm-sha256"]
    with pytest.raises(PlanError, match=r"--only: unknown row id\(s\): nope"):
        validation.select(figures, "l4a6z-c-sha256,nope")


def test_run_groups_skips_pending_rows(tmp_path: Path) -> None:
    path = write(tmp_path, 'id = "g071-rsa2048-public"',
                 'id = "g071-rsa2048-public"\npending = "sp_armthumb.c: the board ran sp_armthumb.c"')
    figures = [f for f in validation.load(path) if f.pending]
    # nothing to build or run: no subprocess is started
    assert validation.run_groups(figures, tmp_path / "v.sqlite") == {}
    table = validation.render(figures, {}, tmp_path / "v.sqlite")
    assert "| g071-rsa2048-public |" in table and "- g071-rsa2048-public: sp_armthumb.c: the board ran" in table
    assert "| g071-sha256 |" not in table


def test_streamed_hash_rows_take_the_model_per_byte_from_two_sizes(tmp_path: Path) -> None:
    figures = {f.id: f for f in validation.load(DATA)}
    # wolfCrypt hashes 25 x 1024 bytes per final: the model's figure is (t(2048) - t(1024)) / 1024
    assert figures["l4a6z-c-sha256"].sizes == (1024, 2048)
    assert figures["l4a6z-c-aes128gcm"].sizes == (1024,)
    path = write(tmp_path, "model_sizes = [1024, 2048]", "model_sizes = [2048, 1024]")
    with pytest.raises(PlanError, match="model_sizes needs two ascending byte counts"):
        validation.load(path)
    path = write(tmp_path, "model_sizes = [1024, 2048]", "model_sizes = [1024, 2048]\nsize = 1024")
    with pytest.raises(PlanError, match="not both"):
        validation.load(path)


def test_a_row_names_its_o_level(tmp_path: Path) -> None:
    figures = {f.id: f for f in validation.load(DATA)}
    # wolfSSL's H753 build is -O2: the model's image is built at -O2 too
    assert figures["h753-asm-sha256"].group()[4] == "O2"
    path = write(tmp_path, 'opt = "O2"', 'opt = "O1"')
    with pytest.raises(PlanError, match=r"opt 'O1'; allowed: Os, O2, O3"):
        validation.load(path)


def test_the_table_gives_each_core_its_same_code_error_and_says_not_measured_for_the_rest(tmp_path: Path) -> None:
    fig = next(f for f in validation.load(DATA) if f.id == "l4a6z-c-aes128gcm")
    db = tmp_path / "v.sqlite"
    store = Store(db)
    run = store.create_run(target="qemu:mps2-an386", plan_name="p", plan_source="", plan={"method": {}},
                           machine={}, version="t", keys={})
    # 1024-byte encrypt at 264,192 model cycles: 258 per byte against the board's 80e6 / (305.738 KiB/s)
    cycles = 264_192.0
    store.put_case(run, name="c", library="wolfssl@5.7", kind="aead", alg="aes-128-gcm", op="encrypt", size=1024,
                   params={}, status="ok", reason="", iters=1, started=0, transcript="",
                   results=[Result.of("model_cycles", "model cycles", 1, 0, cycles, cycles, None, cycles, cycles,
                                      None, None)])
    store.close()
    by_core: dict[str, list[tuple[float, str]]] = {}
    table = validation.render([fig], {fig.group(): run}, db, by_core)
    err = 258.0 / fig.published_cycles() - 1
    assert by_core == {"cortex-m4": [(pytest.approx(err), "l4a6z-c-aes128gcm")]}
    lines = table.splitlines()
    assert f"| same code, cortex-m4 | 1 | {100 * abs(err):.0f}% | {100 * abs(err):.0f}% (l4a6z-c-aes128gcm) |" in lines
    assert "| same code, cortex-m33 | 0 | not measured | - |" in lines
    assert "| same code, rv32imc | 0 | not measured | - |" in lines
