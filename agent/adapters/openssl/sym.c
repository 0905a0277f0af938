/* OpenSSL adapter: hashes, HMAC, the AEADs and the primitives the core
 * composes (AES-CBC, HMAC), all through the EVP layer TLS itself uses. */
#include "openssl_adapter.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *md_name(const char *alg)
{
    static const char *const map[][2] = {
        {"md5", "MD5"},           {"sha1", "SHA1"},         {"sha224", "SHA224"},     {"sha256", "SHA256"},
        {"sha384", "SHA384"},     {"sha512", "SHA512"},     {"sha3-256", "SHA3-256"}, {"sha3-384", "SHA3-384"},
        {"sha3-512", "SHA3-512"},
    };
    int i = TB_NAME_INDEX(map, alg);
    return i < 0 ? NULL : map[i][1];
}


/* ---------- hash and MAC ---------- */

static tb_status prepare_hash(tb_openssl_state *s, const tb_job *job)
{
    /* An explicit fetch, once: EVP_Digest with a legacy EVP_MD would look the
     * implementation up again on every call. */
    s->fetched = EVP_MD_fetch(NULL, md_name(job->alg), NULL);
    if (s->fetched == NULL) return tb_openssl_fail("EVP_MD_fetch");
    s->md = s->fetched;
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    return tb_openssl_reserve_out(s, EVP_MAX_MD_SIZE);
}

static tb_status run_hash(tb_openssl_state *s)
{
    unsigned int n = 0;
    if (EVP_Digest(s->msg, s->msg_len, s->buf, &n, s->md, NULL) != 1) return tb_openssl_fail("EVP_Digest");
    s->base.out_len = n;
    return TB_OK;
}

static tb_status prepare_mac(tb_openssl_state *s, const tb_job *job)
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return tb_openssl_fail("EVP_MAC_fetch");
    s->mac = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (s->mac == NULL) return tb_openssl_fail("EVP_MAC_CTX_new");
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0), OSSL_PARAM_END};
    if (EVP_MAC_init(s->mac, job->key.data, job->key.len, params) != 1) return tb_openssl_fail("EVP_MAC_init");
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    return tb_openssl_reserve_out(s, EVP_MAX_MD_SIZE);
}

static tb_status run_mac(tb_openssl_state *s)
{
    size_t n = 0;
    /* Re-init with the same key: one complete MAC per operation. */
    if (EVP_MAC_init(s->mac, NULL, 0, NULL) != 1) return tb_openssl_fail("EVP_MAC_init");
    if (EVP_MAC_update(s->mac, s->msg, s->msg_len) != 1) return tb_openssl_fail("EVP_MAC_update");
    if (EVP_MAC_final(s->mac, s->buf, &n, s->out_cap) != 1) return tb_openssl_fail("EVP_MAC_final");
    s->base.out_len = n;
    return TB_OK;
}

/* ---------- AEAD ---------- */

static tb_status prepare_aead(tb_openssl_state *s, const tb_job *job)
{
    const char *alg = job->alg;
    size_t key_len = 16;
    if (strcmp(alg, "aes-128-gcm") == 0) {
        s->cipher = EVP_aes_128_gcm();
    } else if (strcmp(alg, "aes-256-gcm") == 0) {
        s->cipher = EVP_aes_256_gcm();
        key_len = 32;
    } else if (strcmp(alg, "aes-128-ccm") == 0) {
        s->cipher = EVP_aes_128_ccm();
        s->ccm = 1;
    } else if (strcmp(alg, "chacha20-poly1305") == 0) {
        s->cipher = EVP_chacha20_poly1305();
        key_len = 32;
    } else {
        tb_set_error("%s is not an AEAD of this adapter", alg);
        return TB_UNSUPPORTED;
    }
    s->enc_key_len = key_len;
    if (job->key.len != key_len) {
        tb_set_error("key must be %zu bytes", key_len);
        return TB_BAD_INPUT;
    }
    if (s->ccm ? (job->nonce.len < 7 || job->nonce.len > 13) : job->nonce.len != 12) {
        tb_set_error("nonce must be %s bytes", s->ccm ? "7..13" : "12");
        return TB_BAD_INPUT;
    }
    if (s->op == OP_DEC && job->msg.len < 16) {
        tb_set_error("ciphertext shorter than the tag");
        return TB_BAD_INPUT;
    }
    s->rekey = job->rekey;
    memcpy(s->key, job->key.data, job->key.len);
    memcpy(s->nonce, job->nonce.data, job->nonce.len);
    s->nonce_len = job->nonce.len;
    s->aad = tb_dup(job->aad);
    s->aad_len = job->aad.len;
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    s->cctx = EVP_CIPHER_CTX_new();
    if (s->cctx == NULL) return tb_openssl_fail("EVP_CIPHER_CTX_new");
    int enc = s->op == OP_ENC;
    /* Key schedule once, here; run() only sets the IV. */
    if (EVP_CipherInit_ex(s->cctx, s->cipher, NULL, NULL, NULL, enc) != 1) return tb_openssl_fail("EVP_CipherInit_ex");
    if (EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_IVLEN, (int)s->nonce_len, NULL) != 1)
        return tb_openssl_fail("EVP_CTRL_AEAD_SET_IVLEN");
    if (s->ccm && EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_TAG, 16, NULL) != 1)
        return tb_openssl_fail("EVP_CTRL_AEAD_SET_TAG");
    if (EVP_CipherInit_ex(s->cctx, NULL, NULL, s->key, NULL, enc) != 1) return tb_openssl_fail("EVP_CipherInit_ex key");
    return tb_openssl_reserve_out(s, s->msg_len + 128);
}

/* rekey: what `openssl speed -aead` does before every AEAD operation: the
 * nonce length, then the key schedule and the nonce again. */
static tb_status rekey(tb_openssl_state *s)
{
    if (EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_IVLEN, (int)s->nonce_len, NULL) != 1)
        return tb_openssl_fail("EVP_CTRL_AEAD_SET_IVLEN");
    if (EVP_CipherInit_ex(s->cctx, NULL, NULL, s->key, s->nonce, -1) != 1) return tb_openssl_fail("EVP_CipherInit_ex");
    return TB_OK;
}

static tb_status run_aead_enc(tb_openssl_state *s)
{
    int n = 0, f = 0;
    if (s->ccm && EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_TAG, 16, NULL) != 1)
        return tb_openssl_fail("EVP_CTRL_AEAD_SET_TAG");
    if (s->rekey) {
        tb_status st = rekey(s);
        if (st != TB_OK) return st;
    } else if (EVP_EncryptInit_ex(s->cctx, NULL, NULL, s->ccm ? s->key : NULL, s->nonce) != 1) {
        return tb_openssl_fail("EVP_EncryptInit_ex");
    }
    if (s->ccm && EVP_EncryptUpdate(s->cctx, NULL, &n, NULL, (int)s->msg_len) != 1)
        return tb_openssl_fail("EVP_EncryptUpdate length");
    if (s->aad_len && EVP_EncryptUpdate(s->cctx, NULL, &n, s->aad, (int)s->aad_len) != 1)
        return tb_openssl_fail("EVP_EncryptUpdate aad");
    if (EVP_EncryptUpdate(s->cctx, s->buf, &n, s->msg, (int)s->msg_len) != 1) return tb_openssl_fail("EVP_EncryptUpdate");
    if (EVP_EncryptFinal_ex(s->cctx, s->buf + n, &f) != 1) return tb_openssl_fail("EVP_EncryptFinal_ex");
    /* Parameters directly: the legacy ctrl() is translated to them at a cost
     * of hundreds of ns per call in OpenSSL 3.0, which TLS does not pay. */
    OSSL_PARAM get[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, s->buf + n + f, 16),
                        OSSL_PARAM_END};
    if (EVP_CIPHER_CTX_get_params(s->cctx, get) != 1) return tb_openssl_fail("get AEAD tag");
    s->base.out_len = (size_t)(n + f) + 16;
    return TB_OK;
}

static tb_status run_aead_dec(tb_openssl_state *s)
{
    int n = 0, f = 0;
    size_t ct_len = s->msg_len - 16;
    uint8_t *tag = s->msg + ct_len;
    if (s->rekey) {
        tb_status st = rekey(s);
        if (st != TB_OK) return st;
    }
    if (s->ccm && EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1)
        return tb_openssl_fail("EVP_CTRL_AEAD_SET_TAG");
    if (EVP_DecryptInit_ex(s->cctx, NULL, NULL, s->ccm ? s->key : NULL, s->nonce) != 1)
        return tb_openssl_fail("EVP_DecryptInit_ex");
    if (s->ccm && EVP_DecryptUpdate(s->cctx, NULL, &n, NULL, (int)ct_len) != 1)
        return tb_openssl_fail("EVP_DecryptUpdate length");
    if (s->aad_len && EVP_DecryptUpdate(s->cctx, NULL, &n, s->aad, (int)s->aad_len) != 1)
        return tb_openssl_fail("EVP_DecryptUpdate aad");
    if (EVP_DecryptUpdate(s->cctx, s->buf, &n, s->msg, (int)ct_len) != 1) {
        if (s->ccm) { /* CCM checks the tag inside the update */
            ERR_clear_error();
            tb_set_error("tag mismatch");
            return TB_REJECT;
        }
        return tb_openssl_fail("EVP_DecryptUpdate");
    }
    if (!s->ccm) {
        OSSL_PARAM set[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16), OSSL_PARAM_END};
        if (EVP_CIPHER_CTX_set_params(s->cctx, set) != 1) return tb_openssl_fail("set AEAD tag");
        if (EVP_DecryptFinal_ex(s->cctx, s->buf + n, &f) != 1) {
            ERR_clear_error();
            tb_set_error("tag mismatch");
            return TB_REJECT;
        }
    }
    s->base.out_len = (size_t)(n + f);
    return TB_OK;
}

static int hash_supports(const char *alg, const char *op)
{
    (void)op;
    const char *n = md_name(alg);
    if (n == NULL) return 0;
    EVP_MD *md = EVP_MD_fetch(NULL, n, NULL);
    EVP_MD_free(md);
    return md != NULL;
}


/* the CBC + HMAC record is composed by the core from tb_library_prims */
static int aead_supports(const char *alg, const char *op)
{
    (void)op;
    return strncmp(alg, "aes-128-cbc-hmac", 16) != 0;
}

static tb_status run_aead(tb_openssl_state *s)
{
    return s->op == OP_ENC ? run_aead_enc(s) : run_aead_dec(s);
}

TB_OPENSSL_FAMILY(hash, hash_supports, prepare_hash, run_hash);
TB_OPENSSL_FAMILY(mac, tb_openssl_every_alg, prepare_mac, run_mac);
TB_OPENSSL_FAMILY(aead, aead_supports, prepare_aead, run_aead);

/* ---------- primitives the core composes (tb_prim_ops) ---------- */

typedef struct {
    EVP_CIPHER_CTX *ctx;
    int decrypt;
} cipher_t;

static int prim_supports(const char *alg)
{
    return strcmp(alg, "aes-128-cbc") == 0 || strcmp(alg, "hmac-sha1") == 0 || strcmp(alg, "hmac-sha256") == 0;
}

static void prim_cipher_free(void *p)
{
    cipher_t *c = p;
    if (c == NULL) return;
    EVP_CIPHER_CTX_free(c->ctx);
    free(c);
}

static tb_status prim_cipher_new(const char *alg, tb_bytes key, int decrypt, void **out)
{
    if (strcmp(alg, "aes-128-cbc") != 0 || key.len != 16) {
        tb_set_error("%s with a %zu-byte key is not a primitive here", alg, key.len);
        return TB_UNSUPPORTED;
    }
    cipher_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->decrypt = decrypt;
    c->ctx = EVP_CIPHER_CTX_new();
    /* Key schedule once, here; run() only sets the IV. The TLS record code
     * pads itself: no EVP padding. */
    if (c->ctx == NULL || EVP_CipherInit_ex(c->ctx, EVP_aes_128_cbc(), NULL, key.data, NULL, !decrypt) != 1 ||
        EVP_CIPHER_CTX_set_padding(c->ctx, 0) != 1) {
        prim_cipher_free(c);
        return tb_openssl_fail("EVP_CipherInit_ex (AES-128-CBC)");
    }
    *out = c;
    return TB_OK;
}

static tb_status prim_cipher_run(void *p, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    cipher_t *c = p;
    int n = 0;
    if (c->decrypt) {
        if (EVP_DecryptInit_ex(c->ctx, NULL, NULL, NULL, iv) != 1) return tb_openssl_fail("EVP_DecryptInit_ex");
        if (EVP_DecryptUpdate(c->ctx, out, &n, in, (int)len) != 1) return tb_openssl_fail("EVP_DecryptUpdate");
    } else {
        if (EVP_EncryptInit_ex(c->ctx, NULL, NULL, NULL, iv) != 1) return tb_openssl_fail("EVP_EncryptInit_ex");
        if (EVP_EncryptUpdate(c->ctx, out, &n, in, (int)len) != 1) return tb_openssl_fail("EVP_EncryptUpdate");
    }
    return TB_OK;
}

static void prim_mac_free(void *p)
{
    EVP_MAC_CTX_free(p);
}

static tb_status prim_mac_new(const char *alg, tb_bytes key, void **out)
{
    const char *md = strcmp(alg, "hmac-sha1") == 0 ? "SHA1" : strcmp(alg, "hmac-sha256") == 0 ? "SHA256" : NULL;
    if (md == NULL) {
        tb_set_error("%s is not a primitive here", alg);
        return TB_UNSUPPORTED;
    }
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return tb_openssl_fail("EVP_MAC_fetch");
    EVP_MAC_CTX *m = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (m == NULL) return tb_openssl_fail("EVP_MAC_CTX_new");
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)md, 0), OSSL_PARAM_END};
    if (EVP_MAC_init(m, key.data, key.len, params) != 1) {
        EVP_MAC_CTX_free(m);
        return tb_openssl_fail("EVP_MAC_init");
    }
    *out = m;
    return TB_OK;
}

static tb_status prim_mac_run(void *p, tb_bytes a, tb_bytes b, uint8_t *tag)
{
    EVP_MAC_CTX *m = p;
    size_t got = 0;
    /* Re-init with the same key: one complete MAC per call. */
    if (EVP_MAC_init(m, NULL, 0, NULL) != 1 || EVP_MAC_update(m, a.data, a.len) != 1 ||
        EVP_MAC_update(m, b.data, b.len) != 1 || EVP_MAC_final(m, tag, &got, EVP_MAX_MD_SIZE) != 1)
        return tb_openssl_fail("EVP_MAC (HMAC)");
    return TB_OK;
}

TB_DEFINE_PRIMS();
