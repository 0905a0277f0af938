/* MBEDTLS_SHA256_ALT's context (profile "hw", hw.c): the stand-in's
 * software context and where the peripheral's partial block stands. */
#ifndef TB_MBEDTLS_SHA256_ALT_H
#define TB_MBEDTLS_SHA256_ALT_H

#include "standin.h"

typedef struct mbedtls_sha256_context {
    uint32_t sw[TB_SW_SHA256_CONTEXT_WORDS];
    uint32_t pending; /* bytes of the current 64-byte block already written */
    int is224;        /* SHA-224: no accelerator declares it, Mbed TLS's software */
} mbedtls_sha256_context;

#endif
