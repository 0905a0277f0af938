/*
 * wolfSSL build profile "sp-small-asm" (TB_WOLFSSL_PROFILE=sp-small-asm,
 * Cortex-M3/M4/M7 only), included at the end of user_settings.h.
 *
 * The build of wolfSSL's published Cortex-M figures (their STM32L4A6 table):
 * the single-precision maths in its small form (WOLFSSL_SP_SMALL: smaller
 * code and stack, rolled loops) with the Cortex-M assembly
 * (WOLFSSL_SP_ARM_CORTEX_M_ASM, sp_cortexm.c). Unlike "sp-asm", the other
 * primitives stay in C (no WOLFSSL_ARMASM): only the public-key maths
 * changes against "c". UMAAL on M4/M7; the UMULL/UMLAL variant on M3.
 */
#ifndef TB_WOLFSSL_PROFILE_H
#define TB_WOLFSSL_PROFILE_H

#define TB_WOLFSSL_PROFILE_NAME "sp-small-asm"

#define WOLFSSL_SP_SMALL
#define WOLFSSL_SP_ARM_CORTEX_M_ASM
#define WOLFSSL_SP_ASM
#if !defined(__ARM_FEATURE_DSP) /* ARMv7-M (Cortex-M3): no UMAAL */
#define WOLFSSL_SP_NO_UMAAL
#endif

#endif
