/*
 * wolfSSL build profile "hw" (TB_WOLFSSL_PROFILE=hw): firmware only. The
 * generic C build of profile "c", plus wolfSSL's crypto callbacks
 * (WOLF_CRYPTO_CB) routing SHA-1 and SHA-256 (and so HMAC over them),
 * AES-CBC and AES-128-GCM to a crypto peripheral, and ECDSA P-256 sign and
 * verify, ECDH P-256 and RSA-2048's exponentiation to a public-key
 * accelerator (the STM32 PKA), through a register-level
 * driver (adapters/wolfssl/hw.c, platform/cortexm/hwcrypto.h), the way a
 * product offloads them. The peripheral's time is the board profile's
 * ([accelerators]); algorithms the profile does not declare stay in
 * software. HAVE_AES_ECB: wolfCrypt's GCM then hands its counter blocks to
 * the ECB callback, so a CRYP without GCM (the F2's, the F417's) still
 * runs them, GHASH in software.
 */
#ifndef TB_WOLFSSL_PROFILE_H
#define TB_WOLFSSL_PROFILE_H

#define TB_WOLFSSL_PROFILE_NAME "hw"
#define WOLF_CRYPTO_CB
#define TB_WOLFSSL_HW 1
#define HAVE_AES_ECB
/* the device the adapter registers and passes to wolfCrypt's init calls ("TBHW") */
#define TB_WOLFSSL_HW_DEVID 0x54424857

#endif
