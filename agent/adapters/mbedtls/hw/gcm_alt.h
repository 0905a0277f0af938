/* MBEDTLS_GCM_ALT's context (profile "hw", hw_gcm.c): the stand-in's
 * software context, the key the driver writes to the CRYP's key registers,
 * and where a message on the CRYP's GCM mode stands. */
#ifndef TB_MBEDTLS_GCM_ALT_H
#define TB_MBEDTLS_GCM_ALT_H

#include "standin_gcm.h"

typedef struct mbedtls_gcm_context {
    uint64_t sw[TB_SW_GCM_CONTEXT_DWORDS]; /* the software context holds 64-bit tables */
    uint8_t key[16];                        /* an AES-128 key the CRYP can take */
    uint32_t key_bytes;                     /* 0: no GCM mode for this key: software */
    uint8_t partial[16];                    /* the current block's bytes not yet written to DIN */
    uint32_t partial_len;
    uint64_t ad_len, len;
    uint8_t phase; /* the message's CRYP phase: 0 none (software), 1 header, 2 payload */
} mbedtls_gcm_context;

#endif
