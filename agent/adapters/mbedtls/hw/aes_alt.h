/* MBEDTLS_AES_ALT's context (profile "hw", hw.c): the stand-in's software
 * context and the key the driver writes to the key registers. */
#ifndef TB_MBEDTLS_AES_ALT_H
#define TB_MBEDTLS_AES_ALT_H

#include "standin.h"

#if defined(MBEDTLS_CIPHER_MODE_XTS)
#error "Mbed TLS profile hw: AES-XTS has no driver (adapters/mbedtls/hw.c); leave MBEDTLS_CIPHER_MODE_XTS off"
#endif

typedef struct mbedtls_aes_context {
    uint32_t sw[TB_SW_AES_CONTEXT_WORDS];
    uint8_t key[32];
    uint32_t key_bytes;
} mbedtls_aes_context;

#endif
