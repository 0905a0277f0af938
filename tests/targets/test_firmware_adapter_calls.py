"""The firmware builds of the adapters make the same adapter calls as the host's.

The same composite (core/composite.c) runs on the board: one run() of the CBC+HMAC record
is one HMAC and one AES-CBC call in Mbed TLS and wolfSSL alike, with the same bytes.
"""

from __future__ import annotations

import pytest
from conftest import needs_tools

from tlsbench.families.primitive.calls import CallCounts, count_calls
from tlsbench.families.primitive.vectors import cbc_hmac_seal
from tlsbench.targets import build
from tlsbench.targets import target as targets

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

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
