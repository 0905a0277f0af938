/*
 * wolfSSL build profile "c" (TB_WOLFSSL_PROFILE=c, the default on Cortex-M
 * and on hosts that are not x86-64), included at the end of user_settings.h.
 *
 * Generic C everywhere: the fixed-size SP maths in C (sp_c32.c on 32-bit
 * targets, sp_c64.c on 64-bit ones; wolfSSL picks by word size), AES in C
 * with GCM 4-bit tables, C SHA-2/SHA-3/ChaCha20/Poly1305/Curve25519. The
 * base settings are used unchanged; this header only names the profile.
 */
#ifndef TB_WOLFSSL_PROFILE_H
#define TB_WOLFSSL_PROFILE_H

#define TB_WOLFSSL_PROFILE_NAME "c"

#endif
