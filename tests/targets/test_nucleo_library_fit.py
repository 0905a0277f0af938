"""The Nucleo-F103RB image (128 KiB flash, 20 KiB RAM) with Mbed TLS
(small) and wolfSSL (small-stack): built by ``tlsbench build`` for the
serial target, neither fits, and that is a result with the linker's bytes
("does not fit ... FLASH short by N bytes"), not a failed build. The other
boards' figures are in agent/platform/BOARDS.md, from the same command."""

from __future__ import annotations

import re

from conftest import builds_in_set_up, needs_tools

from tlsbench.targets import build
from tlsbench.targets import target as targets

pytestmark = [needs_tools("arm-none-eabi-gcc", "cmake"), builds_in_set_up]


def test_libraries_that_do_not_fit_the_f103_are_a_result_with_their_bytes() -> None:
    t = targets.parse("serial:/dev/ttyACM0", board="nucleo-f103rb", profiles="mbedtls=small,wolfssl=small-stack")
    built = build.build_firmware(t, ["mbedtls", "wolfssl"], jobs=2)
    assert built == []  # neither fits: no image, and no exception
    assert t.firmware_path("selftest").exists()  # the harness alone does
    for lib in ("mbedtls", "wolfssl"):
        text = (t.cmake_dir() / f"tlsbench-agent-{lib}.does-not-fit").read_text()
        assert re.fullmatch(r"does not fit nucleo-f103rb: FLASH short by [\d,]+ bytes(, RAM short by [\d,]+ bytes)?"
                            r"(, less than 1 KiB of RAM left for the heap)?", text), text
