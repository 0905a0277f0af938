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
/* Not used here, measured on mps2-an386: CURVED25519_SMALL (low-memory
 * Curve25519/Ed25519) made X25519 30x slower for 156 bytes less stack and
 * Ed25519 signing deeper, GCM_SMALL made AES-GCM 16x slower and its stack
 * deeper; neither makes the stack smaller in a way worth the change. */

#endif
