/* MBEDTLS_SHA1_ALT's context (profile "hw", hw.c): the stand-in's software
 * context and where the peripheral's partial block stands. */
#ifndef TB_MBEDTLS_SHA1_ALT_H
#define TB_MBEDTLS_SHA1_ALT_H

#include "standin.h"

typedef struct mbedtls_sha1_context {
    uint32_t sw[TB_SW_SHA1_CONTEXT_WORDS];
    uint32_t pending; /* bytes of the current 64-byte block already written */
} mbedtls_sha1_context;

#endif
