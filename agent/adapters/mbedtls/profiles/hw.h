/*
 * Mbed TLS build profile "hw" (TB_MBEDTLS_PROFILE=hw), included by
 * build_info.h after tb_mbedtls_config.h (MBEDTLS_USER_CONFIG_FILE):
 * firmware only. The base configuration with Mbed TLS 3.6's alternative
 * implementations (MBEDTLS_AES_ALT, MBEDTLS_SHA1_ALT, MBEDTLS_SHA256_ALT,
 * MBEDTLS_GCM_ALT),
 * the way a product hands AES and SHA to a crypto peripheral: adapters/
 * mbedtls/hw.c drives the cycle model's register block
 * (platform/cortexm/hwcrypto.h) for SHA-1, SHA-256 (and so HMAC over
 * them), AES-128 ECB, AES-128 CBC and AES-128-GCM (hw_gcm.c: the CRYP's
 * GCM mode where the board declares one, else Mbed TLS's GCM over the ECB,
 * GHASH in software), and ECDSA P-256 sign and verify through
 * MBEDTLS_ECDSA_SIGN_ALT/VERIFY_ALT to a public-key accelerator (hw_ecdsa.c,
 * the STM32 PKA). What the board profile does not
 * declare ([accelerators]) runs in Mbed TLS's own software, counted.
 */
#ifndef TB_MBEDTLS_PROFILE_H
#define TB_MBEDTLS_PROFILE_H

#define TB_MBEDTLS_PROFILE_NAME "hw"
#define TB_MBEDTLS_PROFILE_SUMMARY \
    "AES-128 ECB/CBC/GCM, SHA-1, SHA-256, ECDSA P-256 through MBEDTLS_*_ALT to a modelled peripheral where the board profile declares one"

/* The stand-in (hw/standin_*.c) compiles Mbed TLS's own software modules
 * once more under other names: without the _ALT switches. */
#if !defined(TB_MBEDTLS_HW_STANDIN)
#define MBEDTLS_AES_ALT
#define MBEDTLS_SHA1_ALT
#define MBEDTLS_SHA256_ALT
#endif
/* GCM's stand-in (hw/standin_gcm.c) keeps the AES driver, its block cipher */
#if !defined(TB_MBEDTLS_HW_STANDIN) && !defined(TB_MBEDTLS_HW_STANDIN_GCM)
#define MBEDTLS_GCM_ALT
#endif
/* ECDSA on a public-key accelerator (hw_ecdsa.c); its stand-in (hw/standin_ecdsa.c) is Mbed TLS's own */
#if !defined(TB_MBEDTLS_HW_STANDIN) && !defined(TB_MBEDTLS_HW_STANDIN_ECDSA)
#define MBEDTLS_ECDSA_SIGN_ALT
#define MBEDTLS_ECDSA_VERIFY_ALT
#endif

#endif
