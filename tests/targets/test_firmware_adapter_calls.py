"""The firmware builds of the adapters make the same adapter calls as the host's.

The same composite (core/composite.c) runs on the board: one run() of the CBC+HMAC record
is one HMAC and one AES-CBC call in Mbed TLS and wolfSSL alike, with the same bytes. Every
library's timed call is the core's table dispatch (tb/family.h), the same instructions in each.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from conftest import needs_tools

from tlsbench.families.primitive.calls import CallCounts, count_calls
from tlsbench.families.primitive.vectors import cbc_hmac_seal
from tlsbench.targets import build
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "arm-none-eabi-objdump")

ALG = "aes-128-cbc-hmac-sha1"
KEY, IV, AAD, MSG = bytes(range(1, 37)), bytes(16), bytes(range(13)), bytes(range(200))


@pytest.mark.parametrize("op", ["encrypt", "decrypt"])
def test_firmware_cbc_hmac_makes_the_same_calls_in_both_libraries(firmware: targets.Target, op: str) -> None:
    record = cbc_hmac_seal(ALG, KEY, IV, AAD, MSG)
    fields = {"key": KEY, "nonce": IV, "aad": AAD, "msg": MSG if op == "encrypt" else record}
    counts = {lib: count_calls(targets.write_launcher(firmware, lib), "aead", ALG, op, fields, timeout=120)
              for lib in build.FIRMWARE_LIBRARIES}
    expected = CallCounts(adapter_run=0, cipher_run=1, cipher_bytes=len(record), mac_run=1,
                          mac_bytes=len(AAD) + len(MSG), total=2)
    assert counts == {lib: expected for lib in build.FIRMWARE_LIBRARIES}


def test_every_firmware_librarys_timed_call_is_two_loads_and_a_jump(firmware: targets.Target) -> None:
    """adapter_run, inside every timed batch, reaches the family's run through the state's
    table: any dispatch of an adapter's own there would add to every instruction count."""
    def mnemonics(lib: str) -> list[str]:
        listing = subprocess.run(["arm-none-eabi-objdump", "-d", "--no-show-raw-insn", "--disassemble=adapter_run",
                                  str(firmware.firmware_path(lib))], check=True, text=True, capture_output=True,
                                 timeout=60).stdout
        return re.findall(r"^\s+[0-9a-f]+:\s+(\S+)", listing, re.MULTILINE)

    assert {lib: mnemonics(lib) for lib in build.FIRMWARE_LIBRARIES} == {
        lib: ["ldr", "ldr", "bx"] for lib in build.FIRMWARE_LIBRARIES}
