/* wolfSSL adapter: hashes, HMAC, the AEADs, and the primitives the core
 * composes (tb_prim_ops: AES-CBC and HMAC from wolfCrypt, as wolfSSL's own
 * TLS 1.2 record code calls them). */
#include "wolfssl_adapter.h"
#include "tb/util.h"

#include <stdlib.h>

/* ---- hash, HMAC, AEAD ---- */

static tb_status hash_fill(state *s, const tb_job *job)
{
    if (tb_wolfssl_alloc_out(s, WC_MAX_DIGEST_SIZE) != TB_OK) return TB_ERROR;
    if (s->alg->fam == F_HASH) return TB_OK;
    int ret = wc_HmacInit(&s->u.hmac, NULL, TB_WOLFSSL_DEVID);
    if (ret != 0) return lib_fail("wc_HmacInit", ret);
    s->live = 1;
    ret = wc_HmacSetKey(&s->u.hmac, s->alg->hash, job->key.data, (word32)job->key.len);
    return ret == 0 ? TB_OK : lib_fail("wc_HmacSetKey", ret);
}

static tb_status aead_fill(state *s, const tb_job *job)
{
    if (job->rekey) return tb_refuse_rekey();
    const alg_info *a = s->alg;
    size_t n = job->nonce.len, len = job->msg.len;
    int ret;

    if (job->key.len != (size_t)a->size) return bad_len("key", job->key.len, "the cipher's key size");
    if (a->fam == F_GCM && n == 0) return bad_len("nonce", n, "at least 1");
    if (a->fam == F_CCM && (n < 7 || n > 13)) return bad_len("nonce", n, "7 to 13");
#if TB_WOLFSSL_CHACHAPOLY
    if (a->fam == F_CHACHAPOLY && n != CHACHA20_POLY1305_AEAD_IV_SIZE) return bad_len("nonce", n, "12");
#endif
    if (s->op == OP_DEC && len < 16) return bad_len("ciphertext", len, "at least the 16-byte tag");
    if (tb_wolfssl_alloc_out(s, len + 2 * AES_BLOCK_SIZE) != TB_OK) return TB_ERROR;

    switch (a->fam) {
    case F_GCM:
    case F_CCM:
        ret = wc_AesInit(&s->u.aes, NULL, TB_WOLFSSL_DEVID);
        if (ret != 0) return lib_fail("wc_AesInit", ret);
        s->live = 1;
        if (a->fam == F_GCM) {
            ret = wc_AesGcmSetKey(&s->u.aes, job->key.data, (word32)job->key.len);
            return ret == 0 ? TB_OK : lib_fail("wc_AesGcmSetKey", ret);
        }
        ret = wc_AesCcmSetKey(&s->u.aes, job->key.data, (word32)job->key.len);
        return ret == 0 ? TB_OK : lib_fail("wc_AesCcmSetKey", ret);
    default: /* F_CHACHAPOLY (in the table only when built) */
#if TB_WOLFSSL_CHACHAPOLY
        /* wolfCrypt's ChaCha20-Poly1305 is one-shot: the key schedule is a
         * copy of the key, the Poly1305 key is per nonce anyway. */
        memcpy(s->key, job->key.data, CHACHA20_POLY1305_AEAD_KEYSIZE);
#endif
        return TB_OK;
    }
}

tb_status tb_wolfssl_hash_run(tb_family_state *base)
{
    state *s = (state *)base;
    int ret;
    if (s->alg->fam == F_HASH) {
#if TB_WOLFSSL_HW /* wc_Hash names no device: the peripheral's driver is reached through TB_WOLFSSL_DEVID */
        ret = wc_Hash_ex((enum wc_HashType)s->alg->hash, s->msg.data, (word32)s->msg.len, out_buf(s), WC_MAX_DIGEST_SIZE,
                         NULL, TB_WOLFSSL_DEVID);
#else
        ret = wc_Hash((enum wc_HashType)s->alg->hash, s->msg.data, (word32)s->msg.len, out_buf(s), WC_MAX_DIGEST_SIZE);
#endif
        if (ret != 0) return lib_fail("wc_Hash", ret);
        s->base.out_len = (size_t)hash_size(s->alg->hash);
        return TB_OK;
    }
    if ((ret = wc_HmacUpdate(&s->u.hmac, s->msg.data, (word32)s->msg.len)) != 0) {
        return lib_fail("wc_HmacUpdate", ret);
    }
    if ((ret = wc_HmacFinal(&s->u.hmac, out_buf(s))) != 0) return lib_fail("wc_HmacFinal", ret);
    s->base.out_len = WC_SHA256_DIGEST_SIZE;
    return TB_OK;
}

tb_status tb_wolfssl_aead_run(tb_family_state *base)
{
    state *s = (state *)base;
    const uint8_t *in = s->msg.data, *n = s->nonce.data, *aad = s->aad.data;
    word32 nl = (word32)s->nonce.len, al = (word32)s->aad.len;
    int ret;
    if (s->op == OP_ENC) {
        word32 len = (word32)s->msg.len;
        uint8_t *tag = out_buf(s) + len;
        switch (s->alg->fam) {
        case F_GCM:
            ret = wc_AesGcmEncrypt(&s->u.aes, out_buf(s), in, len, n, nl, tag, 16, aad, al);
            if (ret != 0) return lib_fail("wc_AesGcmEncrypt", ret);
            break;
        case F_CCM:
            ret = wc_AesCcmEncrypt(&s->u.aes, out_buf(s), in, len, n, nl, tag, 16, aad, al);
            if (ret != 0) return lib_fail("wc_AesCcmEncrypt", ret);
            break;
        default:
#if TB_WOLFSSL_CHACHAPOLY
            ret = wc_ChaCha20Poly1305_Encrypt(s->key, n, aad, al, in, len, out_buf(s), tag);
            if (ret != 0) return lib_fail("wc_ChaCha20Poly1305_Encrypt", ret);
#endif
            break;
        }
        s->base.out_len = len + 16;
        return TB_OK;
    }
    word32 len = (word32)s->msg.len - 16;
    const uint8_t *tag = in + len;
    switch (s->alg->fam) {
    case F_GCM:
        ret = wc_AesGcmDecrypt(&s->u.aes, out_buf(s), in, len, n, nl, tag, 16, aad, al);
        if (ret == AES_GCM_AUTH_E) return check_fail("wc_AesGcmDecrypt", ret);
        if (ret != 0) return lib_fail("wc_AesGcmDecrypt", ret);
        break;
    case F_CCM:
        ret = wc_AesCcmDecrypt(&s->u.aes, out_buf(s), in, len, n, nl, tag, 16, aad, al);
        if (ret == AES_CCM_AUTH_E) return check_fail("wc_AesCcmDecrypt", ret);
        if (ret != 0) return lib_fail("wc_AesCcmDecrypt", ret);
        break;
    default:
#if TB_WOLFSSL_CHACHAPOLY
        ret = wc_ChaCha20Poly1305_Decrypt(s->key, n, aad, al, in, len, tag, out_buf(s));
        if (ret == MAC_CMP_FAILED_E) return check_fail("wc_ChaCha20Poly1305_Decrypt", ret);
        if (ret != 0) return lib_fail("wc_ChaCha20Poly1305_Decrypt", ret);
#endif
        break;
    }
    s->base.out_len = len;
    return TB_OK;
}

/* HMAC's and AES's contexts (a hash and ChaCha20-Poly1305 keep none). */
static void sym_release(tb_family_state *base)
{
    state *s = (state *)base;
    if (s->live && s->alg->fam == F_HMAC) wc_HmacFree(&s->u.hmac);
    if (s->live && s->alg->fam != F_HMAC) wc_AesFree(&s->u.aes);
    tb_wolfssl_free(s);
}

TB_WOLFSSL_FAMILY(hash, TB_KIND_HASH, hash_fill, tb_wolfssl_hash_run, sym_release);
TB_WOLFSSL_FAMILY(mac, TB_KIND_MAC, hash_fill, tb_wolfssl_hash_run, sym_release);
TB_WOLFSSL_FAMILY(aead, TB_KIND_AEAD, aead_fill, tb_wolfssl_aead_run, sym_release);

/* ---- primitives the core composes (tb_prim_ops) ---- */

static int hmac_type(const char *alg)
{
#ifndef NO_SHA
    if (strcmp(alg, "hmac-sha1") == 0) return WC_SHA;
#endif
    if (strcmp(alg, "hmac-sha256") == 0) return WC_SHA256;
    return -1;
}

static int prim_supports(const char *alg)
{
#ifdef HAVE_AES_CBC
    if (strcmp(alg, "aes-128-cbc") == 0) return 1;
#endif
    return hmac_type(alg) >= 0;
}

typedef struct {
    Aes aes;
    int decrypt, live;
} cipher_t;

static void prim_cipher_free(void *ctx)
{
    cipher_t *c = ctx;
    if (c == NULL) return;
    if (c->live) wc_AesFree(&c->aes);
    free(c);
}

static tb_status prim_cipher_new(const char *alg, tb_bytes key, int decrypt, void **out)
{
    if (!prim_supports(alg) || strcmp(alg, "aes-128-cbc") != 0 || key.len != AES_BLOCK_SIZE) {
        return bad_len("aes-128-cbc key", key.len, "16 (and a build with AES-CBC)");
    }
    cipher_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->decrypt = decrypt;
    int ret = wc_AesInit(&c->aes, NULL, TB_WOLFSSL_DEVID);
    if (ret == 0) {
        c->live = 1;
        ret = wc_AesSetKey(&c->aes, key.data, AES_BLOCK_SIZE, NULL, decrypt ? AES_DECRYPTION : AES_ENCRYPTION);
    }
    if (ret != 0) {
        prim_cipher_free(c);
        return lib_fail("wc_AesInit/wc_AesSetKey", ret);
    }
    *out = c;
    return TB_OK;
}

static tb_status prim_cipher_run(void *ctx, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
#ifdef HAVE_AES_CBC
    cipher_t *c = ctx;
    int ret = wc_AesSetIV(&c->aes, iv);
    if (ret != 0) return lib_fail("wc_AesSetIV", ret);
    ret = c->decrypt ? wc_AesCbcDecrypt(&c->aes, out, in, (word32)len) : wc_AesCbcEncrypt(&c->aes, out, in, (word32)len);
    return ret == 0 ? TB_OK : lib_fail(c->decrypt ? "wc_AesCbcDecrypt" : "wc_AesCbcEncrypt", ret);
#else
    (void)ctx, (void)iv, (void)in, (void)out, (void)len;
    return TB_UNSUPPORTED;
#endif
}

typedef struct {
    Hmac hmac;
    int live;
} mac_t;

static void prim_mac_free(void *ctx)
{
    mac_t *m = ctx;
    if (m == NULL) return;
    if (m->live) wc_HmacFree(&m->hmac);
    free(m);
}

static tb_status prim_mac_new(const char *alg, tb_bytes key, void **out)
{
    int type = hmac_type(alg);
    if (type < 0) {
        tb_set_error("%s is not a primitive of this build", alg);
        return TB_UNSUPPORTED;
    }
    mac_t *m = tb_zalloc(sizeof(*m));
    if (m == NULL) return TB_ERROR;
    int ret = wc_HmacInit(&m->hmac, NULL, TB_WOLFSSL_DEVID);
    if (ret == 0) {
        m->live = 1;
        ret = wc_HmacSetKey(&m->hmac, type, key.data, (word32)key.len);
    }
    if (ret != 0) {
        prim_mac_free(m);
        return lib_fail("wc_HmacInit/wc_HmacSetKey", ret);
    }
    *out = m;
    return TB_OK;
}

/* wc_HmacFinal leaves the context keyed for the next message. */
static tb_status prim_mac_run(void *ctx, tb_bytes a, tb_bytes b, uint8_t *tag)
{
    mac_t *m = ctx;
    int ret;
    if ((ret = wc_HmacUpdate(&m->hmac, a.data, (word32)a.len)) != 0 ||
        (ret = wc_HmacUpdate(&m->hmac, b.data, (word32)b.len)) != 0 || (ret = wc_HmacFinal(&m->hmac, tag)) != 0) {
        return lib_fail("wc_Hmac", ret);
    }
    return TB_OK;
}

TB_DEFINE_PRIMS();
