"""wolfSSL's ECDSA P-256 on a modelled public-key accelerator (the STM32
PKA of the stm32u585ai profile, RM0456's per-operation figures), and Mbed
TLS's through MBEDTLS_ECDSA_SIGN_ALT/VERIFY_ALT, on the "hw" images of
tests/targets/test_hwcrypto_firmware.py (no image of its own).

The driver (agent/adapters/wolfssl/hw.c: operands into the PKA RAM, mode
and START, the operation's doorbell, a poll, the result read back, the DER
coding) is counted; wolfCrypt's own ECDSA, the stand-in, is left out
exactly: doing its work twice changes neither count, leaving the hook out
brings it back. Each operation's doorbell adds the profile's figure, and
only its own. The signature is a real one and a bad one is rejected. A
profile without the PKA runs wolfCrypt's software through the same
callback. A few seconds of QEMU once the images are built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from test_hwcrypto_firmware import HW, HW_LIBRARIES, NO_STANDIN, TWICE, edited_launcher, run

from tlsbench.engine import agent
from tlsbench.engine.protocol import encode_request
from tlsbench.targets import boardprofiles, cyclemodel
from tlsbench.targets import target as targets

pytestmark = [needs_tools("qemu-system-arm", "arm-none-eabi-gcc", "cc"), builds_in_set_up]

KEY = ec.derive_private_key(0x7C0FFEE5EED, ec.SECP256R1())
PRIVATE = KEY.private_numbers().private_value.to_bytes(32, "big")
MSG = b"tlsbench: ECDSA on the PKA"
SIG = KEY.sign(MSG, ec.ECDSA(hashes.SHA256()))
X962 = (serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
# RM0456 Tables 523 and 524: P-256 sign and verify on the STM32U5's PKA, in AHB (= core) cycles
SIGN_CYCLES, VERIFY_CYCLES = 2_744_000, 2_938_000


def bench(op: str, **fields: object) -> str:
    return encode_request("bench", kind="sig", alg="ecdsa-p256-sha256", op=op, warmup=0, repeats=1, min_ns=0,
                          key=PRIVATE, msg=MSG, **fields)


CASES = [bench("sign"), bench("verify", sig=SIG)]


def launchers(target: targets.Target, library: str, folder: Path) -> dict[str, Path]:
    """A "hw" image's own launcher, one without the stand-in hook, one doing the stand-in twice, and both."""
    return {"own": targets.write_launcher(target, library),
            "counted": edited_launcher(target, library, folder / "standin-counted", NO_STANDIN),
            "twice": edited_launcher(target, library, folder / "standin-twice", TWICE),
            "counted-twice": edited_launcher(target, library, folder / "standin-counted-twice",
                                             f"(lambda args: {TWICE})({NO_STANDIN})")}


@pytest.fixture(scope="module")
def hw_images(firmware_images) -> targets.Target:
    cyclemodel.build_plugin()
    return firmware_images(HW, HW_LIBRARIES)


@pytest.fixture(scope="module")
def pka_launchers(hw_images: targets.Target, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """wolfSSL's "hw" image's launchers (its ECDSA and ECDH through the crypto callbacks)."""
    return launchers(hw_images, "wolfssl", tmp_path_factory.mktemp("pka"))


@pytest.fixture(scope="module")
def mbedtls_pka_launchers(hw_images: targets.Target, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Mbed TLS's "hw" image's launchers (its ECDSA through MBEDTLS_ECDSA_SIGN_ALT/VERIFY_ALT)."""
    return launchers(hw_images, "mbedtls", tmp_path_factory.mktemp("pka-mbedtls"))


@pytest.fixture(scope="module")
def u5() -> boardprofiles.Profile:
    return boardprofiles.load("stm32u585ai")


def u5_with(tmp_path: Path, old: str, new: str) -> boardprofiles.Profile:
    path = tmp_path / f"u5-{len(list(tmp_path.iterdir()))}.toml"
    text = (boardprofiles.BOARDS_DIR / "stm32u585ai.toml").read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return boardprofiles.parse(path)


def test_the_pka_driver_is_counted_and_wolfcrypts_ecdsa_left_out(pka_launchers: dict[str, Path],
                                                                 u5: boardprofiles.Profile) -> None:
    hw = run(pka_launchers["own"], u5, CASES)
    assert run(pka_launchers["own"], u5, CASES) == hw  # exact, repeatable
    assert run(pka_launchers["twice"], u5, CASES) == hw  # the stand-in's work doubled: the same counts
    with_standin = run(pka_launchers["counted"], u5, CASES)
    # the switch does more work indeed: where the hook is left out, it shows (the test can fail)
    twice_counted = run(pka_launchers["counted-twice"], u5, CASES)
    assert all(t > w for (t, _), (w, _) in zip(twice_counted, with_standin, strict=True))
    # the F405 declares no accelerator: the same image runs wolfCrypt's ECDSA through the same callback
    software = run(pka_launchers["own"], boardprofiles.load("stm32f405"), CASES)
    for (h, _), (w, _), (s, _) in zip(hw, with_standin, software, strict=True):
        assert w - h > s // 2  # the hook leaves out wolfCrypt's ECDSA: most of what software counts
        assert 0 < h < s // 50  # the driver alone: operands, doorbell, poll, result (and sign's k and DER)
    # each operation waits the profile's figure beside its driver's own cycles
    (_, sign_cycles), (_, verify_cycles) = hw
    assert SIGN_CYCLES < sign_cycles < SIGN_CYCLES + 20 * hw[0][0]
    assert VERIFY_CYCLES < verify_cycles < VERIFY_CYCLES + 20 * hw[1][0]


def test_each_pka_operation_charges_only_its_own_figure(pka_launchers: dict[str, Path], u5: boardprofiles.Profile,
                                                        tmp_path: Path) -> None:
    shipped = run(pka_launchers["own"], u5, CASES)
    sign_more = run(pka_launchers["own"], u5_with(tmp_path, "= 2_744_000", "= 2_745_000"), CASES)
    verify_more = run(pka_launchers["own"], u5_with(tmp_path, "= 2_938_000", "= 2_938_100"), CASES)
    for changed in (sign_more, verify_more):
        assert [i for i, _ in changed] == [i for i, _ in shipped]  # the instructions never move
    assert [c - s for (_, c), (_, s) in zip(sign_more, shipped, strict=True)] == [1000, 0]
    assert [c - s for (_, c), (_, s) in zip(verify_more, shipped, strict=True)] == [0, 100]


def test_a_profile_with_the_pka_for_verify_only_signs_in_software(pka_launchers: dict[str, Path],
                                                                  u5: boardprofiles.Profile, tmp_path: Path) -> None:
    # the driver reads which operations the profile declares: sign without its table is wolfCrypt's C again
    text = (boardprofiles.BOARDS_DIR / "stm32u585ai.toml").read_text()
    start = text.index("[accelerators.ecdsa-p256-sign]")
    path = tmp_path / "u5-verify-only.toml"
    path.write_text(text[:start] + text[text.index("[accelerators.ecdsa-p256-verify]"):])
    verify_only = run(pka_launchers["own"], boardprofiles.parse(path), CASES)
    hw = run(pka_launchers["own"], u5, CASES)
    assert verify_only[1][0] == hw[1][0]  # verify: the same driver
    assert verify_only[0][0] > 50 * hw[0][0]  # sign: wolfCrypt's software, counted


def compute(launcher: Path, profile: boardprofiles.Profile, reqs: list[str]) -> list[tuple[str, str, bytes]]:
    """(status, message, output) of each compute request, on the cycle model of this profile."""
    saved = {k: os.environ.pop(k, None) for k in (cyclemodel.MODEL_ENV, cyclemodel.MODEL_SHA_ENV)}
    try:
        os.environ.update(cyclemodel.run_env(profile))
        out = agent.call(launcher, reqs, 120, "pka compute").responses
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v
    return [(r.status, r.message, bytes(r.of_type("out")[0]["data"]) if r.of_type("out") else b"") for r in out]


def test_the_pka_drivers_signature_is_real_and_a_bad_one_is_rejected(pka_launchers: dict[str, Path],
                                                                     u5: boardprofiles.Profile) -> None:
    def request(op: str, msg: bytes = MSG, **fields: object) -> str:
        return encode_request("compute", kind="sig", alg="ecdsa-p256-sha256", op=op, key=PRIVATE, msg=msg, **fields)

    signed, verified, changed = compute(pka_launchers["own"], u5,
                                        [request("sign"), request("verify", sig=SIG), request("verify", MSG + b"!",
                                                                                             sig=SIG)])
    assert signed[:2] == ("ok", "")
    KEY.public_key().verify(signed[2], MSG, ec.ECDSA(hashes.SHA256()))  # the driver's DER: raises if wrong
    assert verified == ("ok", "", b"")
    assert changed == ("reject", "signature does not verify", b"")


PEER = ec.derive_private_key(0x5EED0F9EE2, ec.SECP256R1())
PEER_PUB = PEER.public_key().public_bytes(*X962)
KEX = [encode_request("bench", kind="kex", alg="p256", op=op, warmup=0, repeats=1, min_ns=0, key=PRIVATE,
                      peer=PEER_PUB) for op in ("keygen", "derive", "exchange")]


def test_ecdh_p256_runs_its_scalar_multiplications_on_the_pka(pka_launchers: dict[str, Path],
                                                              u5: boardprofiles.Profile, tmp_path: Path) -> None:
    hw = run(pka_launchers["own"], u5, KEX)
    assert run(pka_launchers["own"], u5, KEX) == hw  # exact, repeatable
    with_standin = run(pka_launchers["counted"], u5, KEX)
    software = run(pka_launchers["own"], boardprofiles.load("stm32f405"), KEX)  # no PKA: wolfCrypt's C
    for (h, _), (w, _), (s, _) in zip(hw, with_standin, software, strict=True):
        assert w - h > s // 2 and 0 < h < s // 20
    # keygen and derive are one scalar multiplication each, exchange both (RM0456 Table 522's figure)
    slower = run(pka_launchers["own"], u5_with(tmp_path, "= 3_083_000", "= 3_084_000"), KEX)
    assert [i for i, _ in slower] == [i for i, _ in hw]
    assert [c - s for (_, c), (_, s) in zip(slower, hw, strict=True)] == [1000, 1000, 2000]


def test_the_pka_drivers_shared_secret_is_the_references(pka_launchers: dict[str, Path],
                                                         u5: boardprofiles.Profile) -> None:
    derive = encode_request("compute", kind="kex", alg="p256", op="derive", key=PRIVATE, peer=PEER_PUB)
    (status, message, secret), = compute(pka_launchers["own"], u5, [derive])
    assert (status, message) == ("ok", "")
    assert secret == KEY.exchange(ec.ECDH(), PEER.public_key())


def test_mbedtls_ecdsa_reaches_the_pka_through_its_alt_hooks(mbedtls_pka_launchers: dict[str, Path],
                                                             u5: boardprofiles.Profile, tmp_path: Path) -> None:
    own = mbedtls_pka_launchers["own"]
    hw = run(own, u5, CASES)
    # in one run: the stand-in's work doubled and each figure raised (RM0456 Tables 523 and 524: sign by 1000
    # cycles, verify by 100): the instructions stay, each operation gains its own figure's change only
    text = (boardprofiles.BOARDS_DIR / "stm32u585ai.toml").read_text()
    raised = tmp_path / "u5-ecdsa-raised.toml"
    raised.write_text(text.replace("= 2_744_000", "= 2_745_000").replace("= 2_938_000", "= 2_938_100"))
    assert run(mbedtls_pka_launchers["twice"], boardprofiles.parse(raised), CASES) == [
        (hw[0][0], hw[0][1] + 1000), (hw[1][0], hw[1][1] + 100)]
    with_standin = run(mbedtls_pka_launchers["counted"], u5, CASES)
    twice_counted = run(mbedtls_pka_launchers["counted-twice"], u5, CASES)
    assert all(t > w for (t, _), (w, _) in zip(twice_counted, with_standin, strict=True))  # the switch works
    software = run(own, boardprofiles.load("stm32f405"), CASES)  # no PKA: Mbed TLS's ECDSA, counted
    for (h, _), (w, _), (s, _) in zip(hw, with_standin, software, strict=True):
        assert w - h > s // 2 and 0 < h < s // 10


def test_mbedtls_pka_signature_is_real_and_a_bad_one_is_rejected(mbedtls_pka_launchers: dict[str, Path],
                                                                 u5: boardprofiles.Profile) -> None:
    def request(op: str, msg: bytes = MSG, **fields: object) -> str:
        return encode_request("compute", kind="sig", alg="ecdsa-p256-sha256", op=op, key=PRIVATE, msg=msg, **fields)

    signed, verified, changed = compute(mbedtls_pka_launchers["own"], u5,
                                        [request("sign"), request("verify", sig=SIG),
                                         request("verify", MSG + b"!", sig=SIG)])
    assert signed[:2] == ("ok", "")
    KEY.public_key().verify(signed[2], MSG, ec.ECDSA(hashes.SHA256()))  # r and s read back from the PKA RAM
    assert verified == ("ok", "", b"")
    # the PKA's verdict, as Mbed TLS's own software would answer it
    assert changed == ("reject", "mbedtls_ecdsa_read_signature: -0x4E00 ECP - The signature is not valid", b"")


RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
RSA_DER = RSA_KEY.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption())
RSA_SIG = RSA_KEY.sign(MSG, padding.PKCS1v15(), hashes.SHA256())
# RM0456 Table 521, modulus 2048 bits: the private key's exponentiation in the CRT mode, the public one (e = 65537)
RSA_PRIVATE_CYCLES, RSA_PUBLIC_CYCLES = 11_670_000, 693_700


def rsa_request(kind: str, op: str, msg: bytes = MSG, **fields: object) -> str:
    more = {"warmup": 0, "repeats": 1, "min_ns": 0} if kind == "bench" else {}
    return encode_request(kind, kind="sig", alg="rsa2048-pkcs1-sha256", op=op, key=RSA_DER, msg=msg, **more, **fields)


def test_wolfssl_rsa_2048_exponentiates_on_the_pka(pka_launchers: dict[str, Path], u5: boardprofiles.Profile,
                                                   tmp_path: Path) -> None:
    cases = [rsa_request("bench", "sign"), rsa_request("bench", "verify", sig=RSA_SIG)]
    hw = run(pka_launchers["own"], u5, cases)
    (_, sign_cycles), (_, verify_cycles) = hw
    assert RSA_PRIVATE_CYCLES < sign_cycles < RSA_PRIVATE_CYCLES + 20 * hw[0][0]
    assert RSA_PUBLIC_CYCLES < verify_cycles < RSA_PUBLIC_CYCLES + 20 * hw[1][0]
    # in one run (each stand-in signature costs seconds of QEMU): the stand-in's work doubled and each figure
    # raised, the private one by 1000 cycles, the public one by 100: the instructions stay, each operation
    # gains its own figure's change only
    text = (boardprofiles.BOARDS_DIR / "stm32u585ai.toml").read_text()
    assert "= 11_670_000" in text and "= 693_700" in text
    raised = tmp_path / "u5-rsa-raised.toml"
    raised.write_text(text.replace("= 11_670_000", "= 11_671_000").replace("= 693_700", "= 693_800"))
    assert run(pka_launchers["twice"], boardprofiles.parse(raised), cases) == [
        (hw[0][0], sign_cycles + 1000), (hw[1][0], verify_cycles + 100)]
    # the switch and the hook on verify alone (one driver function serves both keys)
    verify = cases[1:]
    with_standin = run(pka_launchers["counted"], u5, verify)
    assert run(pka_launchers["counted-twice"], u5, verify)[0][0] > with_standin[0][0]  # the switch works
    software = run(pka_launchers["own"], boardprofiles.load("stm32f405"), verify)  # no PKA: wolfCrypt's RSA
    (h, _), (w, _), (s, _) = hw[1], with_standin[0], software[0]
    assert w - h > s // 2 and 0 < h < s // 20


def test_wolfssl_rsa_on_the_pka_signs_for_real_and_rejects_a_bad_signature(pka_launchers: dict[str, Path],
                                                                           u5: boardprofiles.Profile) -> None:
    signed, verified, changed = compute(pka_launchers["own"], u5, [
        rsa_request("compute", "sign"), rsa_request("compute", "verify", sig=RSA_SIG),
        rsa_request("compute", "verify", MSG + b"!", sig=RSA_SIG)])
    assert signed[:2] == ("ok", "")
    RSA_KEY.public_key().verify(signed[2], MSG, padding.PKCS1v15(), hashes.SHA256())  # raises if wrong
    assert verified == ("ok", "", b"")
    assert changed == ("reject", "RSA PKCS#1 v1.5 signature does not match the message", b"")
