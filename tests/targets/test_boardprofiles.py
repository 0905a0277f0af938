"""Board profiles (src/tlsbench/targets/boards/*.toml): the shipped ones are valid
and sourced; a bad one is refused with its file, line and what is allowed."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tlsbench.engine.case import Result
from tlsbench.errors import PlanError
from tlsbench.studies import boardresults
from tlsbench.targets import boardprofiles, cyclemodel
from tlsbench.targets import target as targets

SHIPPED = ["esp32-c3-class", "nrf52840", "nrf5340-app", "nucleo-f103rb", "nucleo-f446re", "nucleo-f746zg",
           "nucleo-l053r8", "nucleo-l073rz", "stm32f091rc", "stm32f217", "stm32f405", "stm32f411re", "stm32f417",
           "stm32f439zi", "stm32g071rb", "stm32h563zi", "stm32h753zi", "stm32l4a6zg", "stm32l4r5zi-pqm4", "stm32u585ai",
           "stm32wl55jc"]
GOOD = (boardprofiles.BOARDS_DIR / "nucleo-f446re.toml").read_text()


def test_every_shipped_profile_loads_with_a_source_for_every_figure() -> None:
    assert boardprofiles.names() == SHIPPED
    for name in SHIPPED:
        p = boardprofiles.load(name)
        figures = [k for k in boardprofiles.FIGURES if getattr(p, k) is not None and k in p.sources]
        assert set(figures) >= {"core", "clock_hz", "flash_wait_states", "flash_bytes", "ram_bytes"}
    f446 = boardprofiles.load("nucleo-f446re")
    assert (f446.core, f446.clock_hz, f446.flash_wait_states, f446.art) == ("cortex-m4", 180_000_000, 5, True)
    assert boardprofiles.load("nucleo-f103rb").flash_wait_states == 2


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_profile_names_a_document_for_every_figure_it_sets(name: str) -> None:
    """A shipped figure comes from a document, never from the user's word
    (source "user" is for the user's own files)."""
    path = boardprofiles.BOARDS_DIR / f"{name}.toml"
    data = tomllib.loads(path.read_text())
    p = boardprofiles.load(name)
    assert p.shipped and p.user_figures == []
    set_here = [k for k in data if k in boardprofiles.FIGURES]
    assert set(set_here) <= set(p.sources), name
    assert all(p.sources[k].strip() != boardprofiles.USER_SOURCE for k in set_here), name


# the profiles of wolfSSL's published STM32G071RB, STM32H563ZI and STM32WL55 figures, the nRF52840, and
# the STM32F091 and STM32F411 of p256-m's published figures (Mbed OS 6's clock set-up):
# (core, clock, wait states, prefetch, ART, I-cache, D-cache, flash, RAM), the emulated board of the core,
# and where their wait states come from
NEW_BOARDS = {
    "stm32g071rb": (("cortex-m0plus", 64_000_000, 2, True, False, True, False, 128 << 10, 36 << 10),
                    "microbit-roomy", "stm32g0xx_ll_utils.c"),
    "stm32h563zi": (("cortex-m33", 150_000_000, 3, False, False, True, True, 2 << 20, 640 << 10),
                    "mps2-an505", "stm32h5xx_ll_utils.c"),
    "stm32wl55jc": (("cortex-m4", 48_000_000, 2, False, True, False, False, 256 << 10, 64 << 10),
                    "mps2-an386", "stm32wlxx_ll_utils.c"),
    "nrf52840": (("cortex-m4", 64_000_000, 0, True, False, True, False, 1 << 20, 256 << 10),
                 "mps2-an386", "an assumption, not a datasheet figure"),
    "stm32f091rc": (("cortex-m0", 48_000_000, 1, True, False, False, False, 256 << 10, 32 << 10),
                    "microbit-roomy", "stm32f0xx_ll_utils.c"),
    "stm32f411re": (("cortex-m4", 100_000_000, 3, True, True, False, False, 512 << 10, 128 << 10),
                    "mps2-an386", "stm32f4xx_ll_utils.c"),
}


@pytest.mark.parametrize("name", NEW_BOARDS)
def test_the_published_figures_boards_have_their_figures_and_an_emulated_core(name: str) -> None:
    figures, machine, ws_source = NEW_BOARDS[name]
    p = boardprofiles.load(name)
    assert (p.core, p.clock_hz, p.flash_wait_states, p.prefetch, p.art, p.icache, p.dcache, p.flash_bytes,
            p.ram_bytes) == figures
    assert ws_source in p.sources["flash_wait_states"]
    assert boardresults.EMULATED[p.core] == machine
    cyclemodel.check_target(p, targets.BOARDS[machine])
    # model time is model cycles / the profile's clock, exactly
    row = Result.of("client_model_cycles", "model cycles", 1, 0, *([float(p.clock_hz)] * 7))
    derived = {r.metric: r.median for r in cyclemodel.derived_results([row], p)}
    assert derived == {"client_model_time_ns": pytest.approx(1e9, rel=1e-12)}


def test_the_published_figures_boards_give_the_plugin_their_memory(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cyclemodel, "code_range", lambda fw: (0x0, 0x1000))
    monkeypatch.setattr(cyclemodel, "mark_address", lambda fw, prefix="": 0x100)

    def args(name: str) -> list[str]:
        return cyclemodel.plugin_args(boardprofiles.load(name), tmp_path / "fw.elf", tmp_path / "out")
    # the G071's instruction cache and prefetch hide its 2 wait states from fetches, not from literal loads
    assert args("stm32g071rb")[3:6] == ["branch_ws=0", "load_ws=2", "seq_ws=0"]
    assert args("stm32g071rb")[7] == "muls=1"
    # ... and its instruction cache is modelled line by line (32 lines of 4 x 64 bits), with no data cache
    assert args("stm32g071rb")[-5:] == ["art_ws=2", "art_fetch=8", "art_ilines=128", "art_dlines=0",
                                        "art_prefetch=1"]
    # the H563's ICACHE serves instruction and data reads over the C-AHB
    assert args("stm32h563zi")[3:6] == ["branch_ws=0", "load_ws=0", "seq_ws=0"]
    # the WL55's ART caches, line by line as the L4's: 1 KB of instructions, 256 bytes of data, no prefetch
    assert args("stm32wl55jc")[-5:] == ["art_ws=2", "art_fetch=8", "art_ilines=128", "art_dlines=32",
                                        "art_prefetch=0"]
    assert args("nrf52840")[3:6] == ["branch_ws=0", "load_ws=0", "seq_ws=0"]
    # the F091 has a prefetch buffer and no cache: its wait state costs branches and literal loads
    assert args("stm32f091rc")[3:] == ["branch_ws=1", "load_ws=1", "seq_ws=0", "flash=0x0-0x1000", "muls=1"]
    # the F411's ART caches as the F446's (64 I-lines, 8 D-lines of 16 bytes), with 3 wait states
    assert args("stm32f411re")[-5:] == ["art_ws=3", "art_fetch=16", "art_ilines=64", "art_dlines=8",
                                        "art_prefetch=1"]


def bad(tmp_path: Path, text: str) -> str:
    path = tmp_path / "board.toml"
    path.write_text(text)
    with pytest.raises(PlanError) as e:
        boardprofiles.parse(path)
    return str(e.value).replace(str(path), "board.toml")


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_an_unknown_core_names_the_line_and_the_cores(tmp_path: Path) -> None:
    text = GOOD.replace('core = "cortex-m4"', 'core = "cortex-m5"')
    assert bad(tmp_path, text) == (
        f"board.toml:{line_of(text, 'core =')}: core: unknown core 'cortex-m5' (did you mean cortex-m7, cortex-m4?);"
        " allowed: cortex-m0, cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, cortex-m33, rv32imc")


def test_a_zero_clock_is_refused(tmp_path: Path) -> None:
    text = GOOD.replace("clock_hz = 180_000_000", "clock_hz = 0")
    assert bad(tmp_path, text) == f"board.toml:{line_of(text, 'clock_hz')}: clock_hz: must be a positive integer, got 0"


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    text = GOOD.replace("flash_wait_states = 5\n", "")
    assert bad(tmp_path, text).startswith("board.toml:1: flash_wait_states: missing (every profile sets: description,"
                                          " core, clock_hz, flash_wait_states,")


def test_an_unknown_key_lists_the_allowed_ones(tmp_path: Path) -> None:
    text = GOOD.replace("prefetch = true", "prefetch = true\nflash_waitstates = 3")
    msg = bad(tmp_path, text)
    assert msg.startswith(f"board.toml:{line_of(text, 'flash_waitstates')}: flash_waitstates: unknown key"
                          " (did you mean flash_wait_states, flash_bytes?); allowed: description, core, clock_hz,")


def test_a_wrong_type_and_a_figure_without_source(tmp_path: Path) -> None:
    text = GOOD.replace("art = true", 'art = "yes"')
    assert bad(tmp_path, text) == f"board.toml:{line_of(text, 'art =')}: art: must be true or false, got 'yes'"
    text = GOOD.replace("ram_bytes = 131_072\n", "ram_bytes = 131_072\nmultiplier_cycles = 1\n")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'multiplier_cycles')}: multiplier_cycles: has no"
                                   " source: add it to [sources]")


def test_an_unknown_profile_name_lists_the_known_ones() -> None:
    with pytest.raises(PlanError, match=r"unknown board profile 'nucleo-f446' \(did you mean nucleo-f446re"):
        boardprofiles.load("nucleo-f446")


def test_the_art_cache_keys_go_together_and_only_with_art(tmp_path: Path) -> None:
    text = GOOD.replace("art = true", "art = false")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'flash_line_bytes')}: flash_line_bytes: describes the"
                                   " flash's caches: only with art = true (the ART accelerator's), or icache = true"
                                   " and art_dcache_lines = 0 (an instruction cache without a data cache)")
    # without ART, an instruction cache only (the STM32G0's flash): no data cache lines
    text = GOOD.replace("art = true", "art = false").replace("icache = false", "icache = true")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'art_dcache_lines')}: art_dcache_lines: must be 0"
                                   " without ART (icache = true, art = false: no data cache), got 8")
    text = text.replace("art_dcache_lines = 8", "art_dcache_lines = 0")
    (tmp_path / "board.toml").write_text(text)
    assert boardprofiles.parse(tmp_path / "board.toml").art_dcache_lines == 0
    text = GOOD.replace("art_dcache_lines = 8", "art_dcache_lines = 0")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'art_dcache_lines')}: art_dcache_lines: must be"
                                   " 1..256, got 0")
    text = GOOD.replace("art_dcache_lines = 8\n", "")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'flash_line_bytes')}: flash_line_bytes:"
                                   " flash_line_bytes, art_icache_lines and art_dcache_lines go together")
    text = GOOD.replace("flash_line_bytes = 16", "flash_line_bytes = 12")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'flash_line_bytes')}: flash_line_bytes: must be 4, 8,"
                                   " 16 or 32, got 12")
    f446 = boardprofiles.load("nucleo-f446re")
    assert (f446.flash_line_bytes, f446.art_icache_lines, f446.art_dcache_lines) == (16, 64, 8)


def test_the_m7_cache_sizes_go_together_only_on_a_cortex_m7(tmp_path: Path) -> None:
    m7 = (boardprofiles.BOARDS_DIR / "stm32h753zi.toml").read_text()
    text = m7.replace('core = "cortex-m7"', 'core = "cortex-m4"')
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'icache_bytes')}: icache_bytes: describes the"
                                   ' Cortex-M7\'s L1 caches: only with core = "cortex-m7"')
    text = m7.replace("dcache_bytes = 16384\n", "")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'icache_bytes')}: icache_bytes: icache_bytes and"
                                   " dcache_bytes go together")
    text = m7.replace("dcache_bytes = 16384", "dcache_bytes = 12000")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'dcache_bytes')}: dcache_bytes: must be one of 4096,"
                                   " 8192, 16384, 32768, 65536, got 12000")
    text = m7.replace("icache = true", "icache = false")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'icache_bytes')}: icache_bytes: gives a cache size:"
                                   " only with icache = true")
    sizes = {n: (boardprofiles.load(n).icache_bytes, boardprofiles.load(n).dcache_bytes)
             for n in ("nucleo-f746zg", "stm32h753zi")}
    assert sizes == {"nucleo-f746zg": (4096, 4096), "stm32h753zi": (16384, 16384)}


def test_the_m7_profiles_give_the_plugin_their_l1_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tlsbench.targets import cyclemodel
    monkeypatch.setattr(cyclemodel, "code_range", lambda fw: (0x0, 0x1000))
    monkeypatch.setattr(cyclemodel, "mark_address", lambda fw, prefix="": 0x100)
    args = cyclemodel.plugin_args(boardprofiles.load("stm32h753zi"), tmp_path / "fw.elf", tmp_path / "out")
    # the H753's flash counts its 4 wait states at the 240 MHz AXI clock: (4 + 1) x 2 - 1 = 9 core cycles
    assert args[-7:] == ["art_ws=9", "art_fetch=32", "art_ilines=512", "art_iways=2", "art_dlines=512",
                         "art_dways=4", "art_prefetch=0"]
    args = cyclemodel.plugin_args(boardprofiles.load("nucleo-f746zg"), tmp_path / "fw.elf", tmp_path / "out")
    assert args[-7:] == ["art_ws=7", "art_fetch=32", "art_ilines=128", "art_iways=2", "art_dlines=128",
                         "art_dways=4", "art_prefetch=0"]
    # a profile without cache sizes (the F446: ART, no L1) passes no ways
    assert not any("ways" in a for a in cyclemodel.plugin_args(boardprofiles.load("nucleo-f446re"),
                                                              tmp_path / "fw.elf", tmp_path / "out"))


# profiles whose datasheet gives a typical run current at the profile's own clock (docs/cycle-model.md, "Energy")
WITH_CURRENT = {"nucleo-f103rb": (27.0, 3.3), "stm32f405": (40.0, 3.3), "stm32h753zi": (110.0, 3.3)}


def test_energy_per_cycle_only_where_a_datasheet_row_gives_the_current_at_the_profile_clock() -> None:
    for name in SHIPPED:
        p = boardprofiles.load(name)
        if name in WITH_CURRENT:
            assert (p.run_current_ma, p.supply_v) == WITH_CURRENT[name]
            assert "Table" in p.sources["run_current_ma"] and "V" in p.sources["supply_v"]
        else:
            assert p.energy_nj_per_cycle is None  # "n/a" in reports, never zero


def test_model_energy_of_a_shipped_profile_is_cycles_times_v_times_i_over_f() -> None:
    f103 = boardprofiles.load("nucleo-f103rb")
    # 72,000 cycles at 72 MHz are 1 ms; 3.3 V x 27 mA x 1 ms = 89.1 uJ
    row = Result.of("client_model_cycles", "model cycles", 1, 0, *([72_000.0] * 7))
    derived = {r.metric: r.median for r in cyclemodel.derived_results([row], f103)}
    assert derived["client_model_time_ns"] == pytest.approx(1_000_000.0, rel=1e-12)
    assert derived["client_model_energy_nj"] == pytest.approx(89_100.0, rel=1e-12)
    assert boardprofiles.load("stm32h753zi").energy_nj_per_cycle == pytest.approx(3.3 * 110e-3 / 480e6 * 1e9,
                                                                                  rel=1e-12)


def test_every_shipped_profile_has_a_roomy_emulated_board_for_the_results_page() -> None:
    """docs/results-boards.md runs each profile on the emulated board of its
    core: that board exists, accepts the profile, and has room for a whole
    in-memory handshake (4 MiB, as the MPS2 boards)."""
    for name in boardprofiles.names():
        profile = boardprofiles.load(name)
        board = targets.BOARDS[boardresults.EMULATED[profile.core]]
        cyclemodel.check_target(profile, board)
        assert board.machine is not None and board.ram_bytes == 4 << 20, name


def test_the_pqm4_profile_is_the_l4r5_at_its_benchmark_clock() -> None:
    """pqm4 publishes its cycle counts at 20 MHz, 0 wait states, ART caches and prefetch on."""
    p = boardprofiles.load("stm32l4r5zi-pqm4")
    assert (p.core, p.clock_hz, p.flash_wait_states, p.art, p.prefetch) == ("cortex-m4", 20_000_000, 0, True, True)
    assert all("pqm4 common/hal-opencm3.c" in p.sources[k] for k in ("clock_hz", "flash_wait_states", "prefetch"))


def test_a_slower_flash_clock_is_counted_in_core_cycles_and_checked(tmp_path: Path) -> None:
    m7 = (boardprofiles.BOARDS_DIR / "stm32h753zi.toml").read_text()
    h753 = boardprofiles.load("stm32h753zi")
    assert (h753.flash_clock_hz, h753.flash_wait_states, h753.flash_access_cycles) == (240_000_000, 4, 9)
    assert "4 flash wait states (at 240 MHz)" in h753.summary()
    # without it the wait states are core cycles, as on every other profile
    assert boardprofiles.load("nucleo-f746zg").flash_access_cycles == 7
    text = m7.replace("flash_clock_hz = 240_000_000", "flash_clock_hz = 960_000_000")
    assert bad(tmp_path, text) == (f"board.toml:{line_of(text, 'flash_clock_hz')}: flash_clock_hz: must be"
                                   " 1..clock_hz (480000000), the flash interface's clock, got 960000000")
