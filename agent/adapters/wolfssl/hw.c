/* wolfSSL crypto callbacks (WOLF_CRYPTO_CB, profile "hw") for a crypto
 * peripheral (platform/cortexm/hwcrypto.h): what a product's driver does
 * for SHA-1 and SHA-256, register by register, on the cycle model's
 * peripheral-shaped block.
 *
 * AES-CBC and AES-128-GCM: per call, the driver loads the key and IV
 * registers and rings the set-up doorbell; per 16-byte block it writes 4
 * DIN words, rings the block's doorbell, polls, and reads 4 DOUT words
 * (GCM: the AAD blocks first, each on the header doorbell with nothing read
 * back, and a final block of lengths that returns the tag). The
 * output is wolfCrypt's own (the stand-in, in place); the driver's DOUT
 * reads store to tb_hw.sink (hwcrypto.h).
 *
 * Per update, the driver writes every data word to DIN and, for each
 * 512-bit block that completes, rings the block's doorbell and polls the
 * status register; per final, it writes the last word's valid bits and
 * DCAL, rings the doorbell for the padding block(s) and reads the digest
 * registers. The digest itself comes from wolfCrypt's own software code on
 * the same state (the stand-in, its instructions excluded by the model),
 * which leaves it in the digest registers for the driver to read. */
#include "wolfssl_adapter.h"

#if TB_WOLFSSL_HW
#include "hwcrypto.h"

#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/cryptocb.h>
#include <wolfssl/wolfcrypt/sha.h>
#include <wolfssl/wolfcrypt/sha256.h>

#define HASH_BLOCK 64u

static int hw_sha1(wc_Sha *sha, const uint8_t *in, uint32_t n, uint8_t *digest)
{
    uint32_t pending = sha->buffLen;
    uint8_t out[WC_SHA_DIGEST_SIZE];
    int ret = 0, dev = sha->devId;
    sha->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software SHA-1, excluded by the model */
    tb_hw_standin_begin();
    if (in != NULL && n) ret = wc_ShaUpdate(sha, in, n);
    if (ret == 0 && digest != NULL) ret = wc_ShaFinal(sha, out);
    if (ret == 0 && digest != NULL) tb_hw_to_digest_registers(out, sizeof(out));
    tb_hw_standin_end();
    sha->devId = dev;
    if (ret != 0) return ret;
    if (in != NULL && n) tb_hw_hash_update(in, n, pending, tb_hw_block_sha1);
    if (digest != NULL) {
        tb_hw_hash_final((pending + n) % HASH_BLOCK, digest, WC_SHA_DIGEST_SIZE, tb_hw_setup_sha1, tb_hw_block_sha1);
    }
    return 0;
}

static int hw_sha256(wc_Sha256 *sha, const uint8_t *in, uint32_t n, uint8_t *digest)
{
    uint32_t pending = sha->buffLen;
    uint8_t out[WC_SHA256_DIGEST_SIZE];
    int ret = 0, dev = sha->devId;
    sha->devId = INVALID_DEVID;
    tb_hw_standin_begin();
    if (in != NULL && n) ret = wc_Sha256Update(sha, in, n);
    if (ret == 0 && digest != NULL) ret = wc_Sha256Final(sha, out);
    if (ret == 0 && digest != NULL) tb_hw_to_digest_registers(out, sizeof(out));
    tb_hw_standin_end();
    sha->devId = dev;
    if (ret != 0) return ret;
    if (in != NULL && n) tb_hw_hash_update(in, n, pending, tb_hw_block_sha256);
    if (digest != NULL) {
        tb_hw_hash_final((pending + n) % HASH_BLOCK, digest, WC_SHA256_DIGEST_SIZE, tb_hw_setup_sha256,
                      tb_hw_block_sha256);
    }
    return 0;
}

/* ---- AES ---- */

#define AES_BLOCK 16u
#define AES_KEY_BYTES 16 /* the accelerators' figures are AES-128's: other keys stay software */

/* The key registers take the raw key wolfCrypt keeps for a device (devKey). */
static void hw_aes_setup(const Aes *aes, const uint8_t *iv, uint32_t iv_len, uint32_t mode, void (*setup)(void))
{
    tb_hw_aes_setup(mode, (const uint8_t *)aes->devKey, (uint32_t)aes->keylen, iv, iv_len, setup);
}

static int hw_aes_cbc(Aes *aes, uint8_t *out, const uint8_t *in, uint32_t n, int enc)
{
    uint8_t iv[AES_BLOCK];
    memcpy(iv, aes->reg, sizeof(iv)); /* the chaining value the registers start from */
    int ret, dev = aes->devId;
    aes->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software AES-CBC, excluded by the model */
    tb_hw_standin_begin();
    ret = enc ? wc_AesCbcEncrypt(aes, out, in, n) : wc_AesCbcDecrypt(aes, out, in, n);
    tb_hw_standin_end();
    aes->devId = dev;
    if (ret != 0) return ret;
    hw_aes_setup(aes, iv, sizeof(iv), enc ? 0x20u : 0x24u, tb_hw_setup_aes_cbc);
    tb_hw_aes_blocks(in == out ? out : in, n, 1, tb_hw_block_aes_cbc);
    return 0;
}

/* ECB, what wolfCrypt's own GCM hands over (HAVE_AES_ECB: all of a message's counter blocks at once, when
 * the output is not the input) where the CRYP has no GCM mode: the key, the set-up doorbell, then per
 * block 4 DIN writes, the doorbell, a poll and 4 DOUT reads. GHASH, the counters, the XOR, the tag's
 * block and a partial last block stay wolfCrypt's software, counted, as on such a part. */
static int hw_aes_ecb(Aes *aes, uint8_t *out, const uint8_t *in, uint32_t n)
{
    int ret, dev = aes->devId;
    aes->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software AES-ECB, excluded by the model */
    tb_hw_standin_begin();
    ret = wc_AesEcbEncrypt(aes, out, in, n);
    tb_hw_standin_end();
    aes->devId = dev;
    if (ret != 0) return ret;
    hw_aes_setup(aes, NULL, 0, 0x20u, tb_hw_setup_aes_ecb);
    tb_hw_aes_blocks(in == out ? out : in, n, 1, tb_hw_block_aes_ecb);
    return 0;
}

static int hw_aes_gcm(Aes *aes, uint8_t *out, const uint8_t *in, uint32_t n, const uint8_t *iv, uint32_t iv_len,
                      uint8_t *tag_out, const uint8_t *tag_in, uint32_t tag_len, const uint8_t *aad, uint32_t aad_len)
{
    int ret, dev = aes->devId;
    aes->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software AES-GCM, excluded by the model */
    tb_hw_standin_begin();
    ret = tag_out != NULL ? wc_AesGcmEncrypt(aes, out, in, n, iv, iv_len, tag_out, tag_len, aad, aad_len)
                          : wc_AesGcmDecrypt(aes, out, in, n, iv, iv_len, tag_in, tag_len, aad, aad_len);
    tb_hw_standin_end();
    aes->devId = dev;
    /* init phase (the hash key), header phase, payload phase, final phase (lengths in, tag out) */
    hw_aes_setup(aes, iv, iv_len < AES_BLOCK ? iv_len : AES_BLOCK, tag_out != NULL ? 0x80000u : 0x80004u,
                 tb_hw_setup_aes_gcm);
    if (aad_len) tb_hw_aes_blocks(aad, aad_len, 0, tb_hw_header_aes_gcm);
    if (n) tb_hw_aes_blocks(in == out ? out : in, n, 1, tb_hw_block_aes_gcm);
    uint32_t lengths[4] = {0, aad_len * 8u, 0, n * 8u};
    tb_hw_aes_blocks((const uint8_t *)lengths, sizeof(lengths), 1, tb_hw_block_aes_gcm);
    return ret; /* a tag that does not verify is the stand-in's verdict, as the peripheral's would be */
}

static int hw_callback(int devId, wc_CryptoInfo *info, void *ctx)
{
    (void)devId;
    (void)ctx;
    uint32_t have = tb_hw_available();
    if (info->algo_type == WC_ALGO_TYPE_HASH) {
        if (info->hash.type == WC_HASH_TYPE_SHA && (have & TB_HW_SHA1) && info->hash.sha1 != NULL) {
            return hw_sha1(info->hash.sha1, info->hash.in, info->hash.inSz, info->hash.digest);
        }
        if (info->hash.type == WC_HASH_TYPE_SHA256 && (have & TB_HW_SHA256) && info->hash.sha256 != NULL) {
            return hw_sha256(info->hash.sha256, info->hash.in, info->hash.inSz, info->hash.digest);
        }
    }
    if (info->algo_type == WC_ALGO_TYPE_CIPHER) {
        if (info->cipher.type == WC_CIPHER_AES_CBC && (have & TB_HW_AES_CBC)) {
            return hw_aes_cbc(info->cipher.aescbc.aes, info->cipher.aescbc.out, info->cipher.aescbc.in,
                              info->cipher.aescbc.sz, info->cipher.enc);
        }
        if (info->cipher.type == WC_CIPHER_AES_ECB && (have & TB_HW_AES_ECB) && info->cipher.enc &&
            info->cipher.aesecb.aes->keylen == AES_KEY_BYTES) {
            return hw_aes_ecb(info->cipher.aesecb.aes, info->cipher.aesecb.out, info->cipher.aesecb.in,
                              info->cipher.aesecb.sz);
        }
        if (info->cipher.type == WC_CIPHER_AES_GCM && (have & TB_HW_AES_GCM) && info->cipher.enc &&
            info->cipher.aesgcm_enc.aes->keylen == AES_KEY_BYTES) {
            wc_CryptoCb_AesAuthEnc *e = &info->cipher.aesgcm_enc;
            return hw_aes_gcm(e->aes, e->out, e->in, e->sz, e->iv, e->ivSz, e->authTag, NULL, e->authTagSz,
                              e->authIn, e->authInSz);
        }
        if (info->cipher.type == WC_CIPHER_AES_GCM && (have & TB_HW_AES_GCM) && !info->cipher.enc &&
            info->cipher.aesgcm_dec.aes->keylen == AES_KEY_BYTES) {
            wc_CryptoCb_AesAuthDec *d = &info->cipher.aesgcm_dec;
            return hw_aes_gcm(d->aes, d->out, d->in, d->sz, d->iv, d->ivSz, NULL, d->authTag, d->authTagSz,
                              d->authIn, d->authInSz);
        }
    }
    return CRYPTOCB_UNAVAILABLE; /* the board has no peripheral for it: wolfCrypt's software */
}

int tb_wolfssl_hw_register(void)
{
    return wc_CryptoCb_RegisterDevice(TB_WOLFSSL_HW_DEVID, hw_callback, NULL);
}
#endif
