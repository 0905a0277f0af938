/*
 * wolfSSL build profile "sp-thumb-small" (TB_WOLFSSL_PROFILE=sp-thumb-small,
 * ARMv6-M firmware only: Cortex-M0/M0+), included at the end of user_settings.h.
 *
 * The STM32Cube template's WOLF_CONF_MATH=5 build (IDE/STM32Cube/
 * default_conf.ftl, "Single Precision ASM Thumb (Cortex-M0)"), as wolfSSL's
 * published STM32G071RB figures list it: the fixed-size SP maths in Thumb-1
 * assembly (WOLFSSL_SP_ARM_THUMB_ASM, sp_armthumb.c; library.cmake adds the
 * file) in its small form (WOLFSSL_SP_SMALL), with the template's
 * WOLFSSL_SMALL_STACK. Every other primitive stays in C.
 */
#ifndef TB_WOLFSSL_PROFILE_H
#define TB_WOLFSSL_PROFILE_H

#define TB_WOLFSSL_PROFILE_NAME "sp-thumb-small"

#define WOLFSSL_SP_SMALL
#define WOLFSSL_SP_ASM
#define WOLFSSL_SP_ARM_THUMB_ASM
#define WOLFSSL_SMALL_STACK

#endif
