"""The Nucleo ports (agent/platform/nucleo-f103rb, -l073rz, -f746zg): each
real-board image builds with its counter code (DWT CYCCNT or SysTick) and
fits the board's memory; the same layout, built for the closest emulated
machine (netduino2 Cortex-M3, micro:bit Cortex-M0 with 20 KiB of RAM, MPS2
AN500 Cortex-M7), starts, answers through the board's UART path where QEMU
has it (the F103's USART2), measures a loop of known length exactly and
accounts its heap as its linker script says; what does not fit the 20 KiB
boards is refused with the bytes. The SysTick wrap arithmetic is checked on
the host on every interleaving around a wrap. Nothing here ran on a board.
Selftest images only (seconds each)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools

from tlsbench.targets import target as targets

AGENT = Path(__file__).resolve().parents[2] / "agent"

# board -> (TB_CPU, flash bytes, RAM bytes, the counter code it must link)
REAL = {
    "nucleo-f446re": ("cortex-m4", 512 << 10, 128 << 10, "tb_dwt_count"),
    "nucleo-f103rb": ("cortex-m3", 128 << 10, 20 << 10, "tb_dwt_count"),
    "nucleo-l073rz": ("cortex-m0", 192 << 10, 20 << 10, "tb_systick_count"),
    "nucleo-f746zg": ("cortex-m7", 1 << 20, 320 << 10, "tb_dwt_count"),
}
EMULATED = ["nucleo-f103rb-on-netduino2", "nucleo-l073rz-on-microbit", "nucleo-f746zg-on-mps2-an500"]


def _build(out: Path, cpu: str, platform: str, machine: str) -> Path:
    subprocess.run(["cmake", "-S", str(AGENT), "-B", str(out), "-G", "Ninja",
                    f"-DCMAKE_TOOLCHAIN_FILE={AGENT / 'cmake' / 'arm-none-eabi.cmake'}", f"-DTB_CPU={cpu}",
                    f"-DTB_PLATFORM={platform}", f"-DTB_MACHINE={machine}", "-DTB_LIBRARIES=",
                    "-DCMAKE_BUILD_TYPE=MinSizeRel"], check=True, capture_output=True)
    subprocess.run(["ninja", "-C", str(out), "tlsbench-agent-selftest"], check=True, capture_output=True)
    return out / "tlsbench-agent-selftest"


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for name in [*REAL, *EMULATED]:
        b = targets.BOARDS[name]
        out[name] = _build(tmp_path_factory.mktemp(name), b.cpu, b.platform, name)
    return out


def _symbols(image: Path) -> dict[str, int]:
    text = subprocess.run(["arm-none-eabi-nm", str(image)], check=True, capture_output=True, text=True).stdout
    return {p[2]: int(p[0], 16) for p in (line.split() for line in text.splitlines()) if len(p) == 3}


def _sections(image: Path) -> dict[str, int]:
    text = subprocess.run(["arm-none-eabi-size", "-A", str(image)], check=True, capture_output=True,
                          text=True).stdout
    return {m[0]: int(m[1]) for m in re.findall(r"^(\.\S+)\s+(\d+)", text, re.M)}


def _qemu(board: targets.Board, image: Path, requests: list[str]) -> tuple[list[str], int]:
    spec = importlib.util.spec_from_file_location("qemu_try", AGENT / "platform" / "qemu_try.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert board.machine is not None
    return mod.session(board.machine, str(image), requests, timeout=120, uart=board.uart,
                       qemu_args=board.qemu_args)


def fields(line: str) -> dict[str, str]:
    return dict(t.split("=", 1) for t in line.split(" ")[2:] if "=" in t)


pytestmark = [needs_tools("arm-none-eabi-gcc", "cmake", "ninja"), builds_in_set_up]


@pytest.mark.parametrize("board", list(REAL))
def test_the_board_image_fits_and_links_its_cycle_counter(images: dict[str, Path], board: str) -> None:
    _, flash, ram, counter = REAL[board]
    sym, sec = _symbols(images[board]), _sections(images[board])
    assert counter in sym and "tb_qemu_tim_instructions" not in sym
    assert sym["_ram_end"] - sym["_ram_start"] == ram and sym["_ram_start"] == 0x20000000
    assert sec[".text"] + sec[".data"] <= flash and sec[".stacks"] + sec[".bss"] + sec[".data"] <= ram
    assert (sym["Reset_Handler"] & ~1) >= 0x08000000  # linked for the board's flash, not an emulator's


@pytest.mark.parametrize("board", EMULATED)
def test_the_boards_layout_runs_emulated_and_measures_exactly(images: dict[str, Path], board: str) -> None:
    ns = [1, 1000, 10_000_000]
    b = targets.BOARDS[board]
    lines, rc = _qemu(b, images[board], ["hello", "limits", *(f"calibrate n={n}" for n in ns), "exit"])
    assert rc == 0
    cal = [fields(x) for x in lines if x.startswith("tb1 calibrate ")]
    assert [int(c["measured"]) - 2 * int(c["n"]) for c in cal] == [3, 3, 3]
    hello = next(x for x in lines if x.startswith("tb1 hello "))
    assert f"platform=qemu:{board}" in hello
    # the firmware's heap is what the board's linker script leaves, and RAM ends where the board's does
    sym = _symbols(images[board])
    limits = fields(next(x for x in lines if x.startswith("tb1 limits ")))
    assert int(limits["heap_arena"]) == sym["_heap_limit"] - sym["_heap_start"]
    assert sym["_ram_end"] - sym["_ram_start"] == b.ram_bytes


@pytest.mark.parametrize("board", ["nucleo-f103rb-on-netduino2", "nucleo-l073rz-on-microbit"])
def test_what_does_not_fit_20_kib_is_refused_with_its_bytes(images: dict[str, Path], board: str) -> None:
    lines, rc = _qemu(targets.BOARDS[board], images[board], [
        "compute kind=hash alg=md5 op=hash msg=" + "00" * 600,
        "bench kind=hash alg=md5 op=hash size=64 repeats=1 warmup=0", "exit"])
    ends = [x for x in lines if x.startswith("tb1 end ")]
    assert "request%20line%20too%20long" in ends[0]
    assert "heap%20arena%20full:%20100008%20B%20more%20asked" in ends[1]  # selftest md5: malloc(100000)
    assert rc == 0


SYSTICK_CHECK = r"""
#include <stdio.h>
#include "systick.h"
/* A SysTick counting down from 2^24 - 1 at one tick per cycle: at cycle t
 * VAL is MAX - t mod 2^24. Interrupts go off at t0; the ISR has counted the
 * wraps before t0; VAL is read at t1, PENDSTSET at t2, VAL at t3. The count
 * must be t3 for every such read around every wrap. */
static uint32_t val(uint64_t t) { return TB_SYSTICK_MAX - (uint32_t)(t & TB_SYSTICK_MAX); }
int main(void)
{
    unsigned long bad = 0, n = 0;
    for (uint64_t wrap = 1; wrap <= 3; wrap++) {
        uint64_t edge = wrap << TB_SYSTICK_BITS;
        for (uint64_t t0 = edge - 8; t0 <= edge + 8; t0++)
            for (uint64_t t1 = t0; t1 <= t0 + 4; t1++)
                for (uint64_t t2 = t1 + 1; t2 <= t1 + 4; t2++)
                    for (uint64_t t3 = t2 + 1; t3 <= t2 + 4; t3++) {
                        uint32_t wraps = (uint32_t)(t0 >> TB_SYSTICK_BITS);
                        int pending = (t2 >> TB_SYSTICK_BITS) > wraps;
                        n++;
                        if (tb_systick_extend(wraps, val(t1), pending, val(t3)) != t3) bad++;
                    }
    }
    printf("%lu %lu\n", n, bad);
    return 0;
}
"""


@needs_tools("cc")
def test_the_systick_count_is_right_on_every_read_around_a_wrap(tmp_path: Path) -> None:
    src = tmp_path / "check.c"
    src.write_text(SYSTICK_CHECK)
    exe = tmp_path / "check"
    subprocess.run([shutil.which("cc") or "cc", "-std=c11", "-Wall", "-Wextra", "-Werror",
                    f"-I{AGENT / 'platform' / 'cortexm'}", "-o", str(exe), str(src)], check=True)
    n, bad = map(int, subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split())
    assert (n, bad) == (3 * 17 * 5 * 4 * 4, 0)
