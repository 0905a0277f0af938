"""The stand-in is excluded end to end, on the wolfSSL "hw" image itself:
its SHA-1 under a board profile that declares the HASH processor counts the
driver only. The same image is run three ways on a one-block and a
two-block message: modelled (stand-in excluded), modelled with the
plugin's stand-in hook left out (stand-in counted), and on a profile that
declares no accelerator (wolfCrypt's software, through the same callback).
What the hook removes is exactly wolfCrypt's own software work, block for
block. Tiny inputs: a few seconds of QEMU once the image is built."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.families.primitive.checks import CBC_IV, TLS_AAD
from tlsbench.targets import boardprofiles, cyclemodel
from tlsbench.targets import target as targets

pytestmark = [needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "cc"), builds_in_set_up]

HW = targets.parse("qemu:mps2-an386", profiles="wolfssl=hw")


@pytest.fixture(scope="module")
def launchers(firmware_images, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The image's own launcher, and one whose plugin is given no stand-in hook."""
    cyclemodel.build_plugin(log=lambda m: None)
    target = firmware_images(HW, ["wolfssl"])
    own = targets.write_launcher(target, "wolfssl")
    counted = tmp_path_factory.mktemp("hw") / "standin-counted"
    # the same bridge, its plugin arguments without standin=: nothing is left out of the counts
    counted.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from tlsbench.targets import bridge, hwcrypto\n"
        "real = hwcrypto.plugin_args\n"
        "hwcrypto.plugin_args = lambda p, s: [a for a in real(p, s) if not a.startswith('standin=')]\n"
        f"sys.exit(bridge.main({target.bridge_args('wolfssl')!r}))\n")
    counted.chmod(0o755)
    return own, counted


def sha1(size: int) -> str:
    return f"bench kind=hash alg=sha1 op=hash size={size} repeats=1 warmup=0"


def cbc_hmac(size: int) -> str:
    """TLS 1.2's AES-128-CBC + HMAC-SHA1 record: the MAC (20 bytes) and the padding to 16 are encrypted too."""
    return encode_request("bench", kind="aead", alg="aes-128-cbc-hmac-sha1", op="encrypt", warmup=0, repeats=1,
                          min_ns=0, size=size, key=bytes(range(36)), nonce=CBC_IV, aad=TLS_AAD)


def counts(launcher: Path, profile: boardprofiles.Profile, sizes: tuple[int, ...],
           request: Callable[[int], str] = sha1) -> list[tuple[int, int]]:
    """The firmware's (instructions, model cycles) of one operation per size, on the cycle model of this profile."""
    saved = {k: os.environ.pop(k, None) for k in (cyclemodel.MODEL_ENV, cyclemodel.MODEL_SHA_ENV)}
    try:
        os.environ.update(cyclemodel.run_env(profile))
        reqs = [request(n) for n in sizes]
        out = agent.call(launcher, reqs, 120, "hw stand-in test").responses
        samples = [r.of_type("sample")[0] for r in out]
        return [(int(s["instructions"]), int(s.fields["model_cycles"])) for s in samples]
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v


def instructions(launcher: Path, profile: boardprofiles.Profile, sizes: tuple[int, ...]) -> list[int]:
    return [i for i, _ in counts(launcher, profile, sizes)]


def test_the_hw_image_counts_the_driver_and_leaves_out_exactly_wolfcrypts_work(
        launchers: tuple[Path, Path]) -> None:
    own, counted = launchers
    sizes = (64, 128)  # one and two 512-bit blocks (and the padding block of each final)
    hw = instructions(own, boardprofiles.load("stm32f417"), sizes)
    with_standin = instructions(counted, boardprofiles.load("stm32f417"), sizes)
    software = instructions(own, boardprofiles.load("stm32f405"), sizes)  # no HASH: wolfCrypt's C
    left_out = [w - h for w, h in zip(with_standin, hw, strict=True)]
    assert all(n > 0 for n in left_out)  # the hook removed instructions (the test can fail)
    assert hw == instructions(own, boardprofiles.load("stm32f417"), sizes)  # exact, repeatable
    # one more block: what the hook leaves out grows by exactly one more block of wolfCrypt's software
    assert left_out[1] - left_out[0] == software[1] - software[0]
    # and the driver's own block (16 register writes, a doorbell, a poll) is far cheaper than that
    assert hw[1] - hw[0] < (software[1] - software[0]) // 4


def test_the_hw_image_charges_the_profiles_cycles_at_each_doorbell(launchers: tuple[Path, Path],
                                                                   tmp_path: Path) -> None:
    own, _ = launchers
    shipped_text = (boardprofiles.BOARDS_DIR / "stm32f417.toml").read_text()
    slower_hash, slower_cryp = tmp_path / "f417-slower-hash.toml", tmp_path / "f417-slower-cryp.toml"
    slower_hash.write_text(shipped_text.replace("cycles_per_block = 66", "cycles_per_block = 166"))
    slower_cryp.write_text(shipped_text.replace("cycles_per_block = 14", "cycles_per_block = 114"))
    sizes = (64, 128)
    shipped = counts(own, boardprofiles.load("stm32f417"), sizes)
    changed = counts(own, boardprofiles.parse(slower_hash), sizes)
    # the same driver code, instruction for instruction
    assert [i for i, _ in changed] == [i for i, _ in shipped]
    # 100 more cycles at each doorbell: the data blocks and the final's padding block (1 + 1, 2 + 1)
    assert [c - s for (_, c), (_, s) in zip(changed, shipped, strict=True)] == [2 * 100, 3 * 100]
    # the CRYP's 14 -> 114: 100 more per AES block of the TLS record (64 + 20 -> 96 bytes: 6; 128 + 20 -> 160: 10)
    shipped = counts(own, boardprofiles.load("stm32f417"), sizes, cbc_hmac)
    changed = counts(own, boardprofiles.parse(slower_cryp), sizes, cbc_hmac)
    assert [i for i, _ in changed] == [i for i, _ in shipped]
    assert [c - s for (_, c), (_, s) in zip(changed, shipped, strict=True)] == [6 * 100, 10 * 100]
