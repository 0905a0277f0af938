"""Firmware images are reproducible: the same sources and toolchain give the
same bytes in any checkout folder (no path in __FILE__ or debug info), so
exact counts measured from one clone hold for every clone."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools

from tlsbench import paths
from tlsbench.targets import target as targets

AGENT = Path(__file__).resolve().parents[2] / "agent"

pytestmark = [needs_tools("arm-none-eabi-gcc", "cmake", "ninja"), builds_in_set_up]


def _selftest_image(root: Path) -> bytes:
    """A checkout of agent/ at root, its selftest firmware built there."""
    shutil.copytree(AGENT, root / "agent")
    build = root / "build"
    subprocess.run(["cmake", "-S", str(root / "agent"), "-B", str(build), "-G", "Ninja",
                    f"-DCMAKE_TOOLCHAIN_FILE={root / 'agent' / 'cmake' / 'arm-none-eabi.cmake'}",
                    "-DTB_CPU=cortex-m4", "-DTB_PLATFORM=mps2", "-DTB_MACHINE=mps2-an386", "-DTB_LIBRARIES=",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, capture_output=True)  # -g: paths in debug info
    subprocess.run(["ninja", "-C", str(build), "tlsbench-agent-selftest"], check=True, capture_output=True)
    return (build / "tlsbench-agent-selftest").read_bytes()


def test_the_same_sources_in_two_folders_build_the_same_image(tmp_path: Path) -> None:
    a = _selftest_image(tmp_path / "one")
    b = _selftest_image(tmp_path / "checkout-in-a-much-longer-folder-name")
    assert a == b
    assert str(tmp_path).encode() not in a


@pytest.mark.parametrize("library", ["mbedtls", "wolfssl"])
def test_library_images_name_no_folder_of_this_machine(library: str, firmware_images) -> None:
    image = firmware_images(targets.parse("qemu:mps2-an386")).firmware_path(library)  # built here if missing
    data = image.read_bytes()
    assert str(paths.root()).encode() not in data
