"""The Cortex-M boards beyond MPS2 (agent/platform/<board>): each selftest
firmware builds and fits its memory; under QEMU (netduinoplus2, microbit)
a loop of known length measures exactly, what does not fit the board is
refused with the bytes involved, and a fault ends the firmware with a
"fault" record and a non-zero exit. nucleo-f446re is a real board: built
only. Builds with cmake and ninja directly (selftest only: seconds)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools

from tlsbench.targets import target as targets

AGENT = Path(__file__).resolve().parents[2] / "agent"

pytestmark = [needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "cmake", "ninja"), builds_in_set_up]

# board -> (TB_CPU, QEMU machine or None, flash bytes, RAM bytes)
BOARDS = {
    "netduinoplus2": ("cortex-m4", "netduinoplus2", 1 << 20, 128 << 10),
    "microbit": ("cortex-m0", "microbit", 256 << 10, 16 << 10),
    "nucleo-f446re": ("cortex-m4", None, 512 << 10, 128 << 10),
    # the micro:bit's core with QEMU's flash and RAM sized up (the ARMv6-M roomy board)
    "microbit-roomy": ("cortex-m0", "microbit", 4 << 20, 4 << 20),
}
# platform directory of each board above (a sized-up machine shares its board's)
PLATFORM = {"microbit-roomy": "microbit"}


def _qemu_try():
    spec = importlib.util.spec_from_file_location("qemu_try", AGENT / "platform" / "qemu_try.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for board, (cpu, _, _, _) in BOARDS.items():
        bd = tmp_path_factory.mktemp(board)
        subprocess.run(["cmake", "-S", str(AGENT), "-B", str(bd), "-G", "Ninja",
                        f"-DCMAKE_TOOLCHAIN_FILE={AGENT / 'cmake' / 'arm-none-eabi.cmake'}", f"-DTB_CPU={cpu}",
                        f"-DTB_PLATFORM={PLATFORM.get(board, board)}", f"-DTB_MACHINE={board}", "-DTB_LIBRARIES=",
                        "-DCMAKE_BUILD_TYPE=MinSizeRel"], check=True, capture_output=True)
        subprocess.run(["ninja", "-C", str(bd), "tlsbench-agent-selftest"], check=True, capture_output=True)
        out[board] = bd / "tlsbench-agent-selftest"
    return out


def fields(line: str) -> dict[str, str]:
    return dict(t.split("=", 1) for t in line.split(" ")[2:] if "=" in t)


def run(board: str, fw: Path, requests: list[str]) -> tuple[list[str], int]:
    qemu_args = targets.BOARDS[board].qemu_args if board in targets.BOARDS else ()
    return _qemu_try().session(BOARDS[board][1], str(fw), requests, timeout=120, qemu_args=qemu_args)


@pytest.mark.parametrize("board", list(BOARDS))
def test_the_firmware_fits_the_board(firmware: dict[str, Path], board: str) -> None:
    sizes = subprocess.run(["arm-none-eabi-size", "-A", str(firmware[board])], check=True,
                           capture_output=True, text=True).stdout
    sec = {m[0]: int(m[1]) for m in re.findall(r"^(\.\S+)\s+(\d+)", sizes, re.M)}
    _, _, flash, ram = BOARDS[board]
    assert sec[".text"] + sec[".data"] <= flash
    assert sec[".stacks"] + sec[".bss"] + sec[".data"] <= ram


@pytest.mark.parametrize("board", ["netduinoplus2", "microbit", "microbit-roomy"])
def test_a_loop_of_known_length_measures_exactly(firmware: dict[str, Path], board: str) -> None:
    ns = [1, 10, 1000, 100_000, 10_000_000]
    lines, rc = run(board, firmware[board], [f"calibrate n={n}" for n in ns] + ["exit"])
    cal = [fields(x) for x in lines if x.startswith("tb1 calibrate ")]
    assert rc == 0 and len(cal) == len(ns)
    assert {int(c["measured"]) - 2 * int(c["n"]) for c in cal} == {3}
    assert all(c["empty"] == "0" for c in cal)


def test_the_microbit_says_what_does_not_fit(firmware: dict[str, Path]) -> None:
    lines, rc = run("microbit", firmware["microbit"], [
        "limits", "compute kind=hash alg=md5 op=hash msg=" + "00" * 600,
        "bench kind=hash alg=md5 op=hash size=64 repeats=1 warmup=0", "exit"])
    limits = fields(next(x for x in lines if x.startswith("tb1 limits ")))
    assert limits["line_max"] == "1023" and int(limits["heap_arena"]) > 4096
    ends = [x for x in lines if x.startswith("tb1 end ")]
    assert "request%20line%20too%20long" in ends[1]
    assert "heap%20arena%20full:%20100008%20B%20more%20asked" in ends[2]  # malloc(100000)
    assert rc == 0


@pytest.mark.parametrize("board", ["netduinoplus2", "microbit"])
def test_a_bus_fault_ends_the_firmware_with_a_fault_record(firmware: dict[str, Path], board: str) -> None:
    """selftest sha512 (firmware only) reads 0xDEAD0000."""
    lines, rc = run(board, firmware[board], ["bench kind=hash alg=sha512 op=hash size=64 repeats=1 warmup=0", "exit"])
    fault = fields(next(x for x in lines if x.startswith("tb1 fault ")))
    assert fault["what"] == "HardFault" and int(fault["pc"]) != 0 and rc == 1
    if board == "netduinoplus2":
        assert fault["bfar"] == str(0xDEAD0000)


def test_a_deep_primitive_runs_on_into_the_idle_side_stacks(firmware: dict[str, Path]) -> None:
    """netduinoplus2: sha224's 30000-byte array is deeper than one 16 KiB
    painted stack but fits the three: measured as on MPS2."""
    lines, rc = run("netduinoplus2", firmware["netduinoplus2"],
                    ["bench kind=hash alg=sha224 op=hash size=64 repeats=1 warmup=0", "exit"])
    memory = fields(next(x for x in lines if x.startswith("tb1 memory ")))
    assert memory["stack"] == "30024" and rc == 0


def test_a_stack_overflow_off_ram_ends_with_a_fault_record(firmware: dict[str, Path]) -> None:
    """microbit: the 30000-byte array runs off the bottom of RAM."""
    lines, rc = run("microbit", firmware["microbit"],
                    ["bench kind=hash alg=sha224 op=hash size=64 repeats=1 warmup=0", "exit"])
    fault = fields(next(x for x in lines if x.startswith("tb1 fault ")))
    assert fault["what"].startswith("stack%20overflow") and rc == 1


def test_every_record_up_to_the_boards_limit_keeps_its_crc(firmware: dict[str, Path]) -> None:
    """microbit (records of at most 1536 B): an error message that echoes a
    field name of k '%' characters (3 bytes each once escaped) makes records
    of 47 + 3k bytes, swept across the limit. Each line keeps its whole CRC
    trailer: a record that fits is sent whole, one that does not says so."""
    from tlsbench.engine.protocol import parse_line

    ks = range(480, 498)
    lines, rc = run("microbit", firmware["microbit"], [f"compute {'%' * k}=00" for k in ks] + ["exit"])
    ends = [parse_line(x) for x in lines if x.startswith("tb1 end ")][:len(ks)]  # then exit's
    assert len(ends) == len(ks) and rc == 0
    for k, end in zip(ks, ends, strict=True):
        if 47 + 3 * k <= 1536 - 14:
            assert end["msg"] == "unknown field " + "%" * k
        else:
            assert end["status"] == "error" and end["msg"] == "record too long"
