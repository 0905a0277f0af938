/* Mbed TLS 3.6's alternative implementations (MBEDTLS_SHA1_ALT,
 * MBEDTLS_SHA256_ALT, MBEDTLS_AES_ALT; profile "hw") for a crypto
 * peripheral (platform/cortexm/hwcrypto.h): what a product's _ALT driver
 * does, register by register, on the cycle model's peripheral-shaped block,
 * with the same register traffic as wolfSSL's crypto callbacks
 * (adapters/wolfssl/hw.c), so both libraries are charged the same
 * accelerator figures.
 *
 * Each result comes from Mbed TLS's own software code on the same state
 * (the stand-in, hw/standin.h), run between tb_hw_standin_begin() and
 * tb_hw_standin_end(): the model leaves its instructions out. Then the
 * driver does the peripheral's traffic: a hash's data words to DIN and a
 * doorbell per 512-bit block, the final's DCAL, padding block(s) and
 * digest reads; an AES-CBC call's mode, key and IV registers and set-up
 * doorbell, then per block 4 DIN writes, the doorbell, a poll, 4 DOUT
 * reads. AES-ECB (CTR_DRBG's block cipher, and GCM's on a CRYP without a
 * GCM mode: hw_gcm.c) loads the key only when the registers hold another
 * context's.
 *
 * What the board profile does not declare (tb_hw_available()), SHA-224
 * and AES keys other than 128 bits run in the stand-in's code as plain
 * software, counted. */
#include "mbedtls/build_info.h"

#include "hwcrypto.h"
#include "mbedtls/aes.h"
#include "mbedtls/gcm.h"
#include "mbedtls/platform_util.h"
#include "mbedtls/sha1.h"
#include "mbedtls/sha256.h"

#include <string.h>

#if !defined(MBEDTLS_AES_ALT) || !defined(MBEDTLS_SHA1_ALT) || !defined(MBEDTLS_SHA256_ALT)
#error "adapters/mbedtls/hw.c is the build profile hw's: MBEDTLS_AES_ALT, MBEDTLS_SHA1_ALT and MBEDTLS_SHA256_ALT"
#endif

#define SW_SHA1(ctx) ((struct tb_sw_sha1_context *)(void *)(ctx)->sw)
#define SW_SHA256(ctx) ((struct tb_sw_sha256_context *)(void *)(ctx)->sw)
#define SW_AES(ctx) ((struct tb_sw_aes_context *)(void *)(ctx)->sw)
#define HASH_BLOCK 64u
#define AES_KEY_BYTES 16u /* the accelerators' figures are AES-128's */

static int have(uint32_t accelerator)
{
    return (tb_hw_available() & accelerator) != 0;
}

/* TB_HW_TEST_STANDIN_TWICE: the stand-in's work once more, on copies (hwcrypto.h) */
static int twice(void)
{
    return have(TB_HW_TEST_STANDIN_TWICE);
}

/* ---- SHA-1 ---- */

void mbedtls_sha1_init(mbedtls_sha1_context *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    tb_sw_sha1_init(SW_SHA1(ctx));
}

void mbedtls_sha1_free(mbedtls_sha1_context *ctx)
{
    if (ctx == NULL) return;
    tb_sw_sha1_free(SW_SHA1(ctx));
    mbedtls_platform_zeroize(ctx, sizeof(*ctx));
}

void mbedtls_sha1_clone(mbedtls_sha1_context *dst, const mbedtls_sha1_context *src)
{
    *dst = *src;
}

int mbedtls_sha1_starts(mbedtls_sha1_context *ctx)
{
    ctx->pending = 0;
    return tb_sw_sha1_starts(SW_SHA1(ctx));
}

int mbedtls_internal_sha1_process(mbedtls_sha1_context *ctx, const unsigned char data[64])
{
    return tb_sw_internal_sha1_process(SW_SHA1(ctx), data); /* one raw block, outside any message: software */
}

int mbedtls_sha1_update(mbedtls_sha1_context *ctx, const unsigned char *input, size_t ilen)
{
    uint32_t pending = ctx->pending;
    ctx->pending = (uint32_t)((pending + ilen) % HASH_BLOCK);
    if (!have(TB_HW_SHA1)) return tb_sw_sha1_update(SW_SHA1(ctx), input, ilen);
    tb_hw_standin_begin();
    if (twice()) {
        mbedtls_sha1_context copy = *ctx;
        (void)tb_sw_sha1_update(SW_SHA1(&copy), input, ilen);
    }
    int ret = tb_sw_sha1_update(SW_SHA1(ctx), input, ilen);
    tb_hw_standin_end();
    if (ret != 0) return ret;
    if (ilen) tb_hw_hash_update(input, (uint32_t)ilen, pending, tb_hw_block_sha1);
    return 0;
}

int mbedtls_sha1_finish(mbedtls_sha1_context *ctx, unsigned char output[20])
{
    if (!have(TB_HW_SHA1)) return tb_sw_sha1_finish(SW_SHA1(ctx), output);
    unsigned char digest[20];
    tb_hw_standin_begin();
    if (twice()) {
        mbedtls_sha1_context copy = *ctx;
        (void)tb_sw_sha1_finish(SW_SHA1(&copy), digest);
    }
    int ret = tb_sw_sha1_finish(SW_SHA1(ctx), digest);
    if (ret == 0) tb_hw_to_digest_registers(digest, sizeof(digest));
    tb_hw_standin_end();
    if (ret != 0) return ret;
    tb_hw_hash_final(ctx->pending, output, sizeof(digest), tb_hw_setup_sha1, tb_hw_block_sha1);
    return 0;
}

/* ---- SHA-256 (SHA-224 shares the context: software) ---- */

void mbedtls_sha256_init(mbedtls_sha256_context *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    tb_sw_sha256_init(SW_SHA256(ctx));
}

void mbedtls_sha256_free(mbedtls_sha256_context *ctx)
{
    if (ctx == NULL) return;
    tb_sw_sha256_free(SW_SHA256(ctx));
    mbedtls_platform_zeroize(ctx, sizeof(*ctx));
}

void mbedtls_sha256_clone(mbedtls_sha256_context *dst, const mbedtls_sha256_context *src)
{
    *dst = *src;
}

int mbedtls_sha256_starts(mbedtls_sha256_context *ctx, int is224)
{
    ctx->pending = 0;
    ctx->is224 = is224;
    return tb_sw_sha256_starts(SW_SHA256(ctx), is224);
}

int mbedtls_internal_sha256_process(mbedtls_sha256_context *ctx, const unsigned char data[64])
{
    return tb_sw_internal_sha256_process(SW_SHA256(ctx), data);
}

int mbedtls_sha256_update(mbedtls_sha256_context *ctx, const unsigned char *input, size_t ilen)
{
    uint32_t pending = ctx->pending;
    ctx->pending = (uint32_t)((pending + ilen) % HASH_BLOCK);
    if (ctx->is224 || !have(TB_HW_SHA256)) return tb_sw_sha256_update(SW_SHA256(ctx), input, ilen);
    tb_hw_standin_begin();
    if (twice()) {
        mbedtls_sha256_context copy = *ctx;
        (void)tb_sw_sha256_update(SW_SHA256(&copy), input, ilen);
    }
    int ret = tb_sw_sha256_update(SW_SHA256(ctx), input, ilen);
    tb_hw_standin_end();
    if (ret != 0) return ret;
    if (ilen) tb_hw_hash_update(input, (uint32_t)ilen, pending, tb_hw_block_sha256);
    return 0;
}

int mbedtls_sha256_finish(mbedtls_sha256_context *ctx, unsigned char *output)
{
    if (ctx->is224 || !have(TB_HW_SHA256)) return tb_sw_sha256_finish(SW_SHA256(ctx), output);
    unsigned char digest[32];
    tb_hw_standin_begin();
    if (twice()) {
        mbedtls_sha256_context copy = *ctx;
        (void)tb_sw_sha256_finish(SW_SHA256(&copy), digest);
    }
    int ret = tb_sw_sha256_finish(SW_SHA256(ctx), digest);
    if (ret == 0) tb_hw_to_digest_registers(digest, sizeof(digest));
    tb_hw_standin_end();
    if (ret != 0) return ret;
    tb_hw_hash_final(ctx->pending, output, sizeof(digest), tb_hw_setup_sha256, tb_hw_block_sha256);
    return 0;
}

/* ---- AES ---- */

/* CRYP_CR's mode (ALGOMODE, and ALGODIR for decryption) */
#define CR_ECB 0x20u
#define CR_CBC 0x28u
#define CR_DECRYPT 0x04u

/* whose key, in which ECB direction, the key registers hold (NULL: none, or a CBC call's) */
static const mbedtls_aes_context *loaded;
static uint32_t loaded_cr;

void tb_mbedtls_hw_aes_key_replaced(void)
{
    loaded = NULL;
}

static int aes_on_peripheral(const mbedtls_aes_context *ctx, uint32_t accelerator)
{
    return ctx->key_bytes == AES_KEY_BYTES && have(accelerator);
}

void mbedtls_aes_init(mbedtls_aes_context *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    tb_sw_aes_init(SW_AES(ctx));
}

void mbedtls_aes_free(mbedtls_aes_context *ctx)
{
    if (ctx == NULL) return;
    if (loaded == ctx) loaded = NULL;
    tb_sw_aes_free(SW_AES(ctx));
    mbedtls_platform_zeroize(ctx, sizeof(*ctx));
}

/* The peripheral takes the key as it is: with one declared, the software
 * key schedule is the stand-in's. */
static int aes_setkey(mbedtls_aes_context *ctx, const unsigned char *key, unsigned int keybits, int decrypt)
{
    int accelerated = keybits == 8u * AES_KEY_BYTES && have(TB_HW_AES_ECB | TB_HW_AES_CBC);
    if (accelerated) tb_hw_standin_begin();
    if (accelerated && twice()) (void)tb_sw_aes_setkey_enc(SW_AES(ctx), key, keybits);
    int ret = decrypt ? tb_sw_aes_setkey_dec(SW_AES(ctx), key, keybits) : tb_sw_aes_setkey_enc(SW_AES(ctx), key, keybits);
    if (accelerated) tb_hw_standin_end();
    if (ret != 0) return ret;
    if (loaded == ctx) loaded = NULL;
    memcpy(ctx->key, key, keybits / 8u);
    ctx->key_bytes = keybits / 8u;
    return 0;
}

int mbedtls_aes_setkey_enc(mbedtls_aes_context *ctx, const unsigned char *key, unsigned int keybits)
{
    return aes_setkey(ctx, key, keybits, 0);
}

#if !defined(MBEDTLS_BLOCK_CIPHER_NO_DECRYPT)
int mbedtls_aes_setkey_dec(mbedtls_aes_context *ctx, const unsigned char *key, unsigned int keybits)
{
    return aes_setkey(ctx, key, keybits, 1);
}

int mbedtls_internal_aes_decrypt(mbedtls_aes_context *ctx, const unsigned char input[16], unsigned char output[16])
{
    return tb_sw_internal_aes_decrypt(SW_AES(ctx), input, output);
}
#endif

int mbedtls_internal_aes_encrypt(mbedtls_aes_context *ctx, const unsigned char input[16], unsigned char output[16])
{
    return tb_sw_internal_aes_encrypt(SW_AES(ctx), input, output);
}

int mbedtls_aes_crypt_ecb(mbedtls_aes_context *ctx, int mode, const unsigned char input[16], unsigned char output[16])
{
    if (!aes_on_peripheral(ctx, TB_HW_AES_ECB)) return tb_sw_aes_crypt_ecb(SW_AES(ctx), mode, input, output);
    tb_hw_standin_begin();
    if (twice()) {
        unsigned char scratch[16];
        (void)tb_sw_aes_crypt_ecb(SW_AES(ctx), mode, input, scratch);
    }
    int ret = tb_sw_aes_crypt_ecb(SW_AES(ctx), mode, input, output);
    tb_hw_standin_end();
    if (ret != 0) return ret;
    uint32_t cr = mode == MBEDTLS_AES_ENCRYPT ? CR_ECB : CR_ECB | CR_DECRYPT;
    if (loaded != ctx || loaded_cr != cr) {
        tb_hw_aes_setup(cr, ctx->key, AES_KEY_BYTES, NULL, 0, tb_hw_setup_aes_ecb);
        loaded = ctx;
        loaded_cr = cr;
    }
    tb_hw_aes_blocks(input == output ? output : input, 16u, 1, tb_hw_block_aes_ecb);
    return 0;
}

#if defined(MBEDTLS_CIPHER_MODE_CBC)
int mbedtls_aes_crypt_cbc(mbedtls_aes_context *ctx, int mode, size_t length, unsigned char iv[16],
                          const unsigned char *input, unsigned char *output)
{
    if (!aes_on_peripheral(ctx, TB_HW_AES_CBC)) {
        return tb_sw_aes_crypt_cbc(SW_AES(ctx), mode, length, iv, input, output);
    }
    unsigned char chain[16];
    memcpy(chain, iv, sizeof(chain)); /* the chaining value the IV registers start from */
    tb_hw_standin_begin();
    if (twice()) { /* block by block into a scratch block: the input may be the output */
        unsigned char v[16], scratch[16];
        memcpy(v, iv, sizeof(v));
        for (size_t off = 0; off + 16u <= length; off += 16u) {
            (void)tb_sw_aes_crypt_cbc(SW_AES(ctx), mode, 16u, v, input + off, scratch);
        }
    }
    int ret = tb_sw_aes_crypt_cbc(SW_AES(ctx), mode, length, iv, input, output);
    tb_hw_standin_end();
    if (ret != 0) return ret;
    loaded = NULL;
    tb_hw_aes_setup(mode == MBEDTLS_AES_ENCRYPT ? CR_CBC : CR_CBC | CR_DECRYPT, ctx->key, AES_KEY_BYTES, chain,
                    sizeof(chain), tb_hw_setup_aes_cbc);
    tb_hw_aes_blocks(input == output ? output : input, (uint32_t)length, 1, tb_hw_block_aes_cbc);
    return 0;
}
#endif

/* The modes no accelerator declares: Mbed TLS's software, counted. */
#if defined(MBEDTLS_CIPHER_MODE_CFB)
int mbedtls_aes_crypt_cfb128(mbedtls_aes_context *ctx, int mode, size_t length, size_t *iv_off, unsigned char iv[16],
                             const unsigned char *input, unsigned char *output)
{
    return tb_sw_aes_crypt_cfb128(SW_AES(ctx), mode, length, iv_off, iv, input, output);
}

int mbedtls_aes_crypt_cfb8(mbedtls_aes_context *ctx, int mode, size_t length, unsigned char iv[16],
                           const unsigned char *input, unsigned char *output)
{
    return tb_sw_aes_crypt_cfb8(SW_AES(ctx), mode, length, iv, input, output);
}
#endif

#if defined(MBEDTLS_CIPHER_MODE_OFB)
int mbedtls_aes_crypt_ofb(mbedtls_aes_context *ctx, size_t length, size_t *iv_off, unsigned char iv[16],
                          const unsigned char *input, unsigned char *output)
{
    return tb_sw_aes_crypt_ofb(SW_AES(ctx), length, iv_off, iv, input, output);
}
#endif

#if defined(MBEDTLS_CIPHER_MODE_CTR)
int mbedtls_aes_crypt_ctr(mbedtls_aes_context *ctx, size_t length, size_t *nc_off, unsigned char nonce_counter[16],
                          unsigned char stream_block[16], const unsigned char *input, unsigned char *output)
{
    return tb_sw_aes_crypt_ctr(SW_AES(ctx), length, nc_off, nonce_counter, stream_block, input, output);
}
#endif
