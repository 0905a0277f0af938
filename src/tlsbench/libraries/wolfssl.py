"""wolfSSL: built from its pinned source tree, for the host and as firmware."""

from __future__ import annotations

from tlsbench.libraries.configs import Need, WolfsslUserSettings
from tlsbench.libraries.record import CoreProfile, Library, Version, debian

# Thumb-2 with UMAAL (or the SP maths' UMULL/UMLAL variant on ARMv7-M): ARMv7-M, ARMv7E-M and ARMv8-M mainline
# (the M33: sp-asm's 17 primitive cases ran on mps2-an505)
THUMB2_CORES = ("cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33")

LIBRARY = Library(
    name="wolfssl",
    display="wolfSSL",
    versions=(
        Version("wolfssl", "5.7", "wolfssl", "wolfSSL 5.7.2"),
        Version("wolfssl", "5.9", "wolfssl@5.9", "wolfSSL 5.9.2: ML-KEM, ML-DSA, SLH-DSA", ("kem", "pqsig")),
    ),
    default="5.9",
    host_build="source",
    firmware="default",
    default_profile="c",
    size_archives=("libtb_wolfssl.a",),
    size_unsupported={"aes-128": "no public single-block AES call in this configuration"
                                 " (needs WOLFSSL_AES_DIRECT or HAVE_AES_ECB)"},
    config_mechanism=WolfsslUserSettings(
        header="wolfssl/wolfcrypt/settings.h",
        layered="included at the end of our user_settings.h (WOLFSSL_USER_SETTINGS), after our base and profile:"
                " #undef what it turns off (full:PATH: your user_settings.h instead of ours)",
        needs=(
            Need("HAVE_HASHDRBG", "the DRBG the harness seeds"),
            Need("CUSTOM_RAND_GENERATE_SEED", "the harness's seed hook (the test RNG)", value="tb_wolfssl_seed"),
            Need("SINGLE_THREADED", "bare metal: no threads", firmware_only=True),
            Need("NO_FILESYSTEM", "bare metal: no files", firmware_only=True),
            Need("WOLFSSL_USER_IO", "the adapter's in-memory TLS I/O callbacks", firmware_only=True),
        ),
        # what a case needs on, or "!NAME" off (matched on its name library/kind/alg/op)
        case_needs=(
            (r"/tls/TLS_(AES|CHACHA20)_", "WOLFSSL_TLS13"),
            (r"/tls/TLS_\w+_WITH_", "!WOLFSSL_NO_TLS12"),
            (r"(?i)chacha20", "HAVE_CHACHA"),
            (r"(?i)_GCM|-gcm", "HAVE_AESGCM"),
            (r"(?i)_CCM|-ccm", "HAVE_AESCCM"),
            (r"x25519", "HAVE_CURVE25519"),
            (r"x448", "HAVE_CURVE448"),
            (r"ed25519", "HAVE_ED25519"),
            (r"p256|p384|ecdsa|secp", "HAVE_ECC"),
            (r"ffdhe", "HAVE_FFDHE"),
            (r"sha3-", "WOLFSSL_SHA3"),
        ),
    ),
    # the Cortex-M assembly profiles: their headers (agent/adapters/wolfssl/profiles) and sources (library.cmake)
    core_profiles=(
        CoreProfile("sp-asm", "wolfSSL's Thumb-2 assembly (sp_cortexm.c, port/arm/thumb2-*_c.c)",
                    ("WOLFSSL_SP_ARM_CORTEX_M_ASM", "WOLFSSL_SP_ASM", "WOLFSSL_ARMASM"),
                    ("sp_cortexm.c", "port/arm/thumb2-aes-asm_c.c", "port/arm/thumb2-sha256-asm_c.c"),
                    THUMB2_CORES),
        CoreProfile("sp-asm-small", "wolfSSL's Thumb-2 assembly with the SP maths small (sp_cortexm.c,"
                    " port/arm/thumb2-*_c.c)", ("WOLFSSL_SP_SMALL", "WOLFSSL_SMALL_STACK"),
                    ("sp_cortexm.c", "port/arm/thumb2-aes-asm_c.c", "port/arm/thumb2-sha256-asm_c.c"),
                    THUMB2_CORES),
        CoreProfile("sp-small-asm", "wolfSSL's Thumb-2 SP assembly, small (sp_cortexm.c)",
                    ("WOLFSSL_SP_SMALL", "WOLFSSL_SP_ARM_CORTEX_M_ASM", "WOLFSSL_SP_ASM", "WOLFSSL_SMALL_STACK"),
                    ("sp_cortexm.c",), THUMB2_CORES),
        # the M0+ is ARMv6-M as the M0 (its boards build with -mcpu=cortex-m0)
        CoreProfile("sp-thumb-small", "wolfSSL's ARMv6-M Thumb SP assembly, small (sp_armthumb.c)",
                    ("WOLFSSL_SP_SMALL", "WOLFSSL_SP_ARM_THUMB_ASM", "WOLFSSL_SP_ASM", "WOLFSSL_SMALL_STACK"),
                    ("sp_armthumb.c",), ("cortex-m0", "cortex-m0plus")),
    ),
    # profile "hw": wolfCrypt's crypto callbacks to agent/adapters/wolfssl/hw.c (HMAC through the hash; AES-128
    # only: the accelerators' figures are its; GCM on the CRYP's GCM mode, or its counter blocks on the ECB)
    hw_routes={
        "sha1": ("sha1",), "sha256": ("sha256",), "hmac-sha1": ("sha1",), "hmac-sha256": ("sha256",),
        "aes-128-gcm": ("aes-gcm|aes-ecb",),
        "aes-128-cbc-hmac-sha1": ("aes-cbc", "sha1"), "aes-128-cbc-hmac-sha256": ("aes-cbc", "sha256"),
        # ECDSA P-256 on a public-key accelerator (the STM32 PKA): signing and verifying, each one operation
        "ecdsa-p256-sha256": ("ecdsa-p256-sign", "ecdsa-p256-verify"),
        # ECDH P-256 (keygen and derive): one scalar multiplication each on the accelerator
        "p256": ("ecc-p256-mul",),
        # RSA-2048 on the accelerator's modular exponentiation: signing with the private key (CRT), verifying
        "rsa2048-pkcs1-sha256": ("rsa-2048-private", "rsa-2048-public"),
        "rsa2048-pss-sha256": ("rsa-2048-private", "rsa-2048-public"),
    },
    hw_modules=("aes.c.obj", "sha.c.obj", "sha256.c.obj"),
    # GCM is in aes.c (with every other AES mode)
    cipher_modules={"chacha20-poly1305": ("chacha.c.obj", "poly1305.c.obj", "chacha20_poly1305.c.obj"),
                    "aes-128-gcm": ("aes.c.obj",),
                    "aes-128-cbc-hmac-sha1": ("aes.c.obj", "sha.c.obj", "hmac.c.obj")},
    # its pinned sources: Debian source packages (apt-get source PACKAGE=VERSION from SUITE), every downloaded
    # file checked by its SHA-256 (record.debian, targets/sources.py)
    pins=(
        debian("wolfssl", "wolfssl=5.7.2-0.1+deb13u2", "trixie", upstream="5.7.2", archive="wolfssl_5.7.2.orig.tar.gz",
               tree=("wolfssl-5.7.2-stable", "wolfssl/version.h"), sha256="""
          b61bd9e726503a49e1d66244ff3d1aca5d15f08f489699d3f7c7b0acec72b1e8 wolfssl_5.7.2-0.1+deb13u2.dsc
          0f2ed82e345b833242705bbc4b08a2a2037a33f7bf9c610efae6464f6b10e305 wolfssl_5.7.2.orig.tar.gz
          0e5c0598631feac357b8252d4839b308606fba5aaba80061eb895e7e755094f7 wolfssl_5.7.2.orig.tar.gz.asc
          c4c31ffaa8e05e1132cb535cc0b0cd3083e04f134883ab039154f3857d0a96d8 wolfssl_5.7.2-0.1+deb13u2.debian.tar.xz"""),
        # from sid, whose .dsc and Debian patches the mirror no longer serves: only the upstream archive
        debian("wolfssl@5.9", "wolfssl=5.9.2-1.2", "sid", upstream="5.9.2", tar_only=True,
               archive="wolfssl_5.9.2.orig.tar.gz", tree=("wolfssl-5.9.2-stable", "wolfssl/version.h"), sha256="""
          2f4ef3d4fd387a9b3191d36a6316d69116c46ff69bb9583b6c82b36d7b8ca114 wolfssl_5.9.2.orig.tar.gz"""),
    ),
)
