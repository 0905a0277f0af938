"""The cycle model's crypto-accelerator hooks (agent/qemu-plugin/cyclemodel.c,
charge= and standin=): what the stand-in runs is excluded from the cycles,
the caches and the instruction count, exactly, however much it runs; the
driver's register writes are counted; each doorbell call adds the
peripheral's busy cycles. A micro-kernel built here (seconds)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import needs_tools

from tlsbench.targets import cyclemodel
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "cc")

KERNEL = Path(__file__).parents[1] / "data" / "cyclemodel_hwcrypto.S"
# the F417 profile's ART: 5 wait states, 16-byte lines, 64 instruction and 8 data lines
ART = ",art_ws=5,art_fetch=16,art_ilines=64,art_dlines=8,art_prefetch=1,flash=0x0-0x2000"


@pytest.fixture(scope="module")
def plugin() -> Path:
    return cyclemodel.build_plugin()


def symbol(image: Path, name: str) -> int:
    out = subprocess.run(["arm-none-eabi-nm", str(image)], capture_output=True, text=True, check=True,
                         timeout=60).stdout
    return next(int(a, 16) for a, _t, n in (line.split() for line in out.splitlines()) if n == name)


def run(plugin: Path, tmp: Path, work: int, blocks: int, hooks: str) -> tuple[list[tuple[int, int]], list[str]]:
    """The (cycles, instructions) of the two driver calls, and the log's other lines."""
    image = tmp / f"k-{work}-{blocks}.elf"
    if not image.exists():
        subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-nostdlib", "-nostartfiles",
                        "-Wl,-Ttext=0", "-e", "reset", f"-DWORK={work}", f"-DBLOCKS={blocks}", "-o", str(image),
                        str(KERNEL)], check=True, timeout=60)
    log = tmp / f"log-{work}-{blocks}-{abs(hash(hooks))}"
    extra = hooks.replace("DOORBELL", f"{symbol(image, 'doorbell'):#x}").replace(
        "BEGIN", f"{symbol(image, 'standin_begin'):#x}").replace("END", f"{symbol(image, 'standin_end'):#x}")
    opts = f"{plugin},core=cortex-m4,mark={symbol(image, 'mark'):#x},log={log}{ART}{extra}"
    subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
                    "-semihosting-config", "enable=on,target=native", "-icount", targets.ICOUNT,
                    "-kernel", str(image), "-plugin", opts], check=True, timeout=60)
    lines = log.read_text().splitlines()
    marks = [tuple(map(int, line.split())) for line in lines if line[0].isdigit()]
    steps = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(marks, marks[1:], strict=False)]
    return steps, [line for line in lines if not line[0].isdigit() and not line.startswith("exit")]


def test_the_stand_ins_work_is_excluded_however_much_it_runs(plugin: Path, tmp_path: Path) -> None:
    hooks = ",standin=BEGIN:END"
    once, log_once = run(plugin, tmp_path, 100, 2, hooks)
    doubled, log_doubled = run(plugin, tmp_path, 200, 2, hooks)
    assert once == doubled  # cycles and instructions of both calls, cold and warm caches alike
    # what was left out grew by the extra turns: 2 calls x 100 turns x 5 instructions
    excluded = [int(log[0].split()[1]) for log in (log_once, log_doubled)]
    assert excluded[1] - excluded[0] == 2 * 100 * 5
    # without the hook the same kernels differ: the test can fail
    plain_once, _ = run(plugin, tmp_path, 100, 2, "")
    plain_doubled, _ = run(plugin, tmp_path, 200, 2, "")
    assert plain_doubled[0][1] - plain_once[0][1] == 5 * 100


def test_the_drivers_register_writes_are_counted_and_each_block_charges_the_peripheral(plugin: Path,
                                                                                       tmp_path: Path) -> None:
    hooks = ",standin=BEGIN:END"
    two, _ = run(plugin, tmp_path, 100, 2, hooks)
    four, _ = run(plugin, tmp_path, 100, 4, hooks)
    # per block: 16 stores, the doorbell's BL and BX, SUBS, BNE
    assert four[1][1] - two[1][1] == 2 * 20
    charged_two, log_two = run(plugin, tmp_path, 100, 2, hooks + ",charge=DOORBELL:66")
    charged_four, log_four = run(plugin, tmp_path, 100, 4, hooks + ",charge=DOORBELL:66")
    assert [c for c, _ in charged_two] == [c + 2 * 66 for c, _ in two]
    assert [c for c, _ in charged_four] == [c + 4 * 66 for c, _ in four]
    assert [i for _, i in charged_four] == [i for _, i in four]  # the busy time is cycles, never instructions
    doorbell = log_two[0].split()[1]
    assert log_two[0] == f"charge {doorbell} 4"  # two calls of two blocks
    assert log_four[0] == f"charge {doorbell} 8"


def test_the_plugin_refuses_a_malformed_hook(plugin: Path, tmp_path: Path) -> None:
    for bad, allowed in (("charge=0x10", "charge=0xADDR:CYCLES"), ("standin=0x10:x", "standin=0xBEGIN:0xEND")):
        proc = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-display", "none", "-monitor", "none",
                               "-kernel", "/dev/null", "-plugin", f"{plugin},core=cortex-m4,{bad}"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0
        assert f"cyclemodel: bad argument '{bad}' (allowed: {allowed})" in proc.stderr
