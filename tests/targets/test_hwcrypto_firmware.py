"""The stand-in is excluded end to end, on the "hw" images themselves.

wolfSSL: its SHA-1 under a board profile that declares the HASH processor
counts the driver only. The same image is run three ways on a one-block and
a two-block message: modelled (stand-in excluded), modelled with the
plugin's stand-in hook left out (stand-in counted), and on a profile that
declares no accelerator (wolfCrypt's software, through the same callback).
What the hook removes is exactly wolfCrypt's own software work, block for
block.

Mbed TLS (MBEDTLS_*_ALT, adapters/mbedtls/hw.c, hw_gcm.c): SHA-1, AES-128-CBC
+ HMAC-SHA1 and AES-128-GCM (its block cipher on the F417's CRYP ECB; the
F439's GCM mode through MBEDTLS_GCM_ALT) give the same
counts with the stand-in's work done twice (the driver's test switch,
TB_HW_TEST_STANDIN_TWICE in the plugin's accel= mask), the switch doing
more work where the hook is left out; the driver's register traffic is
counted; each doorbell adds the profile's cycles.

The stm32f439zi profile (RM0090's own F43x figures: SHA-256 50 cycles a
block, GCM init 24, header 10, payload and tag 14) on the same images:
each figure raised by 100 cycles adds 100 per doorbell that charges it,
instructions unchanged; both libraries' GCM rings the GCM mode's init,
header and payload doorbells alike. wolfSSL's GCM on a CRYP without a GCM
mode (the F417's) hands its counter blocks to the ECB callback.

Both images are built in one folder (one configuration). Tiny inputs: a
few seconds of QEMU each once the images are built."""

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

HW = targets.parse("qemu:mps2-an386", profiles="wolfssl=hw,mbedtls=hw")
HW_LIBRARIES = ["wolfssl", "mbedtls"]
# the plugin's arguments, edited by a launcher: the stand-in counted (no standin= hook), its work done
# twice (the drivers' test switch, bit 31 of accel=; hwcrypto.h TB_HW_TEST_STANDIN_TWICE)
NO_STANDIN = "[a for a in args if not a.startswith('standin=')]"
TWICE = "[f\"accel={int(a[6:], 16) | 1 << 31:#x}\" if a.startswith('accel=') else a for a in args]"


def edited_launcher(target: targets.Target, library: str, path: Path, edit: str) -> Path:
    """The image's bridge with its plugin arguments passed through edit (an expression over args)."""
    path.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from tlsbench.targets import bridge, hwcrypto\n"
        "real = hwcrypto.plugin_args\n"
        f"hwcrypto.plugin_args = lambda p, s: (lambda args: {edit})(real(p, s))\n"
        f"sys.exit(bridge.main({target.bridge_args(library)!r}))\n")
    path.chmod(0o755)
    return path


@pytest.fixture(scope="module")
def hw_target(firmware_images) -> targets.Target:
    cyclemodel.build_plugin()
    return firmware_images(HW, HW_LIBRARIES)


@pytest.fixture(scope="module")
def launchers(hw_target: targets.Target, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """wolfSSL's own launcher, and one whose plugin is given no stand-in hook."""
    own = targets.write_launcher(hw_target, "wolfssl")
    counted = edited_launcher(hw_target, "wolfssl", tmp_path_factory.mktemp("hw") / "standin-counted", NO_STANDIN)
    return own, counted


def sha1(size: int) -> str:
    return f"bench kind=hash alg=sha1 op=hash size={size} repeats=1 warmup=0"


def cbc_hmac(size: int) -> str:
    """TLS 1.2's AES-128-CBC + HMAC-SHA1 record: the MAC (20 bytes) and the padding to 16 are encrypted too."""
    return encode_request("bench", kind="aead", alg="aes-128-cbc-hmac-sha1", op="encrypt", warmup=0, repeats=1,
                          min_ns=0, size=size, key=bytes(range(36)), nonce=CBC_IV, aad=TLS_AAD)


def gcm(size: int) -> str:
    return encode_request("bench", kind="aead", alg="aes-128-gcm", op="encrypt", warmup=0, repeats=1, min_ns=0,
                          size=size, key=bytes(range(16)), nonce=bytes(12), aad=TLS_AAD)


def counts(launcher: Path, profile: boardprofiles.Profile, sizes: tuple[int, ...],
           request: Callable[[int], str] = sha1) -> list[tuple[int, int]]:
    """The firmware's (instructions, model cycles) of one operation per size, on the cycle model of this profile."""
    return run(launcher, profile, [request(n) for n in sizes])


def run(launcher: Path, profile: boardprofiles.Profile, reqs: list[str]) -> list[tuple[int, int]]:
    """The firmware's (instructions, model cycles) of each request's operation, on the cycle model of this profile."""
    saved = {k: os.environ.pop(k, None) for k in (cyclemodel.MODEL_ENV, cyclemodel.MODEL_SHA_ENV)}
    try:
        os.environ.update(cyclemodel.run_env(profile))
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


# ---- Mbed TLS (MBEDTLS_*_ALT) ----

MBEDTLS_CASES = [sha1(64), sha1(128), cbc_hmac(64), cbc_hmac(128), gcm(64), gcm(128)]


@pytest.fixture(scope="module")
def mbedtls_launchers(hw_target: targets.Target, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("mbedtls-hw")
    return {
        "own": targets.write_launcher(hw_target, "mbedtls"),
        "twice": edited_launcher(hw_target, "mbedtls", folder / "twice", TWICE),
        "counted": edited_launcher(hw_target, "mbedtls", folder / "counted", NO_STANDIN),
        "counted twice": edited_launcher(hw_target, "mbedtls", folder / "counted-twice",
                                         f"(lambda args: {TWICE})({NO_STANDIN})"),
    }


@pytest.fixture(scope="module")
def mbedtls_f417(mbedtls_launchers: dict[str, Path]) -> list[tuple[int, int]]:
    """The image's own counts of MBEDTLS_CASES on the stm32f417 profile (SHA-1 on HASH, AES-128 ECB (GCM's
    blocks) and CBC on CRYP), shared by the tests below."""
    return run(mbedtls_launchers["own"], boardprofiles.load("stm32f417"), MBEDTLS_CASES)


def test_mbedtls_hw_counts_the_same_with_the_standins_work_doubled(mbedtls_launchers: dict[str, Path],
                                                                  mbedtls_f417: list[tuple[int, int]]) -> None:
    f417, own = boardprofiles.load("stm32f417"), mbedtls_f417
    # the stand-in's work done twice: not one instruction or model cycle more, in any case
    assert run(mbedtls_launchers["twice"], f417, MBEDTLS_CASES) == own
    assert run(mbedtls_launchers["own"], f417, MBEDTLS_CASES) == own  # exact, repeatable
    # the switch does double it, and the hook is what leaves it out: without the hook, every case counts
    # the stand-in once more when doubled (the test can fail)
    counted = [i for i, _ in run(mbedtls_launchers["counted"], f417, MBEDTLS_CASES)]
    counted_twice = [i for i, _ in run(mbedtls_launchers["counted twice"], f417, MBEDTLS_CASES)]
    assert all(ct > c > o for ct, c, (o, _) in zip(counted_twice, counted, own, strict=True)), (
        counted_twice, counted, own)


def test_mbedtls_hw_counts_the_drivers_register_traffic(mbedtls_launchers: dict[str, Path],
                                                        mbedtls_f417: list[tuple[int, int]]) -> None:
    own = mbedtls_launchers["own"]
    hw = [i for i, _ in mbedtls_f417]
    software = [i for i, _ in run(own, boardprofiles.load("stm32f405"), MBEDTLS_CASES)]  # no CRYP, no HASH
    # one more SHA-1 block: at least its 16 DIN writes, the doorbell and the status poll, counted; far
    # fewer than a block of Mbed TLS's software SHA-1
    block = hw[1] - hw[0]
    assert 16 + 2 <= block < (software[1] - software[0]) // 4, (hw, software)
    # every accelerated case is cheaper than the same image's software, and grows with its size
    for i in range(0, len(MBEDTLS_CASES), 2):
        assert hw[i] < hw[i + 1] and hw[i] < software[i] and hw[i + 1] < software[i + 1], (i, hw, software)


def test_mbedtls_hw_charges_the_profiles_cycles_at_each_doorbell(mbedtls_launchers: dict[str, Path],
                                                                 mbedtls_f417: list[tuple[int, int]],
                                                                 tmp_path: Path) -> None:
    own, shipped = mbedtls_launchers["own"], mbedtls_f417
    shipped_text = (boardprofiles.BOARDS_DIR / "stm32f417.toml").read_text()
    slower_hash, slower_cryp = tmp_path / "f417-slower-hash.toml", tmp_path / "f417-slower-cryp.toml"
    slower_hash.write_text(shipped_text.replace("cycles_per_block = 66", "cycles_per_block = 166"))
    slower_cryp.write_text(shipped_text.replace("cycles_per_block = 14", "cycles_per_block = 114"))
    hash_100 = run(own, boardprofiles.parse(slower_hash), MBEDTLS_CASES)
    cryp_100 = run(own, boardprofiles.parse(slower_cryp), MBEDTLS_CASES)
    # the same driver code, instruction for instruction
    assert [i for i, _ in hash_100] == [i for i, _ in cryp_100] == [i for i, _ in shipped]
    extra_hash = [(c - s) // 100 for (_, c), (_, s) in zip(hash_100, shipped, strict=True)]
    extra_cryp = [(c - s) // 100 for (_, c), (_, s) in zip(cryp_100, shipped, strict=True)]
    assert [(c - s) % 100 for (_, c), (_, s) in zip(hash_100 + cryp_100, shipped * 2, strict=True)] == [0] * 12
    # SHA-1 of 64 and 128 bytes: the data blocks and the final's padding block (1 + 1, 2 + 1), no AES
    assert (extra_hash[:2], extra_cryp[:2]) == ([2, 3], [0, 0])
    # the TLS record (64 + 20 -> 96 bytes: 6 AES blocks; 128 + 20 -> 160: 10), as wolfSSL's driver
    assert extra_cryp[2:4] == [6, 10]
    # GCM: Mbed TLS's block cipher on the CRYP, GHASH in software, no HASH: the counter blocks of the data
    # (4, 8) and the one that masks the tag
    assert (extra_cryp[4:], extra_hash[4:]) == ([5, 9], [0, 0])


def test_mbedtls_hw_sha256_on_a_users_hash_that_has_it(mbedtls_launchers: dict[str, Path], tmp_path: Path) -> None:
    # no shipped profile declares SHA-256 (the F417's and the F217's HASH have none): a user's does, with a
    # set-up cost, on the F405 (no other accelerator)
    def profile(cycles: int, setup: int = 7) -> boardprofiles.Profile:
        path = tmp_path / f"sha256-{cycles}-{setup}.toml"
        path.write_text((boardprofiles.BOARDS_DIR / "stm32f405.toml").read_text() + f"""
[accelerators.sha256]
peripheral = "HASH"
cycles_per_block = {cycles}
setup_cycles = {setup}
data_movement = "cpu"
source = "user"
""")
        return boardprofiles.parse(path)

    cases = [f"bench kind=hash alg=sha256 op=hash size={n} repeats=1 warmup=0" for n in (64, 128)]
    own = run(mbedtls_launchers["own"], profile(50), cases)
    assert run(mbedtls_launchers["twice"], profile(50), cases) == own
    slower = run(mbedtls_launchers["own"], profile(150), cases)
    assert [i for i, _ in slower] == [i for i, _ in own]
    # 100 more per doorbell: the data blocks and the final's padding block (1 + 1, 2 + 1)
    assert [c - s for (_, c), (_, s) in zip(slower, own, strict=True)] == [2 * 100, 3 * 100]
    # the set-up's cycles once per digest (the final's DCAL)
    longer_setup = run(mbedtls_launchers["own"], profile(50, setup=107), cases)
    assert [(i, c - s) for (i, c), (_, s) in zip(longer_setup, own, strict=True)] == [(i, 100) for i, _ in own]
    software = run(mbedtls_launchers["own"], boardprofiles.load("stm32f405"), cases)
    assert all(h < s for (h, _), (s, _) in zip(own, software, strict=True)), (own, software)


# ---- the STM32F439's own figures: SHA-256 on HASH, AES-128-GCM on CRYP's GCM mode (RM0090) ----

def f439_with(tmp_path: Path, edits: dict[str, str]) -> boardprofiles.Profile:
    """The stm32f439zi profile with some of its figures replaced (old text -> new)."""
    text = (boardprofiles.BOARDS_DIR / "stm32f439zi.toml").read_text()
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / f"f439-{len(list(tmp_path.iterdir()))}.toml"
    path.write_text(text)
    return boardprofiles.parse(path)


def sha256(size: int) -> str:
    return f"bench kind=hash alg=sha256 op=hash size={size} repeats=1 warmup=0"


F439_CASES = [sha256(64), sha256(128), gcm(64), gcm(128)]
# each figure 100 cycles more: SHA-256's block, GCM's init (set-up), header and payload/tag blocks
SLOWER = {"sha256": {"cycles_per_block = 50": "cycles_per_block = 150"},
          "init": {"setup_cycles = 24": "setup_cycles = 124"},
          "header": {"header_cycles_per_block = 10": "header_cycles_per_block = 110"},
          "payload": {"cycles_per_block = 14": "cycles_per_block = 114"}}


def extra_doorbells(launcher: Path, tmp_path: Path) -> dict[str, list[int]]:
    """Per figure raised by 100: how many times the F439_CASES ring it (the instructions must not move)."""
    shipped = run(launcher, boardprofiles.load("stm32f439zi"), F439_CASES)
    out = {}
    for name, edits in SLOWER.items():
        changed = run(launcher, f439_with(tmp_path, edits), F439_CASES)
        assert [i for i, _ in changed] == [i for i, _ in shipped], name
        diffs = [c - s for (_, c), (_, s) in zip(changed, shipped, strict=True)]
        assert all(d % 100 == 0 for d in diffs), (name, diffs)
        out[name] = [d // 100 for d in diffs]
    return out


def test_wolfssl_hw_on_the_f439_charges_sha256_and_gcms_own_phases(launchers: tuple[Path, Path],
                                                                   tmp_path: Path) -> None:
    own, counted = launchers
    f439 = boardprofiles.load("stm32f439zi")
    hw = run(own, f439, F439_CASES)
    assert run(own, f439, F439_CASES) == hw  # exact, repeatable
    # the stand-in (wolfCrypt's software SHA-256 and GCM) is what the hook leaves out
    with_standin = run(counted, f439, F439_CASES)
    assert all(w > h for (w, _), (h, _) in zip(with_standin, hw, strict=True)), (with_standin, hw)
    # the F405 declares no accelerator: the same image runs wolfCrypt's software through the same callback
    software = run(own, boardprofiles.load("stm32f405"), F439_CASES)
    assert all(h < s for (h, _), (s, _) in zip(hw, software, strict=True)), (hw, software)
    # SHA-256: the data blocks and the final's padding block (1 + 1, 2 + 1); GCM (13 bytes of TLS AAD:
    # one header block): its init once, the header block, the data blocks (4, 8) and the tag's block
    assert extra_doorbells(own, tmp_path) == {"sha256": [2, 3, 0, 0], "init": [0, 0, 1, 1],
                                              "header": [0, 0, 1, 1], "payload": [0, 0, 5, 9]}


def test_wolfssl_hw_gcm_on_a_cryp_without_gcm_hands_its_counter_blocks_to_the_ecb(
        launchers: tuple[Path, Path], tmp_path: Path) -> None:
    own, counted = launchers
    cases = [gcm(64), gcm(128)]
    f417 = boardprofiles.load("stm32f417")  # CRYP ECB/CBC/CTR, no GCM mode
    hw = run(own, f417, cases)
    assert all(w > h for (w, _), (h, _) in zip(run(counted, f417, cases), hw, strict=True))  # stand-in left out
    software = run(own, boardprofiles.load("stm32f405"), cases)
    assert all(h < s for (h, _), (s, _) in zip(hw, software, strict=True)), (hw, software)
    slower = tmp_path / "f417-slower-cryp.toml"
    slower.write_text((boardprofiles.BOARDS_DIR / "stm32f417.toml").read_text().replace(
        "cycles_per_block = 14", "cycles_per_block = 114"))
    changed = run(own, boardprofiles.parse(slower), cases)
    assert [i for i, _ in changed] == [i for i, _ in hw]
    # wolfCrypt's GCM hands the data's counter blocks (4, 8) to ECB in one call; the tag's block is its
    # own software AES (the callback interface does not reach it), so not charged
    assert [c - h for (_, c), (_, h) in zip(changed, hw, strict=True)] == [4 * 100, 8 * 100]


def test_mbedtls_hw_on_the_f439_runs_sha256_on_hash_and_gcm_on_the_cryps_gcm_mode(
        mbedtls_launchers: dict[str, Path], mbedtls_f417: list[tuple[int, int]], tmp_path: Path) -> None:
    f439 = boardprofiles.load("stm32f439zi")
    own = run(mbedtls_launchers["own"], f439, F439_CASES)
    assert run(mbedtls_launchers["twice"], f439, F439_CASES) == own  # the stand-in's work doubled: no change
    assert run(mbedtls_launchers["own"], f439, F439_CASES) == own  # exact, repeatable
    # the stand-in (Mbed TLS's software GCM, its AES, GHASH and tables) is what the hook leaves out, and
    # the switch does double it there
    counted = [i for i, _ in run(mbedtls_launchers["counted"], f439, F439_CASES)]
    counted_twice = [i for i, _ in run(mbedtls_launchers["counted twice"], f439, F439_CASES)]
    assert all(ct > c > o for ct, c, (o, _) in zip(counted_twice, counted, own, strict=True)), (
        counted_twice, counted, own)
    software = run(mbedtls_launchers["own"], boardprofiles.load("stm32f405"), F439_CASES)
    assert all(h < s for (h, _), (s, _) in zip(own, software, strict=True)), (own, software)
    # MBEDTLS_GCM_ALT on the GCM mode (13 bytes of TLS AAD: one header block): its init once, the header
    # block, the data blocks (4, 8) and the block of lengths that returns the tag, as wolfSSL's driver
    assert extra_doorbells(mbedtls_launchers["own"], tmp_path) == {
        "sha256": [2, 3, 0, 0], "init": [0, 0, 1, 1], "header": [0, 0, 1, 1], "payload": [0, 0, 5, 9]}
    # no GHASH in the driver: one more 64 bytes of payload costs the driver a quarter of what the F417's
    # ECB route (Mbed TLS's GHASH in software, counted) adds
    gcm_mode, ecb_route = own[3][0] - own[2][0], mbedtls_f417[5][0] - mbedtls_f417[4][0]
    assert 4 * gcm_mode < ecb_route, (gcm_mode, ecb_route)
