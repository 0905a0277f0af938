/*
 * wolfSSL build profile "sp-asm-small" (TB_WOLFSSL_PROFILE=sp-asm-small,
 * Cortex-M3/M4/M7/M33 only), included at the end of user_settings.h.
 *
 * Profile "sp-asm" (the SP maths and the other primitives in Thumb-2
 * assembly) with the STM32Cube template's small SP maths and small stack:
 * the build of wolfSSL's published "Thumb2 ARM ASM, SP-ASM Cortex M small"
 * figures (STM32H753ZI at -O2; IDE/STM32Cube/default_conf.ftl,
 * WOLF_CONF_MATH=4: WOLFSSL_SP_SMALL; its Platform section:
 * WOLFSSL_SMALL_STACK). library.cmake adds sp-asm's sources.
 */
#include "sp-asm.h"

#undef TB_WOLFSSL_PROFILE_NAME
#define TB_WOLFSSL_PROFILE_NAME "sp-asm-small"

#define WOLFSSL_SP_SMALL
#define WOLFSSL_SMALL_STACK
