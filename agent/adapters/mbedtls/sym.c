/* Hashes, HMAC, AEADs and the primitives the core composes (AES-CBC,
 * HMAC) through the generic layers the Mbed TLS record code itself uses:
 * mbedtls_md (hash, HMAC) and mbedtls_cipher (GCM, CCM, ChaCha20-Poly1305,
 * AES-CBC). */
#include "mbedtls_adapter.h"

#include <mbedtls/cipher.h>
#include <mbedtls/md.h>

#include <stdlib.h>
#include <string.h>

#define TAG_LEN 16

/* ---- hash and mac ---------------------------------------------------- */

static const struct {
    const char *name;
    mbedtls_md_type_t type;
} hashes[] = {
    {"md5", MBEDTLS_MD_MD5},         {"sha1", MBEDTLS_MD_SHA1},
    {"sha224", MBEDTLS_MD_SHA224},   {"sha256", MBEDTLS_MD_SHA256},
    {"sha384", MBEDTLS_MD_SHA384},   {"sha512", MBEDTLS_MD_SHA512},
    {"sha3-256", MBEDTLS_MD_SHA3_256}, {"sha3-384", MBEDTLS_MD_SHA3_384},
    {"sha3-512", MBEDTLS_MD_SHA3_512},
};

static const mbedtls_md_info_t *hash_info(const char *alg)
{
    int i = TB_NAME_INDEX(hashes, alg);
    return i < 0 ? NULL : mbedtls_md_info_from_type(hashes[i].type);
}

/* "hmac-<hash>" */
static const mbedtls_md_info_t *hmac_info(const char *alg)
{
    return strncmp(alg, "hmac-", 5) == 0 ? hash_info(alg + 5) : NULL;
}

typedef struct {
    tb_family_state base;
    int hmac;
    mbedtls_md_context_t md;
    uint8_t *msg;
    size_t msg_len;
    uint8_t digest[MBEDTLS_MD_MAX_SIZE];
} md_state;

static int hash_supports(const char *alg, const char *op)
{
    return strcmp(op, "hash") == 0 && hash_info(alg) != NULL;
}

static int mac_supports(const char *alg, const char *op)
{
    return strcmp(op, "mac") == 0 && hmac_info(alg) != NULL;
}

static tb_status md_prepare(const tb_job *job, tb_family_state **out, int hmac)
{
    md_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = hmac ? &tb_mbedtls_mac : &tb_mbedtls_hash;
    st->hmac = hmac;
    mbedtls_md_init(&st->md);
    *out = &st->base;

    const mbedtls_md_info_t *info = hmac ? hmac_info(job->alg) : hash_info(job->alg);
    int ret = mbedtls_md_setup(&st->md, info, hmac);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_md_setup", ret);
    if (hmac) {
        static const unsigned char empty[1];
        ret = mbedtls_md_hmac_starts(&st->md, job->key.len ? job->key.data : empty, job->key.len);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_md_hmac_starts", ret);
    }
    st->msg = tb_dup(job->msg);
    if (st->msg == NULL) return TB_ERROR;
    st->msg_len = job->msg.len;
    st->base.out = st->digest;
    st->base.out_len = mbedtls_md_get_size(info);
    return TB_OK;
}

static tb_status hash_prepare(const tb_job *job, tb_family_state **out)
{
    return md_prepare(job, out, 0);
}

static tb_status mac_prepare(const tb_job *job, tb_family_state **out)
{
    return md_prepare(job, out, 1);
}

static tb_status hash_run(tb_family_state *base)
{
    md_state *st = (md_state *)base;
    int ret = mbedtls_md_starts(&st->md);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_md_starts", ret);
    ret = mbedtls_md_update(&st->md, st->msg, st->msg_len);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_md_update", ret);
    ret = mbedtls_md_finish(&st->md, st->digest);
    return ret == 0 ? TB_OK : tb_mbedtls_fail("mbedtls_md_finish", ret);
}

/* The key schedule (ipad/opad) is done once in prepare; each run is
 * reset + update + finish, as the TLS record MAC does. */
static tb_status mac_run(tb_family_state *base)
{
    md_state *st = (md_state *)base;
    int ret = mbedtls_md_hmac_reset(&st->md);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_md_hmac_reset", ret);
    ret = mbedtls_md_hmac_update(&st->md, st->msg, st->msg_len);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_md_hmac_update", ret);
    ret = mbedtls_md_hmac_finish(&st->md, st->digest);
    return ret == 0 ? TB_OK : tb_mbedtls_fail("mbedtls_md_hmac_finish", ret);
}

static void md_release(tb_family_state *base)
{
    md_state *st = (md_state *)base;
    mbedtls_md_free(&st->md);
    free(st->msg);
    free(st);
}

const tb_family tb_mbedtls_hash = {hash_supports, hash_prepare, hash_run, md_release};
const tb_family tb_mbedtls_mac = {mac_supports, mac_prepare, mac_run, md_release};

/* ---- aead -------------------------------------------------------------- */

typedef struct {
    const char *name;
    mbedtls_cipher_type_t cipher;
    size_t key_len;             /* encryption key */
    size_t nonce_min, nonce_max;
} aead_alg;

static const aead_alg aeads[] = {
    /* GCM takes any IV length >= 1; 1..64 covers every sane use. */
    {"aes-128-gcm", MBEDTLS_CIPHER_AES_128_GCM, 16, 1, 64},
    {"aes-256-gcm", MBEDTLS_CIPHER_AES_256_GCM, 32, 1, 64},
    {"aes-128-ccm", MBEDTLS_CIPHER_AES_128_CCM, 16, 7, 13},
    {"chacha20-poly1305", MBEDTLS_CIPHER_CHACHA20_POLY1305, 32, 12, 12},
};

static const aead_alg *aead_find(const char *alg)
{
    int i = TB_NAME_INDEX(aeads, alg);
    return i < 0 ? NULL : &aeads[i];
}

static int aead_supports(const char *alg, const char *op)
{
    const aead_alg *a = aead_find(alg);
    if (a == NULL || (strcmp(op, "encrypt") != 0 && strcmp(op, "decrypt") != 0)) return 0;
    return mbedtls_cipher_info_from_type(a->cipher) != NULL;
}

typedef struct {
    tb_family_state base;
    const aead_alg *a;
    int decrypt;
    mbedtls_cipher_context_t cipher;
    uint8_t *nonce, *aad, *in;
    size_t nonce_len, aad_len, in_len;
    uint8_t *buf; /* result */
} aead_state;

static tb_status aead_prepare(const tb_job *job, tb_family_state **out)
{
    if (job->rekey) return tb_refuse_rekey();
    aead_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &tb_mbedtls_aead;
    mbedtls_cipher_init(&st->cipher);
    *out = &st->base;

    const aead_alg *a = aead_find(job->alg);
    st->a = a;
    st->decrypt = strcmp(job->op, "decrypt") == 0;
    size_t key_len = a->key_len;
    if (job->key.len != key_len) {
        tb_set_error("%s key must be %zu bytes, got %zu", a->name, key_len, job->key.len);
        return TB_BAD_INPUT;
    }
    if (job->nonce.len < a->nonce_min || job->nonce.len > a->nonce_max) {
        tb_set_error("%s nonce must be %zu..%zu bytes, got %zu", a->name, a->nonce_min,
                     a->nonce_max, job->nonce.len);
        return TB_BAD_INPUT;
    }
    size_t n = job->msg.len;
    if (st->decrypt && n < TAG_LEN) {
        tb_set_error("%s ciphertext shorter than the %d-byte tag", a->name, TAG_LEN);
        return TB_BAD_INPUT;
    }

    int ret = mbedtls_cipher_setup(&st->cipher, mbedtls_cipher_info_from_type(a->cipher));
    if (ret != 0) return tb_mbedtls_fail("mbedtls_cipher_setup", ret);
    ret = mbedtls_cipher_setkey(&st->cipher, job->key.data, (int)(a->key_len * 8),
                                st->decrypt ? MBEDTLS_DECRYPT : MBEDTLS_ENCRYPT);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_cipher_setkey", ret);

    st->nonce = tb_dup(job->nonce);
    st->aad = tb_dup(job->aad);
    st->in = tb_dup(job->msg);
    if (st->nonce == NULL || st->aad == NULL || st->in == NULL) return TB_ERROR;
    st->nonce_len = job->nonce.len;
    st->aad_len = job->aad.len;
    st->in_len = n;

    size_t out_cap = n + TAG_LEN;
    st->buf = tb_zalloc(out_cap);
    if (st->buf == NULL) return TB_ERROR;
    st->base.out = st->buf;
    return TB_OK;
}

static tb_status aead_seal(aead_state *st)
{
    size_t olen = 0;
    int ret = mbedtls_cipher_auth_encrypt_ext(&st->cipher, st->nonce, st->nonce_len, st->aad,
                                              st->aad_len, st->in, st->in_len, st->buf,
                                              st->in_len + TAG_LEN, &olen, TAG_LEN);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_cipher_auth_encrypt_ext", ret);
    st->base.out_len = olen;
    return TB_OK;
}

static tb_status aead_open(aead_state *st)
{
    size_t olen = 0;
    int ret = mbedtls_cipher_auth_decrypt_ext(&st->cipher, st->nonce, st->nonce_len, st->aad,
                                              st->aad_len, st->in, st->in_len, st->buf,
                                              st->in_len - TAG_LEN, &olen, TAG_LEN);
    if (ret == MBEDTLS_ERR_CIPHER_AUTH_FAILED) return tb_mbedtls_reject("mbedtls_cipher_auth_decrypt_ext", ret);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_cipher_auth_decrypt_ext", ret);
    st->base.out_len = olen;
    return TB_OK;
}

static tb_status aead_run(tb_family_state *base)
{
    aead_state *st = (aead_state *)base;
    return st->decrypt ? aead_open(st) : aead_seal(st);
}

static void aead_release(tb_family_state *base)
{
    aead_state *st = (aead_state *)base;
    mbedtls_cipher_free(&st->cipher);
    free(st->nonce);
    free(st->aad);
    free(st->in);
    free(st->buf);
    free(st);
}

const tb_family tb_mbedtls_aead = {aead_supports, aead_prepare, aead_run, aead_release};

/* ---- primitives the core composes (tb_prim_ops) ------------------------ */

static int prim_supports(const char *alg)
{
    if (strcmp(alg, "aes-128-cbc") == 0) return mbedtls_cipher_info_from_type(MBEDTLS_CIPHER_AES_128_CBC) != NULL;
    return hmac_info(alg) != NULL;
}

static void prim_cipher_free(void *ctx)
{
    mbedtls_cipher_context_t *c = ctx;
    if (c == NULL) return;
    mbedtls_cipher_free(c);
    free(c);
}

static tb_status prim_cipher_new(const char *alg, tb_bytes key, int decrypt, void **out)
{
    const mbedtls_cipher_info_t *info = mbedtls_cipher_info_from_type(MBEDTLS_CIPHER_AES_128_CBC);
    if (strcmp(alg, "aes-128-cbc") != 0 || info == NULL || key.len != 16) {
        tb_set_error("%s with a %zu-byte key is not a primitive of this build", alg, key.len);
        return TB_UNSUPPORTED;
    }
    mbedtls_cipher_context_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    mbedtls_cipher_init(c);
    *out = c;
    int ret = mbedtls_cipher_setup(c, info);
    if (ret == 0) ret = mbedtls_cipher_setkey(c, key.data, 128, decrypt ? MBEDTLS_DECRYPT : MBEDTLS_ENCRYPT);
    /* The TLS record code pads itself and runs CBC unpadded. */
    if (ret == 0) ret = mbedtls_cipher_set_padding_mode(c, MBEDTLS_PADDING_NONE);
    if (ret != 0) {
        prim_cipher_free(c);
        *out = NULL;
        return tb_mbedtls_fail("mbedtls_cipher_setup/setkey", ret);
    }
    return TB_OK;
}

static tb_status prim_cipher_run(void *ctx, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    size_t olen = 0;
    int ret = mbedtls_cipher_crypt(ctx, iv, 16, in, len, out, &olen);
    return ret == 0 ? TB_OK : tb_mbedtls_fail("mbedtls_cipher_crypt", ret);
}

static void prim_mac_free(void *ctx)
{
    mbedtls_md_context_t *m = ctx;
    if (m == NULL) return;
    mbedtls_md_free(m);
    free(m);
}

static tb_status prim_mac_new(const char *alg, tb_bytes key, void **out)
{
    const mbedtls_md_info_t *info = hmac_info(alg);
    if (info == NULL) {
        tb_set_error("%s is not a primitive of this build", alg);
        return TB_UNSUPPORTED;
    }
    mbedtls_md_context_t *m = tb_zalloc(sizeof(*m));
    if (m == NULL) return TB_ERROR;
    mbedtls_md_init(m);
    int ret = mbedtls_md_setup(m, info, 1);
    if (ret == 0) ret = mbedtls_md_hmac_starts(m, key.data, key.len);
    if (ret != 0) {
        prim_mac_free(m);
        return tb_mbedtls_fail("mbedtls_md_setup/hmac_starts", ret);
    }
    *out = m;
    return TB_OK;
}

static tb_status prim_mac_run(void *ctx, tb_bytes a, tb_bytes b, uint8_t *tag)
{
    int ret = mbedtls_md_hmac_reset(ctx);
    if (ret == 0) ret = mbedtls_md_hmac_update(ctx, a.data, a.len);
    if (ret == 0) ret = mbedtls_md_hmac_update(ctx, b.data, b.len);
    if (ret == 0) ret = mbedtls_md_hmac_finish(ctx, tag);
    return ret == 0 ? TB_OK : tb_mbedtls_fail("mbedtls_md_hmac", ret);
}

TB_DEFINE_PRIMS();
