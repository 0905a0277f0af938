/* Mbed TLS 3.6's alternative GCM (MBEDTLS_GCM_ALT, profile "hw") for a CRYP
 * with a GCM mode (RM0090's STM32F43x: platform/cortexm/hwcrypto.h): what a
 * product's GCM driver does, phase by phase, with the same register
 * traffic as wolfSSL's GCM callback (adapters/wolfssl/hw.c), so both
 * libraries are charged the same accelerator figures.
 *
 * A message runs on the GCM mode when the board profile declares one, the
 * key is AES-128 and the IV 96 bits (what the CRYP takes as its counter
 * block): starts() writes the mode, key and IV registers and rings the init
 * phase's doorbell (the hash subkey); the associated data goes to DIN a
 * word at a time, a header doorbell per 16-byte block; the payload the
 * same with the payload doorbell, a poll and 4 DOUT reads per block;
 * finish() writes the block of lengths and reads the tag. A block split
 * across calls waits in the context until it is whole (the CRYP takes
 * whole blocks but the last). The results come from Mbed TLS's own GCM on
 * the same state (the stand-in, hw/standin_gcm.h), run between
 * tb_hw_standin_begin() and tb_hw_standin_end(): the model leaves its
 * instructions out, those of the ECB driver (hw.c) its block cipher calls
 * among them (the bounds nest).
 *
 * Any other message (no GCM mode on the board, another key or IV size) is
 * Mbed TLS's own GCM, counted, its block cipher on MBEDTLS_AES_ALT (hw.c:
 * the CRYP's ECB where the board declares one, GHASH in software). */
#include "mbedtls/build_info.h"

#include "hwcrypto.h"
#include "mbedtls/constant_time.h"
#include "mbedtls/gcm.h"
#include "mbedtls/platform_util.h"

#include <string.h>

#if !defined(MBEDTLS_GCM_ALT)
#error "adapters/mbedtls/hw_gcm.c is the build profile hw's: MBEDTLS_GCM_ALT"
#endif

#define SW_GCM(ctx) ((struct tb_sw_gcm_context *)(void *)(ctx)->sw)
#define AES_BLOCK 16u
#define AES_KEY_BYTES 16u /* the accelerators' figures are AES-128's */
#define CRYP_IV_BYTES 12u /* the CRYP's counter block: a 96-bit IV and the counter */
/* CRYP_CR: ALGOMODE GCM, ALGODIR for decryption (as wolfSSL's driver) */
#define CR_GCM 0x80000u
#define CR_DECRYPT 0x04u

enum { PHASE_SOFTWARE, PHASE_HEADER, PHASE_PAYLOAD };

static int twice(void)
{
    return (tb_hw_available() & TB_HW_TEST_STANDIN_TWICE) != 0;
}

/* n bytes to DIN, the doorbell (and, for payload, 4 DOUT reads) per whole block; a split block waits */
static void feed(mbedtls_gcm_context *ctx, const unsigned char *in, size_t n, int out, void (*doorbell)(void))
{
    if (ctx->partial_len) {
        size_t take = AES_BLOCK - ctx->partial_len < n ? AES_BLOCK - ctx->partial_len : n;
        memcpy(ctx->partial + ctx->partial_len, in, take);
        ctx->partial_len += (uint32_t)take;
        in += take;
        n -= take;
        if (ctx->partial_len < AES_BLOCK) return;
        tb_hw_aes_blocks(ctx->partial, AES_BLOCK, out, doorbell);
        ctx->partial_len = 0;
    }
    size_t whole = n - n % AES_BLOCK;
    if (whole) tb_hw_aes_blocks(in, (uint32_t)whole, out, doorbell);
    memcpy(ctx->partial, in + whole, n - whole);
    ctx->partial_len = (uint32_t)(n - whole);
}

/* the phase's last, short block */
static void flush(mbedtls_gcm_context *ctx, int out, void (*doorbell)(void))
{
    if (ctx->partial_len) tb_hw_aes_blocks(ctx->partial, ctx->partial_len, out, doorbell);
    ctx->partial_len = 0;
}

void mbedtls_gcm_init(mbedtls_gcm_context *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    tb_sw_gcm_init(SW_GCM(ctx));
}

void mbedtls_gcm_free(mbedtls_gcm_context *ctx)
{
    if (ctx == NULL) return;
    tb_sw_gcm_free(SW_GCM(ctx));
    mbedtls_platform_zeroize(ctx, sizeof(*ctx));
}

/* With a GCM mode for this key, the software's key schedule and GHASH tables are the stand-in's: the
 * CRYP computes its hash subkey in each message's init phase. */
int mbedtls_gcm_setkey(mbedtls_gcm_context *ctx, mbedtls_cipher_id_t cipher, const unsigned char *key,
                       unsigned int keybits)
{
    int accelerated = cipher == MBEDTLS_CIPHER_ID_AES && keybits == 8u * AES_KEY_BYTES &&
                      (tb_hw_available() & TB_HW_AES_GCM);
    ctx->key_bytes = 0;
    if (!accelerated) return tb_sw_gcm_setkey(SW_GCM(ctx), cipher, key, keybits);
    tb_hw_standin_begin();
    if (twice()) (void)tb_sw_gcm_setkey(SW_GCM(ctx), cipher, key, keybits); /* the second replaces it */
    int ret = tb_sw_gcm_setkey(SW_GCM(ctx), cipher, key, keybits);
    tb_hw_standin_end();
    tb_mbedtls_hw_aes_key_replaced(); /* the stand-in's block cipher went through the ECB driver */
    if (ret != 0) return ret;
    memcpy(ctx->key, key, AES_KEY_BYTES);
    ctx->key_bytes = AES_KEY_BYTES;
    return 0;
}

int mbedtls_gcm_starts(mbedtls_gcm_context *ctx, int mode, const unsigned char *iv, size_t iv_len)
{
    ctx->phase = PHASE_SOFTWARE;
    if (ctx->key_bytes != AES_KEY_BYTES || iv_len != CRYP_IV_BYTES) return tb_sw_gcm_starts(SW_GCM(ctx), mode, iv, iv_len);
    tb_hw_standin_begin();
    if (twice()) {
        mbedtls_gcm_context copy = *ctx;
        (void)tb_sw_gcm_starts(SW_GCM(&copy), mode, iv, iv_len);
    }
    int ret = tb_sw_gcm_starts(SW_GCM(ctx), mode, iv, iv_len);
    tb_hw_standin_end();
    tb_mbedtls_hw_aes_key_replaced(); /* the GCM key is the registers' now */
    if (ret != 0) return ret;
    ctx->phase = PHASE_HEADER;
    ctx->partial_len = 0;
    ctx->ad_len = ctx->len = 0;
    /* the init phase: mode, key and IV registers, its doorbell (the CRYP computes the hash subkey) */
    tb_hw_aes_setup(mode == MBEDTLS_GCM_ENCRYPT ? CR_GCM : CR_GCM | CR_DECRYPT, ctx->key, AES_KEY_BYTES, iv,
                    CRYP_IV_BYTES, tb_hw_setup_aes_gcm);
    return 0;
}

int mbedtls_gcm_update_ad(mbedtls_gcm_context *ctx, const unsigned char *add, size_t add_len)
{
    if (ctx->phase == PHASE_SOFTWARE) return tb_sw_gcm_update_ad(SW_GCM(ctx), add, add_len);
    tb_hw_standin_begin();
    if (twice()) {
        mbedtls_gcm_context copy = *ctx;
        (void)tb_sw_gcm_update_ad(SW_GCM(&copy), add, add_len);
    }
    int ret = tb_sw_gcm_update_ad(SW_GCM(ctx), add, add_len);
    tb_hw_standin_end();
    if (ret != 0) return ret; /* the stand-in's checks: associated data after the payload, too long */
    ctx->ad_len += add_len;
    if (add_len) feed(ctx, add, add_len, 0, tb_hw_header_aes_gcm);
    return 0;
}

int mbedtls_gcm_update(mbedtls_gcm_context *ctx, const unsigned char *input, size_t input_length,
                       unsigned char *output, size_t output_size, size_t *output_length)
{
    if (ctx->phase == PHASE_SOFTWARE) {
        return tb_sw_gcm_update(SW_GCM(ctx), input, input_length, output, output_size, output_length);
    }
    tb_hw_standin_begin();
    if (twice()) { /* block by block into a scratch block: the input may be the output */
        mbedtls_gcm_context copy = *ctx;
        unsigned char scratch[AES_BLOCK];
        size_t done;
        for (size_t off = 0; off < input_length; off += AES_BLOCK) {
            size_t n = input_length - off < AES_BLOCK ? input_length - off : AES_BLOCK;
            (void)tb_sw_gcm_update(SW_GCM(&copy), input + off, n, scratch, sizeof(scratch), &done);
        }
    }
    int ret = tb_sw_gcm_update(SW_GCM(ctx), input, input_length, output, output_size, output_length);
    tb_hw_standin_end();
    tb_mbedtls_hw_aes_key_replaced(); /* its counter blocks went through the ECB driver */
    if (ret != 0) return ret;
    if (ctx->phase == PHASE_HEADER) { /* the header phase ends with its short block */
        flush(ctx, 0, tb_hw_header_aes_gcm);
        ctx->phase = PHASE_PAYLOAD;
    }
    ctx->len += input_length;
    if (input_length) feed(ctx, input == output ? output : input, input_length, 1, tb_hw_block_aes_gcm);
    return 0;
}

int mbedtls_gcm_finish(mbedtls_gcm_context *ctx, unsigned char *output, size_t output_size, size_t *output_length,
                       unsigned char *tag, size_t tag_len)
{
    if (ctx->phase == PHASE_SOFTWARE) {
        return tb_sw_gcm_finish(SW_GCM(ctx), output, output_size, output_length, tag, tag_len);
    }
    tb_hw_standin_begin();
    if (twice()) {
        mbedtls_gcm_context copy = *ctx;
        unsigned char scratch[AES_BLOCK];
        size_t done;
        (void)tb_sw_gcm_finish(SW_GCM(&copy), output, output_size, &done, scratch, tag_len);
    }
    int ret = tb_sw_gcm_finish(SW_GCM(ctx), output, output_size, output_length, tag, tag_len);
    tb_hw_standin_end();
    tb_mbedtls_hw_aes_key_replaced();
    if (ret != 0) return ret;
    flush(ctx, ctx->phase == PHASE_PAYLOAD, ctx->phase == PHASE_PAYLOAD ? tb_hw_block_aes_gcm : tb_hw_header_aes_gcm);
    ctx->phase = PHASE_SOFTWARE;
    /* the final phase: the block of lengths in bits (64-bit, big-endian on the chip), the tag out */
    uint32_t lengths[4] = {0, (uint32_t)(ctx->ad_len * 8u), 0, (uint32_t)(ctx->len * 8u)};
    tb_hw_aes_blocks((const uint8_t *)lengths, sizeof(lengths), 1, tb_hw_block_aes_gcm);
    return 0;
}

/* The one-shot calls, as Mbed TLS's gcm.c composes them. */
int mbedtls_gcm_crypt_and_tag(mbedtls_gcm_context *ctx, int mode, size_t length, const unsigned char *iv,
                              size_t iv_len, const unsigned char *add, size_t add_len, const unsigned char *input,
                              unsigned char *output, size_t tag_len, unsigned char *tag)
{
    size_t olen;
    int ret = mbedtls_gcm_starts(ctx, mode, iv, iv_len);
    if (ret == 0) ret = mbedtls_gcm_update_ad(ctx, add, add_len);
    if (ret == 0) ret = mbedtls_gcm_update(ctx, input, length, output, length, &olen);
    if (ret == 0) ret = mbedtls_gcm_finish(ctx, NULL, 0, &olen, tag, tag_len);
    return ret;
}

int mbedtls_gcm_auth_decrypt(mbedtls_gcm_context *ctx, size_t length, const unsigned char *iv, size_t iv_len,
                             const unsigned char *add, size_t add_len, const unsigned char *tag, size_t tag_len,
                             const unsigned char *input, unsigned char *output)
{
    unsigned char check_tag[16];
    int ret = mbedtls_gcm_crypt_and_tag(ctx, MBEDTLS_GCM_DECRYPT, length, iv, iv_len, add, add_len, input, output,
                                        tag_len, check_tag);
    if (ret != 0) return ret;
    if (mbedtls_ct_memcmp(tag, check_tag, tag_len) != 0) { /* the tag compared by the driver, counted */
        mbedtls_platform_zeroize(output, length);
        return MBEDTLS_ERR_GCM_AUTH_FAILED;
    }
    return 0;
}
