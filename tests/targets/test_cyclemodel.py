"""The cycle model (agent/qemu-plugin): micro-kernels whose cycle counts
follow from the Technical Reference Manuals, run under QEMU with the plugin,
must cost exactly those cycles; the same image twice costs the same; the
firmware's model_cycles counter leaves its instruction counts as they were.
The tests build the plugin and the kernels themselves (seconds)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import needs_tools

from tlsbench.engine import agent
from tlsbench.engine.case import Result
from tlsbench.errors import SetupError
from tlsbench.targets import boardprofiles, cyclemodel
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "cc")

KERNELS = Path(__file__).parents[1] / "data" / "cyclemodel_kernels.S"
MACHINES = {"cortex-m0": "microbit", "cortex-m3": "mps2-an385", "cortex-m4": "mps2-an386", "cortex-m7": "mps2-an500"}
NAMES = ["dependent_loads", "independent_loads", "ldm", "loop", "umull", "mla", "literal_loads", "alu"]


@pytest.fixture(scope="module")
def plugin() -> Path:
    return cyclemodel.build_plugin()


def assemble(source: Path, image: Path, cpu: str = "cortex-m4") -> Path:
    """A kernel's image, linked at 0 and entered at reset (once: kept while it exists)."""
    if not image.exists():
        subprocess.run(["arm-none-eabi-gcc", f"-mcpu={cpu}", "-mthumb", "-nostdlib", "-nostartfiles", "-Wl,-Ttext=0",
                        "-e", "reset", "-o", str(image), str(source)], check=True, timeout=60)
    return image


def mark_intervals(plugin: Path, image: Path, log: Path, extra: str = "") -> list[int]:
    """The model cycles between consecutive marks of image run on the M4 board (the plugin's options: extra)."""
    opts = f"{plugin},core=cortex-m4,mark={cyclemodel_symbol(image, 'mark'):#x},log={log}{extra}"
    subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
                    "-semihosting-config", "enable=on,target=native", "-icount", targets.ICOUNT,
                    "-kernel", str(image), "-plugin", opts], check=True, timeout=60)
    marks = [int(line.split()[0]) for line in log.read_text().splitlines() if not line.startswith("exit")]
    return [b - a for a, b in zip(marks, marks[1:], strict=False)]


def kernel_image(tmp: Path, cpu: str) -> Path:
    return assemble(KERNELS, tmp / f"kernels-{cpu}.elf", cpu)


def run_kernels(plugin: Path, tmp: Path, cpu: str, core: str, extra: str = "") -> tuple[tuple, dict]:
    """(call overhead, {kernel: (cycles, instructions)}) between the marks."""
    image = kernel_image(tmp, cpu)
    log = tmp / f"log-{cpu}-{core}{extra.replace(',', '_').replace('=', '-')}"
    mark = cyclemodel_symbol(image, "mark")
    opts = f"{plugin},core={core},mark={mark:#x},log={log}{extra}"
    subprocess.run(["qemu-system-arm", "-M", MACHINES[cpu], "-display", "none", "-monitor", "none",
                    "-semihosting-config", "enable=on,target=native", "-icount", targets.ICOUNT,
                    "-kernel", str(image), "-plugin", opts], check=True, timeout=60)
    marks = [tuple(map(int, line.split())) for line in log.read_text().splitlines() if not line.startswith("exit")]
    steps = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(marks, marks[1:], strict=False)]
    overhead, rest = steps[0], steps[1:]
    names = [n for n in NAMES if not (cpu == "cortex-m0" and n in ("umull", "mla"))]
    assert len(rest) == len(names)
    return overhead, {n: (c - overhead[0], i - overhead[1]) for n, (c, i) in zip(names, rest, strict=True)}


def cyclemodel_symbol(image: Path, name: str) -> int:
    out = subprocess.run(["arm-none-eabi-nm", str(image)], capture_output=True, text=True, check=True).stdout
    return next(int(a, 16) for a, _t, n in (line.split() for line in out.splitlines()) if n == name)


# Expected cycles, each from the manuals (zero wait states):
#  dependent loads: 8 LDRs, each addressed by the previous one's result: no pipelining, 8 x 2
#  independent loads: 8 LDRs: M3/M4 pipeline neighbouring loads (DDI 0337 18.3, DDI 0439B 3.3.1): 2 + 7 x 1;
#     ARMv6-M: 8 x 2
#  ldm: LDM of 8 registers 1 + N = 9 (ARMv6-M: MOV 1 + LDM of 6 low registers 1 + 6)
#  loop: MOVS 1 + 10 x SUBS 1 + 9 taken BNE (1 + P, P = 1 on M3/M4; 3 cycles on M0, 2 on M0+) + 1 not taken
#  umull: 4 x UMULL: 1 each on M4 (DDI 0439B), 5 each on M3 (3..5 in DDI 0337, the upper bound)
#  mla: 4 x MLA: 1 each on M4, 2 each on M3
#  literal loads: 4 PC-relative LDRs: pipelined on M3/M4 (2 + 3 x 1), 4 x 2 on ARMv6-M
#  alu: 4 independent ADDS, 1 each; the Cortex-M7 approximation issues them in two pairs
#  Cortex-M7: a direct branch (B<cond>, BL) costs 1, no refill (DDI 0489, the Prefetch Unit's Branch Target
#     Address Cache, "single-cycle turn-around"): loop MOVS 1 + 10 x SUBS 1 + 10 x BNE 1 = 21
EXPECTED = {
    ("cortex-m4", "cortex-m4"): {"dependent_loads": 16, "independent_loads": 9, "ldm": 9, "loop": 30, "umull": 4,
                                 "mla": 4, "literal_loads": 5, "alu": 4},
    ("cortex-m3", "cortex-m3"): {"dependent_loads": 16, "independent_loads": 9, "ldm": 9, "loop": 30, "umull": 20,
                                 "mla": 8, "literal_loads": 5, "alu": 4},
    ("cortex-m0", "cortex-m0"): {"dependent_loads": 16, "independent_loads": 16, "ldm": 8, "loop": 39,
                                 "literal_loads": 8, "alu": 4},
    ("cortex-m0", "cortex-m0plus"): {"dependent_loads": 16, "independent_loads": 16, "ldm": 8, "loop": 30,
                                     "literal_loads": 8, "alu": 4},
    # no Arm table: the issue rules of Arm's LLVM scheduling model (cyclemodel_m7.c): dependent loads 1 + 7 x
    # (1 + 1: the address is read a cycle early); independent and literal loads pair (two load pipes); LDM
    # keeps the M4's 1 + N; UMULL and MLA do not pair (one MAC pipe); ADDS pair
    ("cortex-m7", "cortex-m7"): {"dependent_loads": 15, "independent_loads": 4, "ldm": 9, "loop": 21, "umull": 4,
                                 "mla": 4, "literal_loads": 2, "alu": 2},
}
# the call around each kernel: BL (M3/M4 1 + P = 2, M0 4, M0+ 3, M7 1) + BX LR (M3/M4/M7 1 + P = 3, M0 3,
# M0+ 2): the M7's BTAC rule covers direct branches only, BX LR keeps its register-target refill
OVERHEAD = {"cortex-m4": 5, "cortex-m3": 5, "cortex-m0": 7, "cortex-m0plus": 5, "cortex-m7": 4}
INSTRUCTIONS = {"dependent_loads": 8, "independent_loads": 8, "ldm": 1, "loop": 21, "umull": 4, "mla": 4,
                "literal_loads": 4, "alu": 4}


@pytest.mark.parametrize(("cpu", "core"), list(EXPECTED))
def test_micro_kernels_cost_what_the_manuals_say(plugin: Path, tmp_path: Path, cpu: str, core: str) -> None:
    overhead, got = run_kernels(plugin, tmp_path, cpu, core)
    assert overhead == (OVERHEAD[core], 2)
    assert {n: c for n, (c, _) in got.items()} == EXPECTED[(cpu, core)]
    want_insns = {n: (2 if n == "ldm" and cpu == "cortex-m0" else i) for n, i in INSTRUCTIONS.items() if n in got}
    assert {n: i for n, (_, i) in got.items()} == want_insns


M7_KERNELS = KERNELS.with_name("cyclemodel_m7.S")
# Each Cortex-M7 kernel's cycles by hand, from the rules of Arm's Cortex-M7 scheduling model in LLVM
# (ARMScheduleM7.td; agent/qemu-plugin/cyclemodel_m7.c cites each): two load pipes, one store pipe, one MAC,
# one early shifter; ALU and word-load results ready the next cycle, byte loads and multiplies a cycle later,
# addresses read a cycle early; DSP/SIMD instructions issue only first of a pair. (The M4 costs: LDR 2, ...)
M7_EXPECTED = {
    "load_alu": 2,        # (LDR + ADDS) (LDR + ADDS): a load pairs with an independent ALU instruction
    "load_use": 2,        # LDR, then ADDS reading it: no pair, no stall (word load latency 1)
    "byte_load_use": 3,   # LDRB, then ADDS waits one cycle (byte load latency 2)
    "alu_address": 3,     # ADDS, then LDR addressed by it waits one cycle (address read at EX1)
    "stores": 4,          # one store pipe: no two stores together
    "load_store": 2,      # (LDR + STR) (LDR + STR)
    "multiply_use": 3,    # MUL, then ADDS waits one cycle (multiply latency 2)
    "mac_chain": 2,       # UMAAL, UMAAL on its accumulators: no wait (accumulators read late), no pair (one MAC)
    "slot0": 3,           # ADDS; UXTB cannot be second: (UXTB) (UXTB + ADDS)
    "shifted": 2,         # ADD lsl; the second ADD lsl needs the same shifter: (ADD lsl) (ADD lsl + ADDS)
    "ldrd": 2,            # LDRD 1 each (64-bit path), issued alone (M4: 3 each)
    # results are tracked through the block, not only from the instruction just before:
    "multiply_two_back": 3,  # (MUL + ADDS r4) in cycle 1; ADDS r5, r1 needs MUL's result at cycle 1 + 2: waits
    "address_two_back": 3,   # (ADDS r1 + ADDS r2) in cycle 1; LDR [r1] reads its address a cycle early: waits
    # the flags are an operand with the writer's latency (CPSR in the same model):
    "flags_carry": 2,            # ADDS, then ADCS reading its carry: no pair (ALU latency 1)
    "flags_shifted_compare": 3,  # CMP lsl (flags latency 2, WriteCMPsi), then ADCS waits one cycle
    "flags_branch": 2,           # CMP lsl, then BEQ 1 without waiting: flags forwarded to direct branches (DDI 0489)
    "flags_predicated": 3,       # (CMP lsl + IT) in cycle 1; ADDEQ reads the flags (latency 2): waits, cycle 3
}


def test_cortex_m7_issue_rules_on_micro_kernels(plugin: Path, tmp_path: Path) -> None:
    image = assemble(M7_KERNELS, tmp_path / "m7.elf", "cortex-m7")
    log = tmp_path / "m7-log"
    opts = f"{plugin},core=cortex-m7,mark={cyclemodel_symbol(image, 'mark'):#x},log={log}"
    subprocess.run(["qemu-system-arm", "-M", MACHINES["cortex-m7"], "-display", "none", "-monitor", "none",
                    "-semihosting-config", "enable=on,target=native", "-icount", targets.ICOUNT,
                    "-kernel", str(image), "-plugin", opts], check=True, timeout=60)
    marks = [int(line.split()[0]) for line in log.read_text().splitlines() if not line.startswith("exit")]
    steps = [b - a for a, b in zip(marks, marks[1:], strict=False)]
    overhead, rest = steps[0], steps[1:]
    assert overhead == OVERHEAD["cortex-m7"]
    assert dict(zip(M7_EXPECTED, [c - overhead for c in rest], strict=True)) == M7_EXPECTED


def test_flash_wait_states_are_paid_by_taken_branches_and_flash_loads(plugin: Path, tmp_path: Path) -> None:
    """5 wait states, no ART: each taken branch refetches (+5), each load
    from the code range waits (+5); loads from SRAM do not."""
    overhead, got = run_kernels(plugin, tmp_path, "cortex-m4", "cortex-m4", ",branch_ws=5,load_ws=5,flash=0x0-0x1000")
    assert overhead == (5 + 2 * 5, 2)  # BL and BX LR are both taken
    cycles = {n: c for n, (c, _) in got.items()}
    assert cycles["loop"] == 30 + 9 * 5
    assert cycles["literal_loads"] == 5 + 4 * 5
    assert cycles["dependent_loads"] == 16 and cycles["independent_loads"] == 9  # SRAM: no wait states


def test_the_same_image_twice_costs_the_same(plugin: Path, tmp_path: Path) -> None:
    first = run_kernels(plugin, tmp_path, "cortex-m4", "cortex-m4")
    second = run_kernels(plugin, tmp_path, "cortex-m4", "cortex-m4", ",seq_ws=0")
    assert first == second


def test_the_plugin_refuses_a_bad_argument(plugin: Path, tmp_path: Path) -> None:
    image = kernel_image(tmp_path, "cortex-m4")
    proc = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
                           "-kernel", str(image), "-plugin", f"{plugin},core=cortex-m5"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "core=cortex-m0, cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, cortex-m33" in proc.stderr


# ---- the firmware's model_cycles counter ----

@pytest.fixture(scope="module")
def m4_selftest(plugin: Path, firmware_images) -> Path:
    t = firmware_images(targets.parse("qemu:mps2-an386"), [])
    return targets.write_launcher(t, "selftest")


def call(launcher: Path, requests: list[str], board: str | None) -> list[agent.Response]:
    saved = os.environ.pop(cyclemodel.MODEL_ENV, None)
    try:
        if board:
            os.environ[cyclemodel.MODEL_ENV] = board
        return agent.call(launcher, requests, 60, "cycle model test").responses
    finally:
        os.environ.pop(cyclemodel.MODEL_ENV, None)
        if saved is not None:
            os.environ[cyclemodel.MODEL_ENV] = saved


@pytest.mark.parametrize(("board", "per_turn"), [("nucleo-f446re", 3), ("nucleo-f103rb", 5)])
def test_firmware_calibration_loop_costs_its_model_cycles(m4_selftest: Path, board: str, per_turn: int) -> None:
    """calibrate's `subs; bne` turn costs 1 + (1 + P) on a Cortex-M4 with
    ART (no wait state seen), and 1 + (1 + P) + 2 on an M3 profile with 2
    flash wait states and no cache (the taken branch refetches); the cycles
    of the counter readings themselves are subtracted like instructions."""
    ns = [10, 1000, 100_000]
    cal = [r.of_type("calibrate")[0] for r in call(m4_selftest, [f"calibrate n={n}" for n in ns], board)]
    costs = [int(c["model_measured"]) for c in cal]
    assert [b - a for a, b in zip(costs, costs[1:], strict=False)] == [per_turn * (b - a)
                                                                        for a, b in zip(ns, ns[1:], strict=False)]
    empties = {int(c["model_empty"]) for c in cal}
    assert len(empties) == 1  # deterministic: the same every request
    if not boardprofiles.load(board).art_icache_lines:
        assert empties == {0}
    else:
        # with the ART's caches modelled a reading's own cost depends on what ran
        # before it; the subtracted cost is a warm reading's (start-up), so an empty
        # window keeps the misses of the reading code evicted by the request's work: at most one miss per
        # flash line the reading code spans (about a dozen, where the linker puts them: 60-72 cycles seen
        # as the firmware grew), each its wait states and the fetch
        profile = boardprofiles.load(board)
        assert 0 < empties.pop() < 16 * (profile.flash_wait_states + 1)


def test_the_model_leaves_instruction_counts_as_they_were(m4_selftest: Path) -> None:
    req = "bench kind=hash alg=sha224 op=hash size=64 repeats=2 warmup=1"
    plain, modelled = call(m4_selftest, [req, "calibrate n=1000"], None), call(
        m4_selftest, [req, "calibrate n=1000"], "nucleo-f446re")
    insns = [[int(s["instructions"]) for s in r[0].of_type("sample")] for r in (plain, modelled)]
    assert insns[0] == insns[1]
    assert plain[1].of_type("calibrate")[0]["measured"] == modelled[1].of_type("calibrate")[0]["measured"]
    assert "model_cycles" not in plain[0].of_type("sample")[0].fields
    cycles = [int(s["model_cycles"]) for s in modelled[0].of_type("sample")]
    assert len(set(cycles)) == 1 and cycles[0] > 0
    again = call(m4_selftest, [req], "nucleo-f446re")
    assert [int(s["model_cycles"]) for s in again[0].of_type("sample")] == cycles


# ---- results ----

def test_model_time_and_energy_are_the_cycles_scaled_by_the_profile(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    text = (boardprofiles.BOARDS_DIR / "nucleo-f446re.toml").read_text()
    text = text.replace("ram_bytes = 131_072\n", "ram_bytes = 131_072\nrun_current_ma = 30.0\nsupply_v = 3.0\n")
    text += 'run_current_ma = "a test figure"\nsupply_v = "a test figure"\n'
    path.write_text(text)
    profile = boardprofiles.parse(path)
    row = Result.of("model_cycles", "model-cycles/op", 3, 0, 1800.0, 1800.0, 0.0, 1800.0, 1800.0, 1800.0, 1800.0)
    derived = {r.metric: r for r in cyclemodel.derived_results([row], profile)}
    assert derived["model_time_ns"].unit == "model-ns/op"
    assert derived["model_time_ns"].median == pytest.approx(10_000.0)  # 1800 cycles at 180 MHz
    # 3.0 V * 30 mA / 180 MHz = 0.5 nJ per cycle
    assert derived["model_energy_nj"].median == pytest.approx(900.0)
    side = Result.of("client_model_cycles", "model cycles", 1, 0, *([360.0] * 7))
    first = cyclemodel.derived_results([side], profile)[0]
    assert (first.metric, first.unit) == ("client_model_time_ns", "model-ns")


def test_a_profile_must_fit_the_emulated_core() -> None:
    from tlsbench.errors import PlanError

    m4 = targets.BOARDS["mps2-an386"]
    cyclemodel.check_target(boardprofiles.load("nucleo-f446re"), m4)
    cyclemodel.check_target(boardprofiles.load("nucleo-l073rz"), targets.BOARDS["microbit"])
    with pytest.raises(PlanError, match=r"nucleo-l073rz is a cortex-m0plus; qemu:mps2-an386 emulates a cortex-m4 "
                                        r"\(use qemu:microbit or qemu:microbit-roomy"
                                        r" or qemu:nucleo-l073rz-on-microbit\)"):
        cyclemodel.check_target(boardprofiles.load("nucleo-l073rz"), m4)
    with pytest.raises(PlanError, match=r"esp32-c3-class is a rv32imc; qemu:mps2-an386 emulates a cortex-m4 "
                                        r"\(use qemu:rv32-virt\)"):
        cyclemodel.check_target(boardprofiles.load("esp32-c3-class"), m4)
    # the two cores with a target of their own: the M33 (mps2-an505) and the RV32 class (rv32-virt)
    cyclemodel.check_target(boardprofiles.load("nrf5340-app"), targets.BOARDS["mps2-an505"])
    cyclemodel.check_target(boardprofiles.load("esp32-c3-class"), targets.BOARDS["rv32-virt"])


def test_a_run_with_a_profile_of_another_core_is_refused_in_one_line(capsys: pytest.CaptureFixture,
                                                                      tmp_path: Path) -> None:
    from tlsbench.cli import main

    rc = main(["--db", str(tmp_path / "r.sqlite"), "run", "--target", "qemu:mps2-an386", "--board", "nucleo-l073rz",
               "--preset", "quick"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0
    assert err == ["tlsbench: error: board profile nucleo-l073rz is a cortex-m0plus; qemu:mps2-an386 emulates a"
                   " cortex-m4 (use qemu:microbit or qemu:microbit-roomy or qemu:nucleo-l073rz-on-microbit)"]


def test_code_placement_does_not_change_the_cycles(plugin: Path, tmp_path: Path) -> None:
    """QEMU ends a translation block at a 1 KiB page boundary; eight
    independent loads straddling one still pipeline (2 + 7), as in one block."""
    image = assemble(KERNELS.with_name("cyclemodel_straddle.S"), tmp_path / "straddle.elf")
    empty, loads = mark_intervals(plugin, image, tmp_path / "log")[:2]
    assert loads - empty == 2 + 9  # B to the loads (1 + P) + the eight loads


ART_KERNEL = Path(__file__).parents[1] / "data" / "cyclemodel_art.S"
HEAD = ART_KERNEL.with_name("cyclemodel_head.inc")


def art_intervals(plugin: Path, tmp: Path, extra: str, source: Path = ART_KERNEL, log_name: str = "") -> list[int]:
    image = assemble(source, tmp / "art.elf")
    return mark_intervals(plugin, image, tmp / (log_name or f"art-log{len(extra)}"), extra)


def test_art_misses_cost_wait_states_and_prefetch_hides_part_of_them(plugin: Path, tmp_path: Path) -> None:
    """The ART rule (5 wait states, 16-byte lines, 64 + 8 lines), cold then
    warm, against the same image with a perfect ART:
    - line_seq cold: its first line is a branch target (+5); the next two
      are run into sequentially after 4 single-cycle instructions each, so
      the prefetch hid 4 of their 6 fetch cycles (+2, +2): +9. Warm: +0, but
      its return lands on reset's next line, not fetched yet: +5.
    - flash_loads cold: its line is a branch target (+5); its loads touch two
      table lines (+5 each, the second load of the first line hits): +15.
      Warm: +0, and its return lands on reset's third line: +5."""
    perfect = art_intervals(plugin, tmp_path, "")
    art = art_intervals(plugin, tmp_path, ",flash=0x0-0x1000,art_ws=5,art_fetch=16,art_ilines=64,art_dlines=8")
    assert [a - p for a, p in zip(art, perfect, strict=True)] == [9, 5, 15, 5]
    # without prefetch a sequential miss pays all its wait states: line_seq cold is 3 x 5
    no_prefetch = art_intervals(plugin, tmp_path, ",flash=0x0-0x1000,art_ws=5,art_fetch=16,art_ilines=64,"
                                "art_dlines=8,art_prefetch=0")
    assert [a - p for a, p in zip(no_prefetch, perfect, strict=True)] == [15, 5, 15, 5]


def test_an_instruction_cache_without_a_data_cache_leaves_flash_loads_their_wait_states(plugin: Path,
                                                                                       tmp_path: Path) -> None:
    """The STM32G0's flash (an instruction cache, no data cache: art_dlines=0):
    fetches as with the ART (line_seq +9 cold, +5 warm), while every load from
    flash pays load_ws, cold or warm: flash_loads cold is its code line (+5)
    and three loads (+5 each): +20; warm, the return to reset's third line
    (+5) and the same three loads: +20."""
    perfect = art_intervals(plugin, tmp_path, "")
    icache_only = art_intervals(plugin, tmp_path, ",flash=0x0-0x1000,load_ws=5,art_ws=5,art_fetch=16,art_ilines=64,"
                                "art_dlines=0")
    assert [a - p for a, p in zip(icache_only, perfect, strict=True)] == [9, 5, 20, 20]


ART_ON = ",flash=0x0-0x1000,art_ws=5,art_fetch=16,art_ilines=64,art_dlines=8"


def test_two_runs_from_two_checkout_paths_cost_the_same_cycles(plugin: Path, tmp_path: Path) -> None:
    """The ART kernel (the model's most stateful rule: LRU lines) copied into
    two folders of different depth and length, assembled there and run twice
    each: the four interval lists are identical, and still carry the ART
    misses (so the comparison is not between empty lists)."""
    runs = []
    for folder in (tmp_path / "a", tmp_path / "checkout" / "in-a-much-longer-folder-name"):
        folder.mkdir(parents=True)
        source = folder / ART_KERNEL.name
        for name in (ART_KERNEL.name, HEAD.name):  # the kernel and the start it includes
            (folder / name).write_bytes((ART_KERNEL.parent / name).read_bytes())
        runs += [art_intervals(plugin, folder, ART_ON, source, f"log-{turn}") for turn in (1, 2)]
    assert runs[1:] == runs[:1] * 3
    perfect = art_intervals(plugin, tmp_path, "")
    assert [a - p for a, p in zip(runs[0], perfect, strict=True)] == [9, 5, 15, 5]


L1_KERNEL = Path(__file__).parents[1] / "data" / "cyclemodel_l1.S"


def l1_intervals(plugin: Path, tmp: Path, extra: str) -> list[int]:
    image = assemble(L1_KERNEL, tmp / "l1.elf")
    return mark_intervals(plugin, image, tmp / f"l1-log{len(extra)}-{extra.count('ways=2')}", extra)


def test_a_set_associative_cache_evicts_within_a_set(plugin: Path, tmp_path: Path) -> None:
    """4 data lines of 32 bytes, 5 wait states per miss (no prefetch), the
    instruction side large enough to be the same in every run:
    - 2 ways (2 sets): lines A, A+2, A+4 share a set. Cold: A, A+2, A+4
      miss, A misses again (A+4 evicted it): 4 x 5. Warm (the set holds A+4
      and A, A the more recent): A hits, A+2 misses (evicts A+4), A+4
      misses (evicts A), A misses: 3 x 5.
    - 4 ways (one set, fully associative): cold 3 x 5, warm 0."""
    common = ",flash=0x0-0x1000,art_ws=5,art_fetch=32,art_ilines=64,art_dlines=4,art_prefetch=0"
    perfect = l1_intervals(plugin, tmp_path, "")
    two = l1_intervals(plugin, tmp_path, common + ",art_dways=2")
    four = l1_intervals(plugin, tmp_path, common + ",art_dways=4")
    assert [t - f for t, f in zip(two, four, strict=True)] == [20 - 15, 15 - 0]
    # the fully associative run against a perfect cache: the data misses (15 cold, 0 warm) plus the
    # instruction lines not yet cached: cold, set_loads' one line (a branch target, 5); reset (28 bytes,
    # one line) and mark were fetched before the first mark; warm: none
    assert [f - p for f, p in zip(four, perfect, strict=True)] == [15 + 5, 0]


def test_the_plugin_refuses_ways_that_do_not_divide_the_lines(plugin: Path, tmp_path: Path) -> None:
    image = kernel_image(tmp_path, "cortex-m4")
    proc = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
                           "-kernel", str(image), "-plugin",
                           f"{plugin},core=cortex-m4,flash=0x0-0x1000,art_fetch=32,art_dlines=4,art_dways=3"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "a number of lines per set that divides art_ilines/art_dlines" in proc.stderr


SELF_LOOP_KERNEL = Path(__file__).parents[1] / "data" / "cyclemodel_selfloop.S"


def test_a_loop_block_larger_than_the_cache_misses_every_turn(plugin: Path, tmp_path: Path) -> None:
    """A loop of one translation block over three 16-byte lines (22 NOPs,
    SUBS, BNE: 25 cycles a turn), 1 and then 11 turns between marks, no
    prefetch, 5 wait states: the 10 extra turns cost 250 cycles with a
    perfect cache; with 4 lines the loop stays cached (+0 a turn); with 2
    lines (least recently used replaced) each turn evicts its own next line
    and misses all three: +15 a turn, 150 more than with 4."""
    art = ",flash=0x0-0x1000,art_ws=5,art_fetch=16,art_dlines=8,art_prefetch=0"
    extra_turns = {}
    for name, opts in (("perfect", ""), ("4 lines", art + ",art_ilines=4"), ("2 lines", art + ",art_ilines=2")):
        once, eleven = art_intervals(plugin, tmp_path, opts, SELF_LOOP_KERNEL, f"log-{name.replace(' ', '-')}")
        extra_turns[name] = eleven - once
    assert extra_turns["perfect"] == 10 * 25
    assert extra_turns["2 lines"] - extra_turns["4 lines"] == 10 * 3 * 5


def test_a_board_file_outside_the_checkout_gives_model_time_at_its_clock(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    """`--board PATH`: the user's file models the run, model time is model
    cycles / its clock exactly (50 MHz: 20 ns a cycle), and the run keeps the
    file's text for its report."""
    import json

    from tlsbench.cli import main
    from tlsbench.engine.store import Store

    board = tmp_path / "my-board.toml"
    text = (boardprofiles.BOARDS_DIR / "nucleo-f446re.toml").read_text()
    board.write_text(text.replace("clock_hz = 180_000_000", "clock_hz = 50_000_000")
                     .replace('clock_hz = "DS10693: 180 MHz maximum CPU frequency"', 'clock_hz = "user"'))
    db = tmp_path / "r.sqlite"
    assert main(["--db", str(db), "run", "--target", "qemu:mps2-an386", "--board", str(board), "--libraries",
                 "mbedtls", "--kinds", "hash", "--algorithms", "sha256", "--sizes", "64", "--repeats", "2", "--json",
                 "-q"]) == 0
    rows = {r["metric"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    cycles = rows["model_cycles"]["median"]
    assert cycles > 0 and rows["model_time_ns"]["median"] == cycles * 20
    store = Store(db)
    try:
        assert store.board_profile(1) == {"name": "my-board", "origin": str(board.resolve()),
                                          "text": board.read_text(), "sha256": boardprofiles.parse(board).sha256}
    finally:
        store.close()


def stats_intervals(plugin: Path, tmp: Path, extra: str, name: str) -> list[dict[str, int]]:
    """The ART kernel's flash accesses between consecutive marks (stats=FILE): each counter's change."""
    image = assemble(ART_KERNEL, tmp / "art.elf")
    stats = tmp / f"stats-{name}"
    mark_intervals(plugin, image, tmp / f"log-{name}", f"{extra},stats={stats}")
    lines = stats.read_text().splitlines()
    assert lines[0] == "start" and lines[-1].startswith("exit ")
    marks = [dict((k, int(v)) for k, v in (f.split("=") for f in line.split()[1:])) for line in lines[1:-1]]
    return [{k: b[k] - a[k] for k in a if k != "cycles"} for a, b in zip(marks, marks[1:], strict=False)]


def counts(i_hit: int = 0, i_seq_miss: int = 0, i_seq_cycles: int = 0, i_target_miss: int = 0,
           i_target_cycles: int = 0, d_hit: int = 0, d_miss: int = 0, d_cycles: int = 0) -> dict[str, int]:
    return {"i_hit": i_hit, "i_seq_miss": i_seq_miss, "i_seq_cycles": i_seq_cycles, "i_target_miss": i_target_miss,
            "i_target_cycles": i_target_cycles, "d_hit": d_hit, "d_miss": d_miss, "d_cycles": d_cycles}


def test_flash_statistics_count_each_access_by_kind_and_outcome(plugin: Path, tmp_path: Path) -> None:
    """stats=FILE on the ART kernel (5 wait states, 16-byte lines), each
    interval's accesses counted by hand, one per flash line a block runs
    through (a block starts after every branch; the marker's own block is
    counted before its mark):
    - line_seq cold: its call (reset's first line, fetched before: hit),
      its three lines (a branch target, then two run into: misses), the
      return to reset's first line and the marker's line (hits).
    - line_seq warm: call, three lines, marker hit; the return lands on
      reset's second line, not fetched yet: a branch-target miss.
    - flash_loads cold: call, return, marker hit; its one line a target
      miss; its three loads: the table's first line misses then hits, its
      second line misses.
    - flash_loads warm: call, its line, marker, three loads hit; the
      return lands on reset's third line: a target miss.
    The cycles are the rule's: 5 a miss, a sequential one with prefetch
    6 less the 4 cycles of the line before it (2); their sums are the
    intervals the ART test above checks against a perfect ART."""
    art = ",flash=0x0-0x1000,art_ws=5,art_fetch=16,art_ilines=64,art_dlines=8"
    no_prefetch = [counts(i_hit=3, i_seq_miss=2, i_seq_cycles=10, i_target_miss=1, i_target_cycles=5),
                   counts(i_hit=5, i_target_miss=1, i_target_cycles=5),
                   counts(i_hit=3, i_target_miss=1, i_target_cycles=5, d_hit=1, d_miss=2, d_cycles=10),
                   counts(i_hit=3, i_target_miss=1, i_target_cycles=5, d_hit=3)]
    assert stats_intervals(plugin, tmp_path, art + ",art_prefetch=0", "no-prefetch") == no_prefetch
    prefetch = [dict(no_prefetch[0], i_seq_cycles=2 + 2), *no_prefetch[1:]]
    assert stats_intervals(plugin, tmp_path, art, "prefetch") == prefetch
    # the STM32G0's flash (no data cache): every load from flash is a flash read and pays load_ws
    g0 = ",flash=0x0-0x1000,load_ws=5,art_ws=5,art_fetch=16,art_ilines=64,art_dlines=0"
    no_dcache = [no_prefetch[0] | {"i_seq_cycles": 4}, no_prefetch[1],
                 no_prefetch[2] | {"d_hit": 0, "d_miss": 3, "d_cycles": 15},
                 no_prefetch[3] | {"d_hit": 0, "d_miss": 3, "d_cycles": 15}]
    assert stats_intervals(plugin, tmp_path, g0, "no-dcache") == no_dcache


def test_the_stats_file_reaches_the_plugin_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TLSBENCH_MODEL_STATS adds stats=FILE to a board profile's plugin
    arguments and changes nothing else; unset, no statistics are kept; a
    path QEMU's options cannot carry is refused in one line."""
    image = assemble(ART_KERNEL, tmp_path / "art.elf")
    monkeypatch.setattr(cyclemodel, "mark_address", lambda firmware, prefix: cyclemodel_symbol(firmware, "mark"))
    profile = boardprofiles.load("stm32l4a6zg")
    monkeypatch.delenv(cyclemodel.STATS_ENV, raising=False)
    plain = cyclemodel.plugin_args(profile, image, tmp_path / "out")
    assert "art_ilines=128" in plain and not any(a.startswith("stats=") for a in plain)
    monkeypatch.setenv(cyclemodel.STATS_ENV, str(tmp_path / "stats"))
    assert cyclemodel.plugin_args(profile, image, tmp_path / "out") == [*plain, f"stats={tmp_path / 'stats'}"]
    monkeypatch.setenv(cyclemodel.STATS_ENV, str(tmp_path / "a,b"))
    with pytest.raises(SetupError, match=r"^a cycle model argument cannot contain a comma: 'stats="):
        cyclemodel.plugin_args(profile, image, tmp_path / "out")
