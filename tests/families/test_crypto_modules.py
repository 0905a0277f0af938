"""The accelerated primitives' code, read from a linker map: the library's
modules, the "hw" driver, the stand-in and the modelled register block each
counted apart, to the byte (a map written here, no build)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench.errors import TlsbenchError
from tlsbench.families.size import crypto_modules as cm

MAP = """\
Archive member included to satisfy reference by file (symbol)

Linker script and memory map

.text           0x00000000      0x400
 .text.mbedtls_gcm_starts
                0x00000000      0x100 mbedtls/library/libmbedcrypto.a(hw_gcm.c.obj)
 .text.tb_sw_gcm_starts
                0x00000100      0x200 mbedtls/library/libmbedcrypto.a(standin_gcm.c.obj)
 .text.mbedtls_sha256
                0x00000300       0x20 mbedtls/library/libmbedcrypto.a(sha256.c.obj)
 .text.tb_hw_aes_blocks
                0x00000320       0x40 CMakeFiles/tlsbench-agent-mbedtls.dir/platform/cortexm/hwcrypto.c.obj
 *fill*         0x00000360        0x4
 .text.main     0x00000364       0x9c CMakeFiles/tlsbench-agent-mbedtls.dir/core/main.c.obj

.rodata         0x00000400      0x100
 .rodata.FSb    0x00000400      0x100 mbedtls/library/libmbedcrypto.a(standin_aes.c.obj)

.data           0x20000000        0x8
 .data.loaded   0x20000000        0x8 mbedtls/library/libmbedcrypto.a(hw.c.obj)

.bss            0x20000008      0x780
 .bss.tb_hw     0x20000008       0x68 mbedtls/library/libmbedcrypto.a(hwcrypto.c.obj)
 .bss.aes_init_done
                0x20000070        0x8 mbedtls/library/libmbedcrypto.a(aes.c.obj)
 .bss.tb_pka    0x20000078      0x70c mbedtls/library/libmbedcrypto.a(hwcrypto.c.obj)
"""


def test_each_object_lands_in_its_part_to_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "tlsbench-agent-mbedtls.map"
    path.write_text(MAP)
    parts = {name: (p.flash_bytes, p.ram_bytes) for name, p in cm.crypto_parts(path, "mbedtls").items()}
    assert parts == {
        cm.DRIVER: (0x100 + 0x40 + 0x8, 0x8),  # hw_gcm.c, hwcrypto.c's code, hw.c's initialised data
        cm.STANDIN: (0x200 + 0x100, 0),  # the stand-in's GCM and AES tables: apart
        cm.MODULES: (0x20, 0x8),  # what the _ALT build keeps of sha256.c and aes.c
        cm.REGISTERS: (0, 0x68 + 0x70c),  # tb_hw and tb_pka (the PKA's RAM): a peripheral's, not RAM
        cm.REST: (0x9c, 0),
        "alignment": (0x4, 0),
    }


def test_a_library_without_known_modules_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TlsbenchError, match="no crypto modules known for bearssl; known: mbedtls, wolfssl"):
        cm.crypto_parts(tmp_path / "x.map", "bearssl")


def test_object_parts_give_each_library_object_apart_and_the_driver_whole(tmp_path: Path) -> None:
    path = tmp_path / "tlsbench-agent-mbedtls.map"
    path.write_text(MAP)
    parts = {name: (p.flash_bytes, p.ram_bytes) for name, p in cm.object_parts(path, "mbedtls").items()}
    assert parts == {
        cm.DRIVER: (0x100 + 0x40 + 0x8, 0x8),
        cm.STANDIN: (0x200 + 0x100, 0),
        "sha256.c.obj": (0x20, 0),  # the library's modules one by one (a cipher's reader sums its own)
        "aes.c.obj": (0, 0x8),
        cm.REGISTERS: (0, 0x68 + 0x70c),
        cm.REST: (0x9c, 0),
        "alignment": (0x4, 0),
    }
