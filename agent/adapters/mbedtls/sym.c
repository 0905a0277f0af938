/* Hashes, HMAC and AEADs through the generic layers the Mbed TLS record
 * code itself uses: mbedtls_md (hash, HMAC) and mbedtls_cipher (GCM, CCM,
 * ChaCha20-Poly1305, AES-CBC). */
#include "mbt.h"

#include <mbedtls/cipher.h>
#include <mbedtls/constant_time.h>
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
    for (size_t i = 0; i < sizeof(hashes) / sizeof(hashes[0]); i++) {
        if (strcmp(hashes[i].name, alg) == 0) return mbedtls_md_info_from_type(hashes[i].type);
    }
    return NULL;
}

/* "hmac-<hash>" */
static const mbedtls_md_info_t *hmac_info(const char *alg)
{
    return strncmp(alg, "hmac-", 5) == 0 ? hash_info(alg + 5) : NULL;
}

typedef struct {
    mbt_state base;
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

static tb_status md_prepare(const tb_job *job, mbt_state **out, int hmac)
{
    md_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = hmac ? &mbt_mac : &mbt_hash;
    st->hmac = hmac;
    mbedtls_md_init(&st->md);
    *out = &st->base;

    const mbedtls_md_info_t *info = hmac ? hmac_info(job->alg) : hash_info(job->alg);
    int ret = mbedtls_md_setup(&st->md, info, hmac);
    if (ret != 0) return mbt_fail("mbedtls_md_setup", ret);
    if (hmac) {
        static const unsigned char empty[1];
        ret = mbedtls_md_hmac_starts(&st->md, job->key.len ? job->key.data : empty, job->key.len);
        if (ret != 0) return mbt_fail("mbedtls_md_hmac_starts", ret);
    }
    st->msg = tb_dup(job->msg);
    if (st->msg == NULL) return TB_ERROR;
    st->msg_len = job->msg.len;
    st->base.out = st->digest;
    st->base.out_len = mbedtls_md_get_size(info);
    return TB_OK;
}

static tb_status hash_prepare(const tb_job *job, mbt_state **out)
{
    return md_prepare(job, out, 0);
}

static tb_status mac_prepare(const tb_job *job, mbt_state **out)
{
    return md_prepare(job, out, 1);
}

static tb_status hash_run(mbt_state *base)
{
    md_state *st = (md_state *)base;
    int ret = mbedtls_md_starts(&st->md);
    if (ret != 0) return mbt_fail("mbedtls_md_starts", ret);
    ret = mbedtls_md_update(&st->md, st->msg, st->msg_len);
    if (ret != 0) return mbt_fail("mbedtls_md_update", ret);
    ret = mbedtls_md_finish(&st->md, st->digest);
    return ret == 0 ? TB_OK : mbt_fail("mbedtls_md_finish", ret);
}

/* The key schedule (ipad/opad) is done once in prepare; each run is
 * reset + update + finish, as the TLS record MAC does. */
static tb_status mac_run(mbt_state *base)
{
    md_state *st = (md_state *)base;
    int ret = mbedtls_md_hmac_reset(&st->md);
    if (ret != 0) return mbt_fail("mbedtls_md_hmac_reset", ret);
    ret = mbedtls_md_hmac_update(&st->md, st->msg, st->msg_len);
    if (ret != 0) return mbt_fail("mbedtls_md_hmac_update", ret);
    ret = mbedtls_md_hmac_finish(&st->md, st->digest);
    return ret == 0 ? TB_OK : mbt_fail("mbedtls_md_hmac_finish", ret);
}

static void md_release(mbt_state *base)
{
    md_state *st = (md_state *)base;
    mbedtls_md_free(&st->md);
    free(st->msg);
    free(st);
}

const mbt_family mbt_hash = {hash_supports, hash_prepare, hash_run, md_release};
const mbt_family mbt_mac = {mac_supports, mac_prepare, mac_run, md_release};

/* ---- aead -------------------------------------------------------------- */

typedef struct {
    const char *name;
    mbedtls_cipher_type_t cipher;
    size_t key_len;             /* encryption key */
    size_t nonce_min, nonce_max;
    mbedtls_md_type_t mac;      /* MBEDTLS_MD_NONE: a real AEAD */
} aead_alg;

static const aead_alg aeads[] = {
    /* GCM takes any IV length >= 1; 1..64 covers every sane use. */
    {"aes-128-gcm", MBEDTLS_CIPHER_AES_128_GCM, 16, 1, 64, MBEDTLS_MD_NONE},
    {"aes-256-gcm", MBEDTLS_CIPHER_AES_256_GCM, 32, 1, 64, MBEDTLS_MD_NONE},
    {"aes-128-ccm", MBEDTLS_CIPHER_AES_128_CCM, 16, 7, 13, MBEDTLS_MD_NONE},
    {"chacha20-poly1305", MBEDTLS_CIPHER_CHACHA20_POLY1305, 32, 12, 12, MBEDTLS_MD_NONE},
    {"aes-128-cbc-hmac-sha1", MBEDTLS_CIPHER_AES_128_CBC, 16, 16, 16, MBEDTLS_MD_SHA1},
    {"aes-128-cbc-hmac-sha256", MBEDTLS_CIPHER_AES_128_CBC, 16, 16, 16, MBEDTLS_MD_SHA256},
};

#define CBC_BLOCK 16
#define TLS_MAC_HEADER_LEN 13

static const aead_alg *aead_find(const char *alg)
{
    for (size_t i = 0; i < sizeof(aeads) / sizeof(aeads[0]); i++) {
        if (strcmp(aeads[i].name, alg) == 0) return &aeads[i];
    }
    return NULL;
}

static int aead_supports(const char *alg, const char *op)
{
    const aead_alg *a = aead_find(alg);
    if (a == NULL || (strcmp(op, "encrypt") != 0 && strcmp(op, "decrypt") != 0)) return 0;
    if (mbedtls_cipher_info_from_type(a->cipher) == NULL) return 0;
    return a->mac == MBEDTLS_MD_NONE || mbedtls_md_info_from_type(a->mac) != NULL;
}

typedef struct {
    mbt_state base;
    const aead_alg *a;
    int decrypt;
    mbedtls_cipher_context_t cipher;
    mbedtls_md_context_t hmac; /* CBC-HMAC only */
    size_t mac_len;
    uint8_t *nonce, *aad, *in;
    size_t nonce_len, aad_len, in_len;
    uint8_t *buf;  /* result */
    uint8_t *work; /* CBC-HMAC encrypt: msg || MAC || padding */
    size_t work_len;
} aead_state;

static tb_status aead_prepare(const tb_job *job, mbt_state **out)
{
    aead_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &mbt_aead;
    mbedtls_cipher_init(&st->cipher);
    mbedtls_md_init(&st->hmac);
    *out = &st->base;

    const aead_alg *a = aead_find(job->alg);
    st->a = a;
    st->decrypt = strcmp(job->op, "decrypt") == 0;
    int cbc = a->mac != MBEDTLS_MD_NONE;
    const mbedtls_md_info_t *md = cbc ? mbedtls_md_info_from_type(a->mac) : NULL;
    st->mac_len = cbc ? mbedtls_md_get_size(md) : 0;

    size_t key_len = a->key_len + st->mac_len;
    if (job->key.len != key_len) {
        tb_set_error("%s key must be %zu bytes, got %zu", a->name, key_len, job->key.len);
        return TB_BAD_INPUT;
    }
    if (job->nonce.len < a->nonce_min || job->nonce.len > a->nonce_max) {
        tb_set_error("%s nonce must be %zu..%zu bytes, got %zu", a->name, a->nonce_min,
                     a->nonce_max, job->nonce.len);
        return TB_BAD_INPUT;
    }
    if (cbc && job->aad.len != TLS_MAC_HEADER_LEN) {
        tb_set_error("%s aad must be the %d-byte TLS MAC header, got %zu", a->name,
                     TLS_MAC_HEADER_LEN, job->aad.len);
        return TB_BAD_INPUT;
    }
    size_t n = job->msg.len;
    if (st->decrypt && !cbc && n < TAG_LEN) {
        tb_set_error("%s ciphertext shorter than the %d-byte tag", a->name, TAG_LEN);
        return TB_BAD_INPUT;
    }
    if (st->decrypt && cbc && (n % CBC_BLOCK != 0 || n < st->mac_len + 1)) {
        tb_set_error("%s ciphertext must be a non-empty multiple of %d bytes holding a MAC",
                     a->name, CBC_BLOCK);
        return TB_BAD_INPUT;
    }

    int ret = mbedtls_cipher_setup(&st->cipher, mbedtls_cipher_info_from_type(a->cipher));
    if (ret != 0) return mbt_fail("mbedtls_cipher_setup", ret);
    ret = mbedtls_cipher_setkey(&st->cipher, job->key.data, (int)(a->key_len * 8),
                                st->decrypt ? MBEDTLS_DECRYPT : MBEDTLS_ENCRYPT);
    if (ret != 0) return mbt_fail("mbedtls_cipher_setkey", ret);
    if (cbc) {
        /* The TLS record code pads itself and runs CBC unpadded. */
        ret = mbedtls_cipher_set_padding_mode(&st->cipher, MBEDTLS_PADDING_NONE);
        if (ret != 0) return mbt_fail("mbedtls_cipher_set_padding_mode", ret);
        ret = mbedtls_md_setup(&st->hmac, md, 1);
        if (ret != 0) return mbt_fail("mbedtls_md_setup", ret);
        ret = mbedtls_md_hmac_starts(&st->hmac, job->key.data + a->key_len, st->mac_len);
        if (ret != 0) return mbt_fail("mbedtls_md_hmac_starts", ret);
    }

    st->nonce = tb_dup(job->nonce);
    st->aad = tb_dup(job->aad);
    st->in = tb_dup(job->msg);
    if (st->nonce == NULL || st->aad == NULL || st->in == NULL) return TB_ERROR;
    st->nonce_len = job->nonce.len;
    st->aad_len = job->aad.len;
    st->in_len = n;

    size_t out_cap = n + TAG_LEN;
    if (cbc && !st->decrypt) {
        /* msg || MAC || p+1 bytes of value p, the fewest reaching a block. */
        size_t unpadded = n + st->mac_len;
        size_t pad = CBC_BLOCK - unpadded % CBC_BLOCK; /* p + 1, in 1..16 */
        st->work_len = unpadded + pad;
        st->work = tb_zalloc(st->work_len);
        if (st->work == NULL) return TB_ERROR;
        memcpy(st->work, st->in, n);
        memset(st->work + unpadded, (int)(pad - 1), pad);
        out_cap = st->work_len;
    }
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
    if (ret != 0) return mbt_fail("mbedtls_cipher_auth_encrypt_ext", ret);
    st->base.out_len = olen;
    return TB_OK;
}

static tb_status aead_open(aead_state *st)
{
    size_t olen = 0;
    int ret = mbedtls_cipher_auth_decrypt_ext(&st->cipher, st->nonce, st->nonce_len, st->aad,
                                              st->aad_len, st->in, st->in_len, st->buf,
                                              st->in_len - TAG_LEN, &olen, TAG_LEN);
    if (ret == MBEDTLS_ERR_CIPHER_AUTH_FAILED) return mbt_reject("mbedtls_cipher_auth_decrypt_ext", ret);
    if (ret != 0) return mbt_fail("mbedtls_cipher_auth_decrypt_ext", ret);
    st->base.out_len = olen;
    return TB_OK;
}

/* HMAC(mac_key, aad || msg) into mac. */
static tb_status cbc_mac(aead_state *st, const uint8_t *msg, size_t len, uint8_t *mac)
{
    int ret = mbedtls_md_hmac_reset(&st->hmac);
    if (ret == 0) ret = mbedtls_md_hmac_update(&st->hmac, st->aad, st->aad_len);
    if (ret == 0) ret = mbedtls_md_hmac_update(&st->hmac, msg, len);
    if (ret == 0) ret = mbedtls_md_hmac_finish(&st->hmac, mac);
    return ret == 0 ? TB_OK : mbt_fail("mbedtls_md_hmac", ret);
}

static tb_status cbc_seal(aead_state *st)
{
    tb_status s = cbc_mac(st, st->in, st->in_len, st->work + st->in_len);
    if (s != TB_OK) return s;
    size_t olen = 0;
    int ret = mbedtls_cipher_crypt(&st->cipher, st->nonce, st->nonce_len, st->work, st->work_len,
                                   st->buf, &olen);
    if (ret != 0) return mbt_fail("mbedtls_cipher_crypt", ret);
    st->base.out_len = olen;
    return TB_OK;
}

static tb_status cbc_open(aead_state *st)
{
    size_t olen = 0;
    int ret = mbedtls_cipher_crypt(&st->cipher, st->nonce, st->nonce_len, st->in, st->in_len,
                                   st->buf, &olen);
    if (ret != 0) return mbt_fail("mbedtls_cipher_crypt", ret);
    size_t p = st->buf[olen - 1];
    if (p + 1 + st->mac_len > olen) {
        tb_set_error("%s: bad TLS padding length", st->a->name);
        return TB_REJECT;
    }
    unsigned diff = 0;
    for (size_t i = olen - 1 - p; i < olen; i++) diff |= st->buf[i] ^ (unsigned)p;
    size_t len = olen - 1 - p - st->mac_len;
    uint8_t mac[MBEDTLS_MD_MAX_SIZE];
    tb_status s = cbc_mac(st, st->buf, len, mac);
    if (s != TB_OK) return s;
    if (diff != 0 || mbedtls_ct_memcmp(mac, st->buf + len, st->mac_len) != 0) {
        tb_set_error("%s: padding or MAC check failed", st->a->name);
        return TB_REJECT;
    }
    st->base.out_len = len;
    return TB_OK;
}

static tb_status aead_run(mbt_state *base)
{
    aead_state *st = (aead_state *)base;
    if (st->a->mac != MBEDTLS_MD_NONE) return st->decrypt ? cbc_open(st) : cbc_seal(st);
    return st->decrypt ? aead_open(st) : aead_seal(st);
}

static void aead_release(mbt_state *base)
{
    aead_state *st = (aead_state *)base;
    mbedtls_cipher_free(&st->cipher);
    mbedtls_md_free(&st->hmac);
    free(st->nonce);
    free(st->aad);
    free(st->in);
    free(st->buf);
    free(st->work);
    free(st);
}

const mbt_family mbt_aead = {aead_supports, aead_prepare, aead_run, aead_release};
