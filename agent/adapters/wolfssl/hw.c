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
#include <wolfssl/wolfcrypt/ecc.h>
#include <wolfssl/wolfcrypt/random.h>
#include <wolfssl/wolfcrypt/rsa.h>
#include <wolfssl/wolfcrypt/wolfmath.h>
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

/* ---- ECDSA P-256 on a public-key accelerator (the STM32 PKA) ----
 *
 * Per operation the driver loads the PKA RAM with the operands RM0456 lists
 * for ECDSA sign (the curve's lengths, a's sign and |a|, b, p, the random k,
 * G, the hash, the private key d, the order n) or verify (the same curve
 * figures, the public key Q, r, s, the hash), one word a store, writes the
 * mode and START, rings the operation's doorbell, polls and reads the result
 * back: sign's r and s (which it encodes as wolfCrypt's DER signature),
 * verify's verdict. The random k, the key's export and the DER coding are
 * the driver's own, counted. The result is wolfCrypt's own software ECDSA on
 * the same key (the stand-in, excluded), left in the PKA RAM. The curve's
 * operands and the RAM's slots are shared with Mbed TLS's driver (hwcrypto.h). */

#define P256_BYTES TB_P256_BYTES

static int hw_ecdsa_sign(const uint8_t *hash, uint32_t hash_len, uint8_t *out, word32 *out_len, WC_RNG *rng,
                         ecc_key *key)
{
    uint8_t k[P256_BYTES], d[P256_BYTES], r[P256_BYTES], s[P256_BYTES];
    word32 d_len = sizeof(d), cap = *out_len;
    int ret = wc_RNG_GenerateBlock(rng, k, sizeof(k)); /* the driver's random k (its 0 < k < n check is not modelled) */
    if (ret == 0) ret = wc_ecc_export_private_only(key, d, &d_len);
    if (ret != 0) return ret;
    tb_pka_load_p256_curve(hash, hash_len);
    tb_pka_load_p256_b();
    tb_pka_load(TB_PKA_AT(TB_PKA_K), k, sizeof(k));
    tb_pka_load(TB_PKA_AT(TB_PKA_D), d, d_len);

    int dev = key->devId;
    key->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software ECDSA, excluded by the model */
    tb_hw_standin_begin();
    word32 r_len = sizeof(r), s_len = sizeof(s);
    ret = wc_ecc_sign_hash(hash, hash_len, out, out_len, rng, key);
    if (ret == 0 && (tb_hw_available() & TB_HW_TEST_STANDIN_TWICE)) { /* the test's switch: once more, a copy */
        uint8_t again[2u * P256_BYTES + 16u];
        word32 again_len = sizeof(again);
        ret = wc_ecc_sign_hash(hash, hash_len, again, &again_len, rng, key);
    }
    if (ret == 0) ret = wc_ecc_sig_to_rs(out, *out_len, r, &r_len, s, &s_len);
    if (ret == 0) {
        tb_pka_load_word(TB_PKA_AT(TB_PKA_OUT), 0u); /* no error */
        uint8_t wide[P256_BYTES] = {0};
        memcpy(wide + P256_BYTES - r_len, r, r_len);
        tb_pka_store(TB_PKA_AT(TB_PKA_R), wide, P256_BYTES);
        memset(wide, 0, sizeof(wide));
        memcpy(wide + P256_BYTES - s_len, s, s_len);
        tb_pka_store(TB_PKA_AT(TB_PKA_S), wide, P256_BYTES);
    }
    tb_hw_standin_end();
    key->devId = dev;
    if (ret != 0) return ret;

    tb_pka_run(TB_PKA_MODE_ECDSA_SIGN, tb_hw_op_ecdsa_p256_sign);
    if (tb_pka.ram[TB_PKA_AT(TB_PKA_OUT)] != 0u) return WC_HW_E; /* the PKA's error word */
    tb_pka_read(TB_PKA_AT(TB_PKA_R), r, P256_BYTES);
    tb_pka_read(TB_PKA_AT(TB_PKA_S), s, P256_BYTES);
    *out_len = cap;
    return wc_ecc_rs_raw_to_sig(r, P256_BYTES, s, P256_BYTES, out, out_len);
}

static int hw_ecdsa_verify(const uint8_t *sig, uint32_t sig_len, const uint8_t *hash, uint32_t hash_len, int *res,
                           ecc_key *key)
{
    uint8_t r[P256_BYTES], s[P256_BYTES], qx[P256_BYTES], qy[P256_BYTES];
    word32 r_len = sizeof(r), s_len = sizeof(s), qx_len = sizeof(qx), qy_len = sizeof(qy);
    int ret = wc_ecc_sig_to_rs(sig, sig_len, r, &r_len, s, &s_len);
    if (ret == 0) ret = wc_ecc_export_public_raw(key, qx, &qx_len, qy, &qy_len);
    if (ret != 0) return ret;
    tb_pka_load_p256_curve(hash, hash_len);
    tb_pka_load(TB_PKA_AT(TB_PKA_QX), qx, qx_len);
    tb_pka_load(TB_PKA_AT(TB_PKA_QY), qy, qy_len);
    tb_pka_load(TB_PKA_AT(TB_PKA_R), r, r_len);
    tb_pka_load(TB_PKA_AT(TB_PKA_S), s, s_len);

    int dev = key->devId, valid = 0;
    key->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software ECDSA, excluded by the model */
    tb_hw_standin_begin();
    ret = wc_ecc_verify_hash(sig, sig_len, hash, hash_len, &valid, key);
    if (ret == 0 && (tb_hw_available() & TB_HW_TEST_STANDIN_TWICE)) { /* the test's switch: once more */
        int again = 0;
        ret = wc_ecc_verify_hash(sig, sig_len, hash, hash_len, &again, key);
    }
    if (ret == 0) tb_pka_load_word(TB_PKA_AT(TB_PKA_OUT), valid == 1 ? TB_PKA_VERIFY_VALID : 0u);
    tb_hw_standin_end();
    key->devId = dev;
    if (ret != 0) return ret;

    tb_pka_run(TB_PKA_MODE_ECDSA_VERIFY, tb_hw_op_ecdsa_p256_verify);
    *res = tb_pka.ram[TB_PKA_AT(TB_PKA_OUT)] == TB_PKA_VERIFY_VALID;
    return 0;
}

/* ECDH P-256 (keygen and derive): one ECC scalar multiplication on the PKA.
 * Per operation the driver loads the curve, the scalar (the private key, or
 * for a new key pair a random one it draws) and the point (G, or the peer's
 * public key), starts it, polls and reads the resulting point back (derive:
 * its x is the shared secret). The key pair and the secret are wolfCrypt's
 * own (the stand-in). */

static void pka_ecc_mul(const uint8_t *scalar, word32 scalar_len, const uint8_t *x, word32 x_len, const uint8_t *y,
                        word32 y_len, uint8_t *out_x, uint8_t *out_y)
{
    tb_pka_load_p256_curve(NULL, 0);
    tb_pka_load_p256_b();
    tb_pka_load(TB_PKA_AT(TB_PKA_K), scalar, scalar_len);
    tb_pka_load(TB_PKA_AT(TB_PKA_QX), x, x_len);
    tb_pka_load(TB_PKA_AT(TB_PKA_QY), y, y_len);
    tb_pka_run(TB_PKA_MODE_ECC_MUL, tb_hw_op_ecc_p256_mul);
    tb_pka_read(TB_PKA_AT(TB_PKA_R), out_x, P256_BYTES);
    tb_pka_read(TB_PKA_AT(TB_PKA_S), out_y, P256_BYTES);
}

/* the stand-in's point, left where the PKA leaves its result */
static void pka_store_point(const uint8_t *x, const uint8_t *y)
{
    tb_pka_store(TB_PKA_AT(TB_PKA_R), x, P256_BYTES);
    tb_pka_store(TB_PKA_AT(TB_PKA_S), y, P256_BYTES);
}

static int hw_ecc_keygen(WC_RNG *rng, int size, ecc_key *key, int curve_id)
{
    uint8_t d[P256_BYTES], x[P256_BYTES], y[P256_BYTES];
    int ret = wc_RNG_GenerateBlock(rng, d, sizeof(d)); /* the driver's random scalar (its range check not modelled) */
    if (ret != 0) return ret;
    int dev = key->devId;
    key->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software key pair, excluded by the model */
    tb_hw_standin_begin();
    ret = wc_ecc_make_key_ex(rng, size, key, curve_id);
    word32 x_len = sizeof(x), y_len = sizeof(y);
    if (ret == 0) ret = wc_ecc_export_public_raw(key, x, &x_len, y, &y_len);
    if (ret == 0) pka_store_point(x, y);
    tb_hw_standin_end();
    key->devId = dev;
    if (ret != 0) return ret;
    pka_ecc_mul(d, sizeof(d), tb_p256_gx, P256_BYTES, tb_p256_gy, P256_BYTES, x, y); /* the public point, k x G */
    return 0;
}

static int hw_ecdh(ecc_key *priv, ecc_key *pub, uint8_t *out, word32 *out_len)
{
    uint8_t d[P256_BYTES], qx[P256_BYTES], qy[P256_BYTES], x[P256_BYTES], y[P256_BYTES];
    word32 d_len = sizeof(d), qx_len = sizeof(qx), qy_len = sizeof(qy);
    if (*out_len < P256_BYTES) return BUFFER_E;
    int ret = wc_ecc_export_private_only(priv, d, &d_len);
    if (ret == 0) ret = wc_ecc_export_public_raw(pub, qx, &qx_len, qy, &qy_len);
    if (ret != 0) return ret;
    int dev = priv->devId;
    priv->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software ECDH, excluded by the model */
    tb_hw_standin_begin();
    word32 len = sizeof(x);
    ret = wc_ecc_shared_secret(priv, pub, x, &len);
    if (ret == 0) {
        memset(y, 0, sizeof(y)); /* only the x coordinate is the secret */
        pka_store_point(x, y);
    }
    tb_hw_standin_end();
    priv->devId = dev;
    if (ret != 0) return ret;
    pka_ecc_mul(d, d_len, qx, qx_len, qy, qy_len, out, y);
    *out_len = P256_BYTES;
    return 0;
}

/* ---- RSA-2048 on the PKA: its modular exponentiation ----
 *
 * wolfCrypt pads and checks; what reaches the callback is the raw
 * exponentiation (wc_RsaFunction). Per operation the driver writes the
 * exponent's and modulus's bit lengths and the operand A, then for the
 * public key the modulus and e (mode 0x00: the PKA computes the Montgomery
 * parameter itself, a driver holding no precomputed one), for the private
 * key the primes p and q, dP, dQ and qInv (mode 0x07, CRT), starts it, polls
 * and reads the 256-byte result. Exporting the key's numbers is the driver's
 * own work, counted. The result is wolfCrypt's own software exponentiation
 * (blinding and its checks included) on the same key (the stand-in,
 * excluded), left in the PKA RAM. */
static int is_rsa_2048(const RsaKey *key)
{
    return key != NULL && wc_RsaEncryptSize(key) == (int)TB_RSA_2048_BYTES;
}

static int pka_load_mp(uint32_t at, const mp_int *x, uint32_t len)
{
    uint8_t be[TB_RSA_2048_BYTES];
    int ret = mp_to_unsigned_bin_len((mp_int *)x, be, (int)len);
    if (ret == 0) tb_pka_load(at, be, len);
    return ret;
}

static int hw_rsa(const uint8_t *in, uint32_t in_len, uint8_t *out, word32 *out_len, int type, RsaKey *key,
                  WC_RNG *rng, int private_key)
{
    const uint32_t half = TB_RSA_2048_BYTES / 2u;
    if (in_len != TB_RSA_2048_BYTES || *out_len < TB_RSA_2048_BYTES) return CRYPTOCB_UNAVAILABLE;
    tb_pka_load_word(TB_RSA_MOD_BITS, 2048u);
    tb_pka_load(TB_RSA_A, in, in_len);
    int ret;
    if (private_key) {
        tb_pka_load_word(TB_RSA_EXP_BITS, 2048u);
        ret = pka_load_mp(TB_RSA_P, &key->p, half);
        if (ret == 0) ret = pka_load_mp(TB_RSA_Q, &key->q, half);
        if (ret == 0) ret = pka_load_mp(TB_RSA_DP, &key->dP, half);
        if (ret == 0) ret = pka_load_mp(TB_RSA_DQ, &key->dQ, half);
        if (ret == 0) ret = pka_load_mp(TB_RSA_QINV, &key->u, half);
    } else {
        tb_pka_load_word(TB_RSA_EXP_BITS, (uint32_t)mp_count_bits(&key->e));
        ret = pka_load_mp(TB_RSA_MOD, &key->n, TB_RSA_2048_BYTES);
        if (ret == 0) ret = pka_load_mp(TB_RSA_EXP, &key->e, 4u);
    }
    if (ret != 0) return ret;

    int dev = key->devId;
    key->devId = INVALID_DEVID; /* the stand-in: wolfCrypt's software RSA, excluded by the model */
    tb_hw_standin_begin();
    word32 len = *out_len;
    ret = wc_RsaFunction(in, in_len, out, &len, type, key, rng);
    if (ret == 0 && (tb_hw_available() & TB_HW_TEST_STANDIN_TWICE)) { /* the test's switch: once more, a copy */
        uint8_t again[TB_RSA_2048_BYTES];
        word32 again_len = sizeof(again);
        ret = wc_RsaFunction(in, in_len, again, &again_len, type, key, rng);
    }
    if (ret == 0) tb_pka_store(TB_RSA_OUT, out, len);
    tb_hw_standin_end();
    key->devId = dev;
    if (ret != 0) return ret;

    tb_pka_run(private_key ? TB_PKA_MODE_RSA_CRT : TB_PKA_MODE_MODEXP,
               private_key ? tb_hw_op_rsa_2048_private : tb_hw_op_rsa_2048_public);
    tb_pka_read(TB_RSA_OUT, out, len);
    *out_len = len;
    return 0;
}

static int is_p256(const ecc_key *key)
{
    return key != NULL && key->dp != NULL && key->dp->id == ECC_SECP256R1;
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
    if (info->algo_type == WC_ALGO_TYPE_PK) {
        if (info->pk.type == WC_PK_TYPE_ECDSA_SIGN && (have & TB_HW_ECDSA_P256_SIGN) && is_p256(info->pk.eccsign.key)) {
            return hw_ecdsa_sign(info->pk.eccsign.in, info->pk.eccsign.inlen, info->pk.eccsign.out,
                                 info->pk.eccsign.outlen, info->pk.eccsign.rng, info->pk.eccsign.key);
        }
        if (info->pk.type == WC_PK_TYPE_ECDSA_VERIFY && (have & TB_HW_ECDSA_P256_VERIFY) &&
            is_p256(info->pk.eccverify.key)) {
            return hw_ecdsa_verify(info->pk.eccverify.sig, info->pk.eccverify.siglen, info->pk.eccverify.hash,
                                   info->pk.eccverify.hashlen, info->pk.eccverify.res, info->pk.eccverify.key);
        }
        if (info->pk.type == WC_PK_TYPE_EC_KEYGEN && (have & TB_HW_ECC_P256_MUL) &&
            info->pk.eckg.curveId == ECC_SECP256R1) {
            return hw_ecc_keygen(info->pk.eckg.rng, info->pk.eckg.size, info->pk.eckg.key, info->pk.eckg.curveId);
        }
        if (info->pk.type == WC_PK_TYPE_ECDH && (have & TB_HW_ECC_P256_MUL) && is_p256(info->pk.ecdh.private_key)) {
            return hw_ecdh(info->pk.ecdh.private_key, info->pk.ecdh.public_key, info->pk.ecdh.out,
                           info->pk.ecdh.outlen);
        }
    }
    if (info->algo_type == WC_ALGO_TYPE_PK && info->pk.type == WC_PK_TYPE_RSA && is_rsa_2048(info->pk.rsa.key)) {
        int private_key = info->pk.rsa.type == RSA_PRIVATE_ENCRYPT || info->pk.rsa.type == RSA_PRIVATE_DECRYPT;
        if (have & (private_key ? TB_HW_RSA_2048_PRIVATE : TB_HW_RSA_2048_PUBLIC)) {
            return hw_rsa(info->pk.rsa.in, info->pk.rsa.inLen, info->pk.rsa.out, info->pk.rsa.outLen,
                          info->pk.rsa.type, info->pk.rsa.key, info->pk.rsa.rng, private_key);
        }
    }
    return CRYPTOCB_UNAVAILABLE; /* the board has no peripheral for it: wolfCrypt's software */
}

int tb_wolfssl_hw_register(void)
{
    return wc_CryptoCb_RegisterDevice(TB_WOLFSSL_HW_DEVID, hw_callback, NULL);
}
#endif
