/*
 * wolfSSL build profile "sp-small-asm" (TB_WOLFSSL_PROFILE=sp-small-asm,
 * Cortex-M3/M4/M7/M33 only), included at the end of user_settings.h.
 *
 * The build of wolfSSL's published Cortex-M figures: the STM32Cube
 * template's WOLF_CONF_MATH=4 (IDE/STM32Cube/default_conf.ftl, "Single
 * Precision ASM Cortex-M3+"; their STM32WL55 and STM32H563ZI tables): the
 * single-precision maths in its small form (WOLFSSL_SP_SMALL: smaller code
 * and stack, rolled loops) with the Cortex-M assembly
 * (WOLFSSL_SP_ARM_CORTEX_M_ASM, sp_cortexm.c), and the template's
 * WOLFSSL_SMALL_STACK (its Platform section: the SP code takes its
 * temporaries from the heap). Unlike "sp-asm", the other primitives stay in
 * C (no WOLFSSL_ARMASM). UMAAL on M4/M7/M33 (ARMv7E-M, ARMv8-M mainline
 * with the DSP extension); the UMULL/UMLAL variant on M3.
 */
#ifndef TB_WOLFSSL_PROFILE_H
#define TB_WOLFSSL_PROFILE_H

#define TB_WOLFSSL_PROFILE_NAME "sp-small-asm"

#define WOLFSSL_SP_SMALL
#define WOLFSSL_SP_ARM_CORTEX_M_ASM
#define WOLFSSL_SP_ASM
#define WOLFSSL_SMALL_STACK
#if !defined(__ARM_FEATURE_DSP) /* ARMv7-M (Cortex-M3): no UMAAL */
#define WOLFSSL_SP_NO_UMAAL
#endif

#endif
