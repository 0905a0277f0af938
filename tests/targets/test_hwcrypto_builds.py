"""Accelerated firmware builds (a library's "hw" profile, targets/hwcrypto.py):
the cycle model's hooks come from the board profile's accelerators and the
image's driver symbols, and a case the board cannot accelerate is refused
with the reason, never run in software under the "hw" name."""

from __future__ import annotations

from pathlib import Path

from tlsbench.targets import boardprofiles, hwcrypto

F417 = boardprofiles.load("stm32f417")
F405 = boardprofiles.load("stm32f405")
# an image with the wolfSSL "hw" driver: its stand-in bounds and doorbells
SYMBOLS = {"tb_model_mark": 0x100, "tb_hw_standin_begin": 0x200, "tb_hw_standin_end": 0x210,
           "tb_hw_block_sha1": 0x220, "tb_hw_setup_sha1": 0x230, "tb_hw_block_sha256": 0x240,
           "tb_hw_setup_sha256": 0x250, "tb_hw_block_aes_cbc": 0x260, "tb_hw_block_aes_gcm": 0x270}


def test_the_hooks_charge_each_declared_accelerator_at_its_doorbell() -> None:
    # the F417 declares SHA-1 and AES-ECB/CBC/CTR: each busy time per block at the doorbells the image
    # has (the CPU writes the words, counted itself); ECB and CTR have no doorbell in this driver
    assert hwcrypto.plugin_args(F417, SYMBOLS) == ["standin=0x200:0x210", "charge=0x220:66", "charge=0x260:14",
                                                    "accel=0x9"]
    # nothing declared: the stand-in is still excluded, no peripheral time, the driver uses none
    assert hwcrypto.plugin_args(F405, SYMBOLS) == ["standin=0x200:0x210", "accel=0x0"]
    # an image without a driver gets no hooks at all
    assert hwcrypto.plugin_args(F417, {"tb_model_mark": 0x100}) == []


def test_a_set_up_cost_and_dma_loading_are_charged(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text((boardprofiles.BOARDS_DIR / "stm32f405.toml").read_text() + """
[accelerators.sha256]
peripheral = "HASH"
cycles_per_block = 50
load_cycles_per_block = 16
setup_cycles = 7
data_movement = "dma"
source = "user"
""")
    mine = boardprofiles.parse(path)
    assert hwcrypto.plugin_args(mine, SYMBOLS) == ["standin=0x200:0x210", "charge=0x240:66", "charge=0x250:7",
                                                    "accel=0x2"]


def test_a_case_the_board_cannot_accelerate_is_refused_with_the_reason() -> None:
    assert hwcrypto.refusal("wolfssl", "hw", F417, "hash", "sha1") is None
    assert hwcrypto.refusal("wolfssl", "hw", F417, "mac", "hmac-sha1") is None
    assert hwcrypto.refusal("wolfssl", "hw", F417, "mac", "hmac-sha256") == (
        "board profile stm32f417 declares no sha256 accelerator ([accelerators.sha256]; it declares sha1,"
        " aes-ecb, aes-cbc, aes-ctr):"
        " hmac-sha256 has no peripheral to run on")
    assert hwcrypto.refusal("wolfssl", "hw", F405, "hash", "sha1") == (
        "board profile stm32f405 declares no sha1 accelerator ([accelerators.sha1]; it declares none):"
        " sha1 has no peripheral to run on")
    assert hwcrypto.refusal("wolfssl", "hw", None, "hash", "sha256") == (
        "wolfssl=hw models a crypto peripheral: it needs an emulated target (qemu:...) and"
        " --board with a board profile that declares"
        " [accelerators.sha256]")
    assert hwcrypto.refusal("wolfssl", "hw", F417, "aead", "aes-128-cbc-hmac-sha1") is None
    # GCM: the CRYP's GCM mode, or (the F417's CRYP has none) its counter blocks on the ECB
    assert hwcrypto.refusal("wolfssl", "hw", F417, "aead", "aes-128-gcm") is None
    assert hwcrypto.refusal("wolfssl", "hw", F405, "aead", "aes-128-gcm") == (
        "board profile stm32f405 declares no aes-gcm or aes-ecb accelerator ([accelerators.aes-gcm] or"
        " [accelerators.aes-ecb]; it declares none): aes-128-gcm has no peripheral to run on")
    assert hwcrypto.refusal("wolfssl", "hw", None, "aead", "aes-128-gcm") == (
        "wolfssl=hw models a crypto peripheral: it needs an emulated target (qemu:...) and"
        " --board with a board profile that declares [accelerators.aes-gcm] or [accelerators.aes-ecb]")
    assert hwcrypto.refusal("wolfssl", "hw", F405, "aead", "aes-128-cbc-hmac-sha1") == (
        "board profile stm32f405 declares no aes-cbc or sha1 accelerator ([accelerators.aes-cbc],"
        " [accelerators.sha1]; it declares none): aes-128-cbc-hmac-sha1 has no peripheral to run on")
    assert hwcrypto.refusal("wolfssl", "hw", None, "aead", "aes-128-cbc-hmac-sha1") == (
        "wolfssl=hw models a crypto peripheral: it needs an emulated target (qemu:...) and"
        " --board with a board profile that declares"
        " [accelerators.aes-cbc], [accelerators.sha1]")
    assert hwcrypto.refusal("wolfssl", "hw", F417, "aead", "chacha20-poly1305") == (
        "wolfssl=hw hands no chacha20-poly1305 to a peripheral (its driver does sha1, sha256, hmac-sha1,"
        " hmac-sha256, aes-128-gcm, aes-128-cbc-hmac-sha1, aes-128-cbc-hmac-sha256, ecdsa-p256-sha256, p256,"
        " rsa2048-pkcs1-sha256, rsa2048-pss-sha256);"
        " run it without wolfssl=hw for software")
    # a handshake or a signature runs as built (its hashing on the peripheral where there is one)
    assert hwcrypto.refusal("wolfssl", "hw", F405, "tls", "tls13-x25519-ecdsa-p256") is None
    # but never without a board profile: there is no peripheral to model
    assert hwcrypto.refusal("wolfssl", "hw", None, "tls", "tls13-x25519-ecdsa-p256") == (
        "wolfssl=hw models a crypto peripheral: it needs an emulated target (qemu:...) and"
        " --board with a board profile that declares its"
        " accelerators ([accelerators.NAME])")
    # any other build is never refused here
    assert hwcrypto.refusal("wolfssl", "c", None, "hash", "sha1") is None
    assert hwcrypto.refusal("mbedtls", None, F405, "hash", "sha1") is None


def test_mbedtls_hw_routes_gcm_to_the_gcm_mode_or_the_block_cipher_and_refuses_what_the_board_lacks() -> None:
    f217 = boardprofiles.load("stm32f217")
    # Mbed TLS's _ALT functions: SHA-1 on HASH; GCM on the CRYP's GCM mode, or its block cipher on the ECB
    # (GHASH in software), so a CRYP without GCM (the F217's, the F417's) runs it; CBC + HMAC on CRYP and HASH
    for alg, kind in (("sha1", "hash"), ("hmac-sha1", "mac"), ("aes-128-gcm", "aead"),
                      ("aes-128-cbc-hmac-sha1", "aead")):
        assert hwcrypto.refusal("mbedtls", "hw", f217, kind, alg) is None, alg
        assert hwcrypto.refusal("mbedtls", "hw", F417, kind, alg) is None, alg
    assert hwcrypto.refusal("mbedtls", "hw", f217, "hash", "sha256") == (
        "board profile stm32f217 declares no sha256 accelerator ([accelerators.sha256]; it declares sha1,"
        " aes-ecb, aes-cbc, aes-ctr): sha256 has no peripheral to run on")
    assert hwcrypto.refusal("mbedtls", "hw", F405, "aead", "aes-128-gcm") == (
        "board profile stm32f405 declares no aes-gcm or aes-ecb accelerator ([accelerators.aes-gcm] or"
        " [accelerators.aes-ecb]; it declares none): aes-128-gcm has no peripheral to run on")
    assert hwcrypto.refusal("mbedtls", "hw", None, "aead", "aes-128-gcm") == (
        "mbedtls=hw models a crypto peripheral: it needs an emulated target (qemu:...) and"
        " --board with a board profile that declares [accelerators.aes-gcm] or [accelerators.aes-ecb]")
    # the figures are AES-128's: the driver hands no 256-bit key to the peripheral
    assert hwcrypto.refusal("mbedtls", "hw", f217, "aead", "aes-256-gcm") == (
        "mbedtls=hw hands no aes-256-gcm to a peripheral (its driver does sha1, sha256, hmac-sha1,"
        " hmac-sha256, aes-128-gcm, aes-128-cbc-hmac-sha1, aes-128-cbc-hmac-sha256, ecdsa-p256-sha256); run it"
        " without mbedtls=hw for software")
    assert hwcrypto.refusal("mbedtls", "hw", None, "tls", "tls13-x25519-ecdsa-p256") == (
        "mbedtls=hw models a crypto peripheral: it needs an emulated target (qemu:...) and"
        " --board with a board profile that declares its accelerators ([accelerators.NAME])")
    assert hwcrypto.refusal("mbedtls", "default", None, "hash", "sha1") is None


def test_the_f217_hooks_charge_the_f4s_figures_at_the_mbedtls_drivers_doorbells() -> None:
    # the Mbed TLS image's doorbells: SHA-1, SHA-256, AES-ECB (GCM's blocks) and AES-CBC, and their set-ups
    symbols = {"tb_hw_standin_begin": 0x200, "tb_hw_standin_end": 0x210, "tb_hw_block_sha1": 0x220,
               "tb_hw_setup_sha1": 0x230, "tb_hw_block_sha256": 0x240, "tb_hw_block_aes_ecb": 0x280,
               "tb_hw_setup_aes_ecb": 0x290, "tb_hw_block_aes_cbc": 0x260}
    assert hwcrypto.plugin_args(boardprofiles.load("stm32f217"), symbols) == [
        "standin=0x200:0x210", "charge=0x220:66", "charge=0x280:14", "charge=0x260:14", "accel=0xd"]


def test_the_f439_charges_gcms_set_up_header_and_payload_and_sha256_at_their_doorbells() -> None:
    # the wolfSSL image's doorbells with GCM's header one; RM0090 Table 113 (F43x): init 24, header 10,
    # payload and tag 14; 25.3.1: SHA-256 50 (the CPU loads the words, counted itself)
    f439 = boardprofiles.load("stm32f439zi")
    symbols = SYMBOLS | {"tb_hw_header_aes_gcm": 0x280, "tb_hw_setup_aes_gcm": 0x290}
    assert hwcrypto.plugin_args(f439, symbols) == [
        "standin=0x200:0x210", "charge=0x220:66", "charge=0x240:50", "charge=0x260:14", "charge=0x270:14",
        "charge=0x280:10", "charge=0x290:24", "accel=0x2b"]
    # every case the issue names runs in hardware there, for both libraries
    for library in ("wolfssl", "mbedtls"):
        for alg, kind in (("sha1", "hash"), ("sha256", "hash"), ("hmac-sha1", "mac"), ("hmac-sha256", "mac"),
                          ("aes-128-gcm", "aead"), ("aes-128-cbc-hmac-sha1", "aead"),
                          ("aes-128-cbc-hmac-sha256", "aead")):
            assert hwcrypto.refusal(library, "hw", f439, kind, alg) is None, (library, alg)
    # the figures are AES-128's: wolfSSL's callback hands no 256-bit GCM key to the peripheral either
    assert hwcrypto.refusal("wolfssl", "hw", f439, "aead", "aes-256-gcm") == (
        "wolfssl=hw hands no aes-256-gcm to a peripheral (its driver does sha1, sha256, hmac-sha1,"
        " hmac-sha256, aes-128-gcm, aes-128-cbc-hmac-sha1, aes-128-cbc-hmac-sha256, ecdsa-p256-sha256, p256,"
        " rsa2048-pkcs1-sha256, rsa2048-pss-sha256);"
        " run it without wolfssl=hw for software")


def test_wolfssls_ecdsa_p256_goes_to_the_pka_where_the_profile_declares_it() -> None:
    u5 = boardprofiles.load("stm32u585ai")
    # one doorbell per operation, each charged its RM0456 figure (Tables 523 and 524); no block doorbells
    symbols = {"tb_hw_standin_begin": 0x200, "tb_hw_standin_end": 0x210, "tb_hw_block_sha1": 0x220,
               "tb_hw_op_ecdsa_p256_sign": 0x300, "tb_hw_op_ecdsa_p256_verify": 0x310, "tb_hw_op_ecc_p256_mul": 0x320}
    assert hwcrypto.plugin_args(u5, symbols) == [
        "standin=0x200:0x210", "charge=0x300:2744000", "charge=0x310:2938000", "charge=0x320:3083000",
        "accel=0x1c0"]
    assert hwcrypto.refusal("wolfssl", "hw", u5, "sig", "ecdsa-p256-sha256") is None
    # a board without the PKA refuses the accelerated case, naming what it lacks
    assert hwcrypto.refusal("wolfssl", "hw", F417, "sig", "ecdsa-p256-sha256") == (
        "board profile stm32f417 declares no ecdsa-p256-sign or ecdsa-p256-verify accelerator"
        " ([accelerators.ecdsa-p256-sign], [accelerators.ecdsa-p256-verify]; it declares sha1, aes-ecb, aes-cbc,"
        " aes-ctr): ecdsa-p256-sha256 has no peripheral to run on")
    # ECDH P-256 on its scalar multiplication (RM0456 Table 522), refused where there is none
    assert hwcrypto.refusal("wolfssl", "hw", u5, "kex", "p256") is None
    assert hwcrypto.refusal("wolfssl", "hw", F417, "kex", "p256") == (
        "board profile stm32f417 declares no ecc-p256-mul accelerator ([accelerators.ecc-p256-mul]; it declares"
        " sha1, aes-ecb, aes-cbc, aes-ctr): p256 has no peripheral to run on")
    # the PKA's ECC figures are P-256's: another curve or Ed25519 run as built
    assert hwcrypto.refusal("wolfssl", "hw", u5, "sig", "ecdsa-p384-sha384") is None
    # RSA-2048 on its modular exponentiation (RM0456 Table 521: CRT for the private key, e = 65537 normal)
    rsa_hooks = {"tb_hw_op_rsa_2048_private": 0x330, "tb_hw_op_rsa_2048_public": 0x340}
    assert hwcrypto.plugin_args(u5, symbols | rsa_hooks)[-3:] == [
        "charge=0x330:11670000", "charge=0x340:693700", "accel=0x7c0"]
    assert hwcrypto.refusal("wolfssl", "hw", u5, "sig", "rsa2048-pkcs1-sha256") is None
    assert hwcrypto.refusal("wolfssl", "hw", F417, "sig", "rsa2048-pss-sha256") == (
        "board profile stm32f417 declares no rsa-2048-private or rsa-2048-public accelerator"
        " ([accelerators.rsa-2048-private], [accelerators.rsa-2048-public]; it declares sha1, aes-ecb, aes-cbc,"
        " aes-ctr): rsa2048-pss-sha256 has no peripheral to run on")
    # Mbed TLS's hw build hands its ECDSA P-256 to the PKA too (MBEDTLS_ECDSA_SIGN_ALT/VERIFY_ALT), refused likewise
    assert hwcrypto.refusal("mbedtls", "hw", u5, "sig", "ecdsa-p256-sha256") is None
    assert hwcrypto.refusal("mbedtls", "hw", F417, "sig", "ecdsa-p256-sha256") == (
        "board profile stm32f417 declares no ecdsa-p256-sign or ecdsa-p256-verify accelerator"
        " ([accelerators.ecdsa-p256-sign], [accelerators.ecdsa-p256-verify]; it declares sha1, aes-ecb, aes-cbc,"
        " aes-ctr): ecdsa-p256-sha256 has no peripheral to run on")
