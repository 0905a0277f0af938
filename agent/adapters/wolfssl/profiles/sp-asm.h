/*
 * wolfSSL build profile "sp-asm" (TB_WOLFSSL_PROFILE=sp-asm, Cortex-M3/M4/M7/
 * M33 only), included at the end of user_settings.h.
 *
 * wolfSSL's ARMv7-M / Thumb-2 assembly:
 *  - SP maths: sp_cortexm.c (RSA 2048/3072, DH 2048/3072, P-256/P-384 in
 *    Thumb-2 inline asm) instead of sp_c32.c; sp_int.c's generic maths also
 *    uses its Cortex-M asm. UMAAL on M4/M7/M33 (ARMv7E-M, ARMv8-M mainline
 *    with the DSP extension); on M3 (ARMv7-M, no
 *    UMAAL) the UMULL/UMLAL variant (WOLFSSL_SP_NO_UMAAL).
 *  - other primitives, M4/M7/M33 only (WOLFSSL_ARMASM on a Thumb-2 target,
 *    inline-asm C files port/arm/thumb2-*_c.c; library.cmake adds them and
 *    defines TB_WOLFSSL_THUMB2_ARMASM): AES (ECB/CBC/CTR/GCM), SHA-256,
 *    SHA-512, SHA-3 and the Curve25519/Ed25519 field arithmetic. No NEON and
 *    no Armv8 crypto instructions (a Cortex-M has neither). ChaCha20 and
 *    Poly1305 have no Thumb-2 code in 5.7.2: they stay in C. wolfSSL
 *    5.7.2's Thumb-2 Curve25519 needs UMAAL and WOLFSSL_ARMASM has no switch
 *    to leave it out, so on M3 every primitive but the SP maths is C.
 */
#ifndef TB_WOLFSSL_PROFILE_H
#define TB_WOLFSSL_PROFILE_H

#define TB_WOLFSSL_PROFILE_NAME "sp-asm"

#define WOLFSSL_SP_ARM_CORTEX_M_ASM
#define WOLFSSL_SP_ASM
#if !defined(__ARM_FEATURE_DSP) /* ARMv7-M (Cortex-M3): no UMAAL */
#define WOLFSSL_SP_NO_UMAAL
#endif

#if defined(TB_WOLFSSL_THUMB2_ARMASM) && TB_WOLFSSL_THUMB2_ARMASM
#define WOLFSSL_ARMASM
#define WOLFSSL_ARMASM_INLINE
#define WOLFSSL_ARMASM_THUMB2 /* read by wolfSSL 5.9 (its Thumb-2 ML-KEM, Poly1305, SHA-2), unused by 5.7 */
#define WOLFSSL_ARMASM_NO_HW_CRYPTO
#define WOLFSSL_ARMASM_NO_NEON
#define WOLFSSL_ARM_ARCH 7
#endif

#endif
