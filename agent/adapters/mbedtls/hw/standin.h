/* The stand-in of Mbed TLS's "hw" profile (hw.c): Mbed TLS's own software
 * SHA-1, SHA-256 and AES (its library/sha1.c, sha256.c and aes.c compiled
 * once more without the _ALT switches, their names prefixed tb_sw_ instead
 * of mbedtls_: standin_*.c; GCM's: standin_gcm.h). It computes what the modelled peripheral
 * returns; the cycle model leaves its instructions out. An _ALT context
 * holds the stand-in's context in words (its size is checked where the
 * real type is known, standin_*.c). */
#ifndef TB_MBEDTLS_STANDIN_H
#define TB_MBEDTLS_STANDIN_H

#include <stddef.h>
#include <stdint.h>

#define TB_SW_SHA1_CONTEXT_WORDS 23
#define TB_SW_SHA256_CONTEXT_WORDS 27
#define TB_SW_AES_CONTEXT_WORDS 70

struct tb_sw_sha1_context;
struct tb_sw_sha256_context;
struct tb_sw_aes_context;

void tb_sw_sha1_init(struct tb_sw_sha1_context *ctx);
void tb_sw_sha1_free(struct tb_sw_sha1_context *ctx);
int tb_sw_sha1_starts(struct tb_sw_sha1_context *ctx);
int tb_sw_sha1_update(struct tb_sw_sha1_context *ctx, const unsigned char *input, size_t ilen);
int tb_sw_sha1_finish(struct tb_sw_sha1_context *ctx, unsigned char output[20]);
int tb_sw_internal_sha1_process(struct tb_sw_sha1_context *ctx, const unsigned char data[64]);

void tb_sw_sha256_init(struct tb_sw_sha256_context *ctx);
void tb_sw_sha256_free(struct tb_sw_sha256_context *ctx);
int tb_sw_sha256_starts(struct tb_sw_sha256_context *ctx, int is224);
int tb_sw_sha256_update(struct tb_sw_sha256_context *ctx, const unsigned char *input, size_t ilen);
int tb_sw_sha256_finish(struct tb_sw_sha256_context *ctx, unsigned char *output);
int tb_sw_internal_sha256_process(struct tb_sw_sha256_context *ctx, const unsigned char data[64]);

void tb_sw_aes_init(struct tb_sw_aes_context *ctx);
void tb_sw_aes_free(struct tb_sw_aes_context *ctx);
int tb_sw_aes_setkey_enc(struct tb_sw_aes_context *ctx, const unsigned char *key, unsigned int keybits);
int tb_sw_aes_setkey_dec(struct tb_sw_aes_context *ctx, const unsigned char *key, unsigned int keybits);
int tb_sw_aes_crypt_ecb(struct tb_sw_aes_context *ctx, int mode, const unsigned char input[16],
                        unsigned char output[16]);
int tb_sw_internal_aes_encrypt(struct tb_sw_aes_context *ctx, const unsigned char input[16],
                               unsigned char output[16]);
int tb_sw_internal_aes_decrypt(struct tb_sw_aes_context *ctx, const unsigned char input[16],
                               unsigned char output[16]);
int tb_sw_aes_crypt_cbc(struct tb_sw_aes_context *ctx, int mode, size_t length, unsigned char iv[16],
                        const unsigned char *input, unsigned char *output);
int tb_sw_aes_crypt_cfb128(struct tb_sw_aes_context *ctx, int mode, size_t length, size_t *iv_off,
                           unsigned char iv[16], const unsigned char *input, unsigned char *output);
int tb_sw_aes_crypt_cfb8(struct tb_sw_aes_context *ctx, int mode, size_t length, unsigned char iv[16],
                         const unsigned char *input, unsigned char *output);
int tb_sw_aes_crypt_ofb(struct tb_sw_aes_context *ctx, size_t length, size_t *iv_off, unsigned char iv[16],
                        const unsigned char *input, unsigned char *output);
int tb_sw_aes_crypt_ctr(struct tb_sw_aes_context *ctx, size_t length, size_t *nc_off,
                        unsigned char nonce_counter[16], unsigned char stream_block[16],
                        const unsigned char *input, unsigned char *output);

#endif
