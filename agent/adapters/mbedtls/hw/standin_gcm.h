/* The stand-in of Mbed TLS's GCM in the "hw" profile (hw_gcm.c): Mbed
 * TLS's own gcm.c compiled once more under tb_sw_ names, over
 * MBEDTLS_AES_ALT (standin_gcm.c). Its context is held in 64-bit words
 * (its tables are uint64_t; the size is checked in standin_gcm.c). */
#ifndef TB_MBEDTLS_STANDIN_GCM_H
#define TB_MBEDTLS_STANDIN_GCM_H

#include "mbedtls/cipher.h"

#include <stddef.h>
#include <stdint.h>

#define TB_SW_GCM_CONTEXT_DWORDS 49

struct tb_sw_gcm_context;

void tb_sw_gcm_init(struct tb_sw_gcm_context *ctx);
void tb_sw_gcm_free(struct tb_sw_gcm_context *ctx);
int tb_sw_gcm_setkey(struct tb_sw_gcm_context *ctx, mbedtls_cipher_id_t cipher, const unsigned char *key,
                     unsigned int keybits);
int tb_sw_gcm_starts(struct tb_sw_gcm_context *ctx, int mode, const unsigned char *iv, size_t iv_len);
int tb_sw_gcm_update_ad(struct tb_sw_gcm_context *ctx, const unsigned char *add, size_t add_len);
int tb_sw_gcm_update(struct tb_sw_gcm_context *ctx, const unsigned char *input, size_t input_length,
                     unsigned char *output, size_t output_size, size_t *output_length);
int tb_sw_gcm_finish(struct tb_sw_gcm_context *ctx, unsigned char *output, size_t output_size,
                     size_t *output_length, unsigned char *tag, size_t tag_length);

/* hw.c: the CRYP's key registers now hold another operation's key (a GCM message's) */
void tb_mbedtls_hw_aes_key_replaced(void);

#endif
