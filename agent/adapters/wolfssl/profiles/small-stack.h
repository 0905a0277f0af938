/*
 * wolfSSL build profile "small-stack" (TB_WOLFSSL_PROFILE=small-stack),
 * included at the end of user_settings.h: what wolfSSL offers to keep the
 * stack small, for devices whose RAM is mostly heap. Generic C maths as in
 * profile "c", so the two compare directly.
 */
#ifndef TB_WOLFSSL_PROFILE_H
#define TB_WOLFSSL_PROFILE_H

#define TB_WOLFSSL_PROFILE_NAME "small-stack"

/* Large locals (bignums, hash and cipher contexts, certificate decoding
 * buffers) are allocated on the heap instead of the stack. */
#define WOLFSSL_SMALL_STACK
/* SP maths: the looped, smaller implementation of the fixed-size code
 * (sp_c32.c compiled with small arrays and fewer precomputed points),
 * which also keeps its temporaries small. */
#define WOLFSSL_SP_SMALL
/* Curve25519/Ed25519: the low-memory field and group code (fe_low_mem.c,
 * ge_low_mem.c) instead of the large precomputed tables. */
#define CURVED25519_SMALL
/* GCM without per-key multiplication tables (bitwise GHASH). */
#define GCM_SMALL
#undef GCM_TABLE_4BIT

#endif
