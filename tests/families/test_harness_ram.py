"""The harness's own RAM, read from link maps: the full image of
qemu:netduinoplus2 carries what its board.cmake budgets, the one-side image
what agent/CMakeLists.txt sets for it, and every byte the one-side image
saves goes to the heap."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools

from tlsbench import paths
from tlsbench.families.size import harness as harness_ram
from tlsbench.targets import build
from tlsbench.targets import target as targets

pytestmark = [needs_tools("arm-none-eabi-gcc"), builds_in_set_up]


@pytest.fixture(scope="module")
def maps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("checkout")
    real = paths.root()
    for name in ("agent", "third_party", "libraries.lock.toml"):
        os.symlink(real / name, root / name)
    saved = os.environ.get("TLSBENCH_ROOT")
    os.environ["TLSBENCH_ROOT"] = str(root)
    try:
        out = {}
        for name, one_side in (("full", False), ("one-side", True)):
            target = dataclasses.replace(targets.parse("qemu:netduinoplus2"), one_side=one_side)
            build.build_firmware(target, [])  # the selftest image: the harness alone
            out[name] = target.map_path("selftest")
        return out
    finally:
        if saved is None:
            os.environ.pop("TLSBENCH_ROOT", None)
        else:
            os.environ["TLSBENCH_ROOT"] = saved


def test_the_full_image_carries_the_board_budget(maps) -> None:
    r = harness_ram.measure(maps["full"])
    assert r.buffers == {"request": 8192, "bytes_pool": 4096, "line": 9216, "stacks": 3 * 16384}
    assert (r.main_stack, r.handler_stack, r.link_reserve) == (8192, 1024, 8192)
    assert r.core_flash > 10_000


def test_the_one_side_image_gives_what_it_saves_to_the_heap(maps) -> None:
    full, lean = harness_ram.measure(maps["full"]), harness_ram.measure(maps["one-side"])
    assert lean.buffers == {"request": 4096, "bytes_pool": 2048, "line": 3072, "stacks": 16384}
    assert (lean.main_stack, lean.link_reserve) == (full.main_stack, 0)
    saved = sum(full.buffers.values()) - sum(lean.buffers.values())
    assert saved == 44 * 1024  # 32 KiB of stacks, 4 + 2 KiB of request, 6 KiB of record line
    # the rest of static RAM is the same code's, but .bss and .data each end on an 8-byte boundary
    assert saved <= lean.heap - full.heap <= saved + 16
