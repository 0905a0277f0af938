"""wolfSSL's Cortex-M assembly profiles (src/tlsbench/libraries/wolfssl.py,
core_profiles): a core that cannot build one is refused in one line before
anything is built, and a profile compiles the SP file and the small variant
its record says. The compile check builds one object of the board's wolfSSL
library (its CMake folder, the image validate-model runs), not an image."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from conftest import needs_tools, tlsbench_cmd

from tlsbench.errors import PlanError
from tlsbench.targets import build
from tlsbench.targets import target as targets


def test_a_profile_is_refused_on_a_core_that_cannot_build_it() -> None:
    with pytest.raises(PlanError) as e:
        targets.parse("qemu:mps2-an386", profiles="wolfssl=sp-thumb-small")
    assert str(e.value) == (
        "--profile wolfssl=sp-thumb-small on qemu:mps2-an386 (cortex-m4): wolfSSL's ARMv6-M Thumb SP assembly,"
        " small (sp_armthumb.c) builds for cortex-m0/cortex-m0plus only; on cortex-m4: sp-asm, sp-asm-small,"
        " sp-small-asm or a C profile")
    with pytest.raises(PlanError) as e:
        targets.parse("qemu:microbit-roomy", profiles="wolfssl=sp-small-asm")
    assert str(e.value) == (
        "--profile wolfssl=sp-small-asm on qemu:microbit-roomy (cortex-m0): wolfSSL's Thumb-2 SP assembly, small"
        " (sp_cortexm.c) builds for cortex-m3/cortex-m4/cortex-m7/cortex-m33 only; on cortex-m0: sp-thumb-small or"
        " a C profile")


def test_tlsbench_build_refuses_it_in_one_line_before_building(tmp_path: Path) -> None:
    done = subprocess.run([*tlsbench_cmd(), "build", "--target", "qemu:mps2-an505", "--profile",
                           "wolfssl=sp-thumb-small", "--libraries", "wolfssl"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "tlsbench: error: --profile wolfssl=sp-thumb-small on qemu:mps2-an505 (cortex-m33): wolfSSL's ARMv6-M"
        " Thumb SP assembly, small (sp_armthumb.c) builds for cortex-m0/cortex-m0plus only; on cortex-m33: sp-asm,"
        " sp-asm-small, sp-small-asm or a C profile\n")


def test_the_cores_that_can_build_a_profile_take_it() -> None:
    assert targets.parse("qemu:microbit-roomy", profiles="wolfssl=sp-thumb-small").profiles == (
        ("wolfssl", "sp-thumb-small"),)
    # ARMv8-M mainline has UMAAL: the M33 takes the Thumb-2 profiles (the published H563 build: sp-small-asm)
    for prof in ("sp-small-asm", "sp-asm", "sp-asm-small"):
        assert targets.parse("qemu:mps2-an505", profiles=f"wolfssl={prof}").profiles == (("wolfssl", prof),)
    # profiles without a core list (the C ones) build anywhere
    assert targets.parse("qemu:microbit-roomy", profiles="wolfssl=small-stack").profiles == (
        ("wolfssl", "small-stack"),)


def _built_object(target: targets.Target, source: str) -> Path:
    """Builds one object of the target's wolfssl@5.7 library (the library validate-model runs) and returns it."""
    with build.building(target.cmake_dir()):
        folder = build.configure_firmware(target, ["wolfssl@5.7"])
        listing = subprocess.run(["ninja", "-C", str(folder), "-t", "targets", "all"], check=True, text=True,
                                 capture_output=True, timeout=120).stdout
        objects = [line.split(":")[0] for line in listing.splitlines()
                   if line.split(":")[0].endswith(f"/{source}.obj") and "tb_wolfssl-5.7.dir" in line]
        assert len(objects) == 1, objects  # library.cmake lists the file for this profile
        subprocess.run(["ninja", "-C", str(folder), objects[0]], check=True, capture_output=True, timeout=600)
    return folder / objects[0]


def _symbols(obj: Path) -> dict[str, str]:
    """The object's defined symbols -> nm's type letter."""
    nm = subprocess.run(["arm-none-eabi-nm", "--defined-only", str(obj)], check=True, text=True,
                        capture_output=True, timeout=60).stdout
    return {parts[2]: parts[1] for parts in (line.split() for line in nm.splitlines()) if len(parts) == 3}


def _mnemonics(obj: Path) -> Counter[str]:
    listing = subprocess.run(["arm-none-eabi-objdump", "-d", "--no-show-raw-insn", str(obj)], check=True, text=True,
                             capture_output=True, timeout=120).stdout
    return Counter(m.group(1) for m in re.finditer(r"^\s+[0-9a-f]+:\s+(\S+)", listing, re.M))


@needs_tools("arm-none-eabi-gcc", "arm-none-eabi-nm", "cmake", "ninja")
def test_sp_thumb_small_compiles_sp_armthumb_c_in_its_small_form() -> None:
    obj = _built_object(targets.parse("qemu:microbit-roomy", profiles="wolfssl=sp-thumb-small"), "sp_armthumb.c")
    symbols = _symbols(obj)
    # the file is empty without WOLFSSL_SP_ARM_THUMB_ASM: its RSA-2048 and P-256 entry points are there
    assert {s: symbols.get(s) for s in ("sp_RsaPrivate_2048", "sp_ecc_mulmod_256", "sp_ecc_sign_256")} == {
        "sp_RsaPrivate_2048": "T", "sp_ecc_mulmod_256": "T", "sp_ecc_sign_256": "T"}
    # WOLFSSL_SP_SMALL: looped 64- and 32-word multiplies (RSA-2048 and its CRT halves), none of the 8- and
    # 16-word Karatsuba pieces the full build composes them of
    assert (symbols.get("sp_2048_mul_64"), symbols.get("sp_2048_mul_32")) == ("t", "t")
    assert [s for s in ("sp_2048_mul_8", "sp_2048_mul_16") if s in symbols] == []


@needs_tools("arm-none-eabi-gcc", "arm-none-eabi-nm", "arm-none-eabi-objdump", "cmake", "ninja")
def test_sp_small_asm_on_the_m33_is_the_small_umaal_code() -> None:
    obj = _built_object(targets.parse("qemu:mps2-an505", profiles="wolfssl=sp-small-asm"), "sp_cortexm.c")
    symbols = _symbols(obj)
    assert (symbols.get("sp_2048_mul_64"), symbols.get("sp_2048_mul_32")) == ("t", "t")
    assert [s for s in ("sp_2048_mul_8", "sp_2048_mul_16") if s in symbols] == []
    # ARMv8-M mainline with the DSP extension: the UMAAL variant (WOLFSSL_SP_NO_UMAAL would have none), the
    # inline asm's own count in wolfSSL 5.7.2's small sp_cortexm.c
    assert _mnemonics(obj)["umaal"] == 128
