/* OpenSSL 3 adapter: the EVP layer, the API TLS itself uses. */
#include "tb/adapter.h"
#include "tb/util.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_MAX (16384 + 512)

typedef struct {
    char alg[32];
    tb_kind kind;
    int op;
    /* hash / mac */
    const EVP_MD *md;
    EVP_MD *fetched;
    EVP_MAC_CTX *mac;
    /* aead */
    const EVP_CIPHER *cipher;
    EVP_CIPHER_CTX *cctx;
    int ccm;
    uint8_t key[64];
    size_t enc_key_len;
    uint8_t nonce[16];
    size_t nonce_len;
    uint8_t *aad, *msg;
    size_t aad_len, msg_len;
    /* public key */
    EVP_PKEY *pkey;
    EVP_PKEY_CTX *pctx;
    const char *group;
    int pad; /* RSA padding mode for sig */
    uint8_t *sig;
    size_t sig_len;
    /* output */
    uint8_t *out;
    size_t out_len, out_cap;
} state_t;

enum { OP_HASH, OP_MAC, OP_ENC, OP_DEC, OP_PUBLIC, OP_KEYGEN, OP_DERIVE, OP_EXCHANGE, OP_SIGN, OP_VERIFY };

static tb_status ossl_fail(const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "no error queued";
    if (e != 0) ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    tb_set_error("%s: %s", what, buf);
    return TB_ERROR;
}

static int op_code(const char *op)
{
    static const char *const names[] = {"hash",     "mac",    "encrypt",  "decrypt", "public",
                                        "keygen",   "derive", "exchange", "sign",    "verify"};
    for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
        if (strcmp(names[i], op) == 0) return i;
    }
    return -1;
}

static const char *md_name(const char *alg)
{
    static const char *const map[][2] = {
        {"md5", "MD5"},           {"sha1", "SHA1"},         {"sha224", "SHA224"},     {"sha256", "SHA256"},
        {"sha384", "SHA384"},     {"sha512", "SHA512"},     {"sha3-256", "SHA3-256"}, {"sha3-384", "SHA3-384"},
        {"sha3-512", "SHA3-512"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(map[i][0], alg) == 0) return map[i][1];
    }
    return NULL;
}

static tb_status openssl_init(void)
{
    /* Default provider, default DRBG seeded from the OS by OpenSSL itself. */
    if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1) return ossl_fail("OPENSSL_init_crypto");
    uint8_t probe[16];
    if (RAND_bytes(probe, sizeof(probe)) != 1) return ossl_fail("RAND_bytes");
    return TB_OK;
}

static const char *openssl_version(void)
{
    return OpenSSL_version(OPENSSL_VERSION);
}

static const char *openssl_config(void)
{
    static char buf[512];
    snprintf(buf, sizeof(buf), "%s; %s; %s; %s", TB_LIBRARY_CONFIG, OpenSSL_version(OPENSSL_BUILT_ON),
             OpenSSL_version(OPENSSL_CPU_INFO), "ffdhe keygen: provider default private length");
    return buf;
}

static int openssl_supports(tb_kind kind, const char *alg, const char *op)
{
    (void)op;
    switch (kind) {
    case TB_KIND_HASH: {
        const char *n = md_name(alg);
        if (n == NULL) return 0;
        EVP_MD *md = EVP_MD_fetch(NULL, n, NULL);
        EVP_MD_free(md);
        return md != NULL;
    }
    case TB_KIND_MAC:
    case TB_KIND_AEAD:
        /* the CBC + HMAC record is composed by the core from tb_library_prims */
        return strncmp(alg, "aes-128-cbc-hmac", 16) != 0;
    case TB_KIND_KEX:
    case TB_KIND_SIG:
    case TB_KIND_PKE:
        return 1; /* every catalog entry of these kinds is in OpenSSL 3 */
    default:
        return 0;
    }
}


static tb_status reserve_out(state_t *s, size_t cap)
{
    s->out = tb_zalloc(cap);
    s->out_cap = cap;
    return s->out == NULL ? TB_ERROR : TB_OK;
}

/* ---------- hash and MAC ---------- */

static tb_status prepare_hash(state_t *s, const tb_job *job)
{
    /* An explicit fetch, once: EVP_Digest with a legacy EVP_MD would look the
     * implementation up again on every call. */
    s->fetched = EVP_MD_fetch(NULL, md_name(job->alg), NULL);
    if (s->fetched == NULL) return ossl_fail("EVP_MD_fetch");
    s->md = s->fetched;
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    return reserve_out(s, EVP_MAX_MD_SIZE);
}

static tb_status run_hash(state_t *s)
{
    unsigned int n = 0;
    if (EVP_Digest(s->msg, s->msg_len, s->out, &n, s->md, NULL) != 1) return ossl_fail("EVP_Digest");
    s->out_len = n;
    return TB_OK;
}

static tb_status prepare_mac(state_t *s, const tb_job *job)
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return ossl_fail("EVP_MAC_fetch");
    s->mac = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (s->mac == NULL) return ossl_fail("EVP_MAC_CTX_new");
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0), OSSL_PARAM_END};
    if (EVP_MAC_init(s->mac, job->key.data, job->key.len, params) != 1) return ossl_fail("EVP_MAC_init");
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    return reserve_out(s, EVP_MAX_MD_SIZE);
}

static tb_status run_mac(state_t *s)
{
    size_t n = 0;
    /* Re-init with the same key: one complete MAC per operation. */
    if (EVP_MAC_init(s->mac, NULL, 0, NULL) != 1) return ossl_fail("EVP_MAC_init");
    if (EVP_MAC_update(s->mac, s->msg, s->msg_len) != 1) return ossl_fail("EVP_MAC_update");
    if (EVP_MAC_final(s->mac, s->out, &n, s->out_cap) != 1) return ossl_fail("EVP_MAC_final");
    s->out_len = n;
    return TB_OK;
}

/* ---------- AEAD ---------- */

static tb_status prepare_aead(state_t *s, const tb_job *job)
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
    memcpy(s->key, job->key.data, job->key.len);
    memcpy(s->nonce, job->nonce.data, job->nonce.len);
    s->nonce_len = job->nonce.len;
    s->aad = tb_dup(job->aad);
    s->aad_len = job->aad.len;
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    s->cctx = EVP_CIPHER_CTX_new();
    if (s->cctx == NULL) return ossl_fail("EVP_CIPHER_CTX_new");
    int enc = s->op == OP_ENC;
    /* Key schedule once, here; run() only sets the IV. */
    if (EVP_CipherInit_ex(s->cctx, s->cipher, NULL, NULL, NULL, enc) != 1) return ossl_fail("EVP_CipherInit_ex");
    if (EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_IVLEN, (int)s->nonce_len, NULL) != 1)
        return ossl_fail("EVP_CTRL_AEAD_SET_IVLEN");
    if (s->ccm && EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_TAG, 16, NULL) != 1)
        return ossl_fail("EVP_CTRL_AEAD_SET_TAG");
    if (EVP_CipherInit_ex(s->cctx, NULL, NULL, s->key, NULL, enc) != 1) return ossl_fail("EVP_CipherInit_ex key");
    return reserve_out(s, s->msg_len + 128);
}

static tb_status run_aead_enc(state_t *s)
{
    int n = 0, f = 0;
    if (s->ccm && EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_TAG, 16, NULL) != 1)
        return ossl_fail("EVP_CTRL_AEAD_SET_TAG");
    if (EVP_EncryptInit_ex(s->cctx, NULL, NULL, s->ccm ? s->key : NULL, s->nonce) != 1)
        return ossl_fail("EVP_EncryptInit_ex");
    if (s->ccm && EVP_EncryptUpdate(s->cctx, NULL, &n, NULL, (int)s->msg_len) != 1)
        return ossl_fail("EVP_EncryptUpdate length");
    if (s->aad_len && EVP_EncryptUpdate(s->cctx, NULL, &n, s->aad, (int)s->aad_len) != 1)
        return ossl_fail("EVP_EncryptUpdate aad");
    if (EVP_EncryptUpdate(s->cctx, s->out, &n, s->msg, (int)s->msg_len) != 1) return ossl_fail("EVP_EncryptUpdate");
    if (EVP_EncryptFinal_ex(s->cctx, s->out + n, &f) != 1) return ossl_fail("EVP_EncryptFinal_ex");
    /* Parameters directly: the legacy ctrl() is translated to them at a cost
     * of hundreds of ns per call in OpenSSL 3.0, which TLS does not pay. */
    OSSL_PARAM get[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, s->out + n + f, 16),
                        OSSL_PARAM_END};
    if (EVP_CIPHER_CTX_get_params(s->cctx, get) != 1) return ossl_fail("get AEAD tag");
    s->out_len = (size_t)(n + f) + 16;
    return TB_OK;
}

static tb_status run_aead_dec(state_t *s)
{
    int n = 0, f = 0;
    size_t ct_len = s->msg_len - 16;
    uint8_t *tag = s->msg + ct_len;
    if (s->ccm && EVP_CIPHER_CTX_ctrl(s->cctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1)
        return ossl_fail("EVP_CTRL_AEAD_SET_TAG");
    if (EVP_DecryptInit_ex(s->cctx, NULL, NULL, s->ccm ? s->key : NULL, s->nonce) != 1)
        return ossl_fail("EVP_DecryptInit_ex");
    if (s->ccm && EVP_DecryptUpdate(s->cctx, NULL, &n, NULL, (int)ct_len) != 1)
        return ossl_fail("EVP_DecryptUpdate length");
    if (s->aad_len && EVP_DecryptUpdate(s->cctx, NULL, &n, s->aad, (int)s->aad_len) != 1)
        return ossl_fail("EVP_DecryptUpdate aad");
    if (EVP_DecryptUpdate(s->cctx, s->out, &n, s->msg, (int)ct_len) != 1) {
        if (s->ccm) { /* CCM checks the tag inside the update */
            ERR_clear_error();
            tb_set_error("tag mismatch");
            return TB_REJECT;
        }
        return ossl_fail("EVP_DecryptUpdate");
    }
    if (!s->ccm) {
        OSSL_PARAM set[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16), OSSL_PARAM_END};
        if (EVP_CIPHER_CTX_set_params(s->cctx, set) != 1) return ossl_fail("set AEAD tag");
        if (EVP_DecryptFinal_ex(s->cctx, s->out + n, &f) != 1) {
            ERR_clear_error();
            tb_set_error("tag mismatch");
            return TB_REJECT;
        }
    }
    s->out_len = (size_t)(n + f);
    return TB_OK;
}

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
        return ossl_fail("EVP_CipherInit_ex (AES-128-CBC)");
    }
    *out = c;
    return TB_OK;
}

static tb_status prim_cipher_run(void *p, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    cipher_t *c = p;
    int n = 0;
    if (c->decrypt) {
        if (EVP_DecryptInit_ex(c->ctx, NULL, NULL, NULL, iv) != 1) return ossl_fail("EVP_DecryptInit_ex");
        if (EVP_DecryptUpdate(c->ctx, out, &n, in, (int)len) != 1) return ossl_fail("EVP_DecryptUpdate");
    } else {
        if (EVP_EncryptInit_ex(c->ctx, NULL, NULL, NULL, iv) != 1) return ossl_fail("EVP_EncryptInit_ex");
        if (EVP_EncryptUpdate(c->ctx, out, &n, in, (int)len) != 1) return ossl_fail("EVP_EncryptUpdate");
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
    if (mac == NULL) return ossl_fail("EVP_MAC_fetch");
    EVP_MAC_CTX *m = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (m == NULL) return ossl_fail("EVP_MAC_CTX_new");
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)md, 0), OSSL_PARAM_END};
    if (EVP_MAC_init(m, key.data, key.len, params) != 1) {
        EVP_MAC_CTX_free(m);
        return ossl_fail("EVP_MAC_init");
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
        return ossl_fail("EVP_MAC (HMAC)");
    return TB_OK;
}

const tb_prim_ops tb_library_prims = {
    .supports = prim_supports,
    .cipher_new = prim_cipher_new,
    .cipher_run = prim_cipher_run,
    .cipher_free = prim_cipher_free,
    .mac_new = prim_mac_new,
    .mac_run = prim_mac_run,
    .mac_free = prim_mac_free,
};

/* ---------- key exchange ---------- */

static const char *kex_group(const char *alg)
{
    if (strcmp(alg, "x25519") == 0) return "X25519";
    if (strcmp(alg, "x448") == 0) return "X448";
    if (strcmp(alg, "p256") == 0) return "P-256";
    if (strcmp(alg, "p384") == 0) return "P-384";
    if (strcmp(alg, "ffdhe2048") == 0) return "ffdhe2048";
    if (strcmp(alg, "ffdhe3072") == 0) return "ffdhe3072";
    return NULL;
}

static int is_ecx(const char *alg)
{
    return alg[0] == 'x';
}
static int is_ffdhe(const char *alg)
{
    return alg[0] == 'f';
}

/* g^x mod p for a named RFC 7919 group, padded to the prime length. */
static tb_status ffdhe_public(const char *alg, tb_bytes priv, uint8_t *out, size_t cap, size_t *len)
{
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)kex_group(alg), 0),
                           OSSL_PARAM_END};
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
    EVP_PKEY *group = NULL;
    BIGNUM *p = NULL, *g = NULL, *x = NULL, *y = NULL;
    BN_CTX *bn = BN_CTX_new();
    tb_status st = TB_OK;
    if (c == NULL || bn == NULL || EVP_PKEY_fromdata_init(c) != 1 ||
        EVP_PKEY_fromdata(c, &group, EVP_PKEY_KEY_PARAMETERS, params) != 1 ||
        EVP_PKEY_get_bn_param(group, OSSL_PKEY_PARAM_FFC_P, &p) != 1 ||
        EVP_PKEY_get_bn_param(group, OSSL_PKEY_PARAM_FFC_G, &g) != 1) {
        st = ossl_fail("DH group parameters");
    } else {
        size_t plen = (size_t)BN_num_bytes(p);
        x = BN_bin2bn(priv.data, (int)priv.len, NULL);
        y = BN_new();
        if (plen > cap || x == NULL || y == NULL || BN_mod_exp(y, g, x, p, bn) != 1 ||
            BN_bn2binpad(y, out, (int)plen) < 0) {
            st = ossl_fail("BN_mod_exp");
        } else {
            *len = plen;
        }
    }
    BN_clear_free(x);
    BN_free(y);
    BN_free(p);
    BN_free(g);
    BN_CTX_free(bn);
    EVP_PKEY_free(group);
    EVP_PKEY_CTX_free(c);
    return st;
}

/* Builds a key from raw private bytes (and optionally public bytes). */
static tb_status kex_key_from_raw(const char *alg, tb_bytes priv, tb_bytes pub, EVP_PKEY **out)
{
    if (is_ecx(alg)) {
        int type = strcmp(alg, "x25519") == 0 ? EVP_PKEY_X25519 : EVP_PKEY_X448;
        *out = priv.len ? EVP_PKEY_new_raw_private_key(type, NULL, priv.data, priv.len)
                        : EVP_PKEY_new_raw_public_key(type, NULL, pub.data, pub.len);
        if (*out == NULL) return ossl_fail("EVP_PKEY_new_raw_key");
        return TB_OK;
    }
    if (is_ffdhe(alg) && priv.len && !pub.len) {
        /* A private exponent alone: compute its public value g^x mod p. */
        uint8_t y[512];
        tb_status st = ffdhe_public(alg, priv, y, sizeof(y), &pub.len);
        if (st != TB_OK) return st;
        pub.data = y;
        return kex_key_from_raw(alg, priv, pub, out);
    }
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    BIGNUM *bn = NULL;
    tb_status st = TB_OK;
    const char *type = is_ffdhe(alg) ? "DH" : "EC";
    uint8_t point[1 + 2 * 66];
    if (!is_ffdhe(alg) && priv.len && !pub.len) {
        /* A private scalar alone: compute its public point, d * G. */
        size_t n = 0;
        EC_GROUP *g = EC_GROUP_new_by_curve_name(strcmp(alg, "p256") == 0 ? NID_X9_62_prime256v1 : NID_secp384r1);
        EC_POINT *q = g ? EC_POINT_new(g) : NULL;
        BIGNUM *d = BN_bin2bn(priv.data, (int)priv.len, NULL);
        if (q != NULL && d != NULL && EC_POINT_mul(g, q, d, NULL, NULL, NULL) == 1)
            n = EC_POINT_point2oct(g, q, POINT_CONVERSION_UNCOMPRESSED, point, sizeof(point), NULL);
        BN_free(d);
        EC_POINT_free(q);
        EC_GROUP_free(g);
        if (n == 0) {
            OSSL_PARAM_BLD_free(bld);
            return ossl_fail("EC_POINT_mul");
        }
        pub.data = point;
        pub.len = n;
    }
    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, kex_group(alg), 0);
    if (priv.len) {
        bn = BN_bin2bn(priv.data, (int)priv.len, NULL);
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, bn);
    }
    if (pub.len) {
        if (is_ffdhe(alg)) {
            BIGNUM *p = BN_bin2bn(pub.data, (int)pub.len, NULL);
            OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PUB_KEY, p);
            OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
            BN_free(p);
            OSSL_PARAM_BLD_free(bld);
            bld = NULL;
            EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
            if (c == NULL || EVP_PKEY_fromdata_init(c) != 1 ||
                EVP_PKEY_fromdata(c, out, priv.len ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1)
                st = ossl_fail("EVP_PKEY_fromdata");
            EVP_PKEY_CTX_free(c);
            OSSL_PARAM_free(params);
            BN_free(bn);
            return st;
        }
        OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub.data, pub.len);
    }
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (params == NULL || c == NULL || EVP_PKEY_fromdata_init(c) != 1 ||
        EVP_PKEY_fromdata(c, out, priv.len ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1)
        st = ossl_fail("EVP_PKEY_fromdata");
    EVP_PKEY_CTX_free(c);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_free(bn);
    return st;
}

/* The public value in the contract's byte format. */
static tb_status kex_public_bytes(const char *alg, EVP_PKEY *k, uint8_t *out, size_t *len)
{
    if (is_ecx(alg)) {
        size_t n = *len;
        if (EVP_PKEY_get_raw_public_key(k, out, &n) != 1) return ossl_fail("EVP_PKEY_get_raw_public_key");
        *len = n;
        return TB_OK;
    }
    if (is_ffdhe(alg)) {
        BIGNUM *pub = NULL;
        int plen = (EVP_PKEY_get_bits(k) + 7) / 8;
        if (EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_PUB_KEY, &pub) != 1) return ossl_fail("get pub");
        int ok = BN_bn2binpad(pub, out, plen);
        BN_free(pub);
        if (ok < 0) return ossl_fail("BN_bn2binpad");
        *len = (size_t)plen;
        return TB_OK;
    }
    size_t n = 0;
    if (EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, out, *len, &n) != 1)
        return ossl_fail("get encoded public key");
    *len = n;
    return TB_OK;
}

static tb_status prepare_kex(state_t *s, const tb_job *job)
{
    s->group = kex_group(job->alg);
    tb_status st = reserve_out(s, 1024);
    if (st != TB_OK) return st;
    if (s->op == OP_PUBLIC || s->op == OP_DERIVE) {
        if (job->key.len == 0) {
            tb_set_error("a private key is required");
            return TB_BAD_INPUT;
        }
        st = kex_key_from_raw(job->alg, job->key, (tb_bytes){0}, &s->pkey);
        if (st != TB_OK) return st;
    }
    if (s->op == OP_DERIVE || s->op == OP_EXCHANGE) {
        if (job->peer.len == 0) {
            tb_set_error("a peer public key is required");
            return TB_BAD_INPUT;
        }
        /* Kept as bytes: decoding and validating it is part of run(). */
        s->msg = tb_dup(job->peer);
        s->msg_len = job->peer.len;
    }
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        const char *type = is_ecx(job->alg) ? s->group : (is_ffdhe(job->alg) ? "DH" : "EC");
        s->pctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
        if (s->pctx == NULL || EVP_PKEY_keygen_init(s->pctx) != 1) return ossl_fail("EVP_PKEY_keygen_init");
        if (!is_ecx(job->alg)) {
            OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)s->group, 0),
                              OSSL_PARAM_END};
            if (EVP_PKEY_CTX_set_params(s->pctx, p) != 1) return ossl_fail("EVP_PKEY_CTX_set_params");
        }
    }
    return TB_OK;
}

/* The shared secret from the peer's public value as received: decode it,
 * then EVP_PKEY_derive_set_peer, which validates it as OpenSSL's TLS code
 * (ssl_derive) has it validated on every handshake. */
static tb_status derive_from_bytes(state_t *s, EVP_PKEY *own, const char *alg)
{
    EVP_PKEY *peer = NULL;
    tb_status st = kex_key_from_raw(alg, (tb_bytes){0}, (tb_bytes){s->msg, s->msg_len}, &peer);
    if (st != TB_OK) return st;
    EVP_PKEY_CTX *d = EVP_PKEY_CTX_new_from_pkey(NULL, own, NULL);
    size_t n = s->out_cap;
    if (d == NULL || EVP_PKEY_derive_init(d) != 1) {
        st = ossl_fail("EVP_PKEY_derive_init");
    } else if (is_ffdhe(alg) && EVP_PKEY_CTX_set_dh_pad(d, 1) != 1) {
        st = ossl_fail("EVP_PKEY_CTX_set_dh_pad");
    } else if (EVP_PKEY_derive_set_peer(d, peer) != 1) {
        st = ossl_fail("EVP_PKEY_derive_set_peer");
    } else if (EVP_PKEY_derive(d, s->out, &n) != 1) {
        st = ossl_fail("EVP_PKEY_derive");
    } else {
        s->out_len = n;
    }
    EVP_PKEY_CTX_free(d);
    EVP_PKEY_free(peer);
    return st;
}

static tb_status run_kex(state_t *s, const char *alg)
{
    if (s->op == OP_PUBLIC) {
        s->out_len = s->out_cap;
        return kex_public_bytes(alg, s->pkey, s->out, &s->out_len);
    }
    if (s->op == OP_DERIVE) return derive_from_bytes(s, s->pkey, alg);
    EVP_PKEY *fresh = NULL;
    if (EVP_PKEY_generate(s->pctx, &fresh) != 1) return ossl_fail("EVP_PKEY_generate");
    tb_status st;
    if (s->op == OP_KEYGEN) {
        s->out_len = s->out_cap;
        st = kex_public_bytes(alg, fresh, s->out, &s->out_len);
    } else {
        st = derive_from_bytes(s, fresh, alg);
    }
    EVP_PKEY_free(fresh);
    return st;
}

/* ---------- signatures and RSA encryption ---------- */

static tb_status load_sig_key(state_t *s, const tb_job *job)
{
    const char *alg = job->alg;
    if (strncmp(alg, "rsa", 3) == 0) {
        const unsigned char *p = job->key.data;
        s->pkey = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, (long)job->key.len);
        if (s->pkey == NULL) return ossl_fail("d2i_PrivateKey (PKCS#1 RSA)");
        return TB_OK;
    }
    if (strcmp(alg, "ed25519") == 0) {
        s->pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, job->key.data, job->key.len);
        if (s->pkey == NULL) return ossl_fail("EVP_PKEY_new_raw_private_key");
        return TB_OK;
    }
    const char *curve = strstr(alg, "p256") ? "p256" : "p384";
    return kex_key_from_raw(curve, job->key, job->pub, &s->pkey);
}

static tb_status prepare_sig(state_t *s, const tb_job *job)
{
    tb_status st = load_sig_key(s, job);
    if (st != TB_OK) return st;
    const char *alg = job->alg;
    s->md = strcmp(alg, "ed25519") == 0 ? NULL : (strstr(alg, "sha384") ? EVP_sha384() : EVP_sha256());
    s->pad = strstr(alg, "pss") ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING;
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    s->sig = tb_dup(job->sig);
    s->sig_len = job->sig.len;
    return reserve_out(s, 1024);
}

static tb_status run_sig(state_t *s, int rsa)
{
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    tb_status st = TB_OK;
    if (m == NULL) return ossl_fail("EVP_MD_CTX_new");
    int sign = s->op == OP_SIGN;
    int ok = sign ? EVP_DigestSignInit(m, &pc, s->md, NULL, s->pkey) : EVP_DigestVerifyInit(m, &pc, s->md, NULL, s->pkey);
    if (ok != 1) {
        st = ossl_fail("EVP_DigestSignInit/VerifyInit");
    } else if (rsa && (EVP_PKEY_CTX_set_rsa_padding(pc, s->pad) != 1 ||
                       (s->pad == RSA_PKCS1_PSS_PADDING &&
                        EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) != 1))) {
        st = ossl_fail("RSA padding");
    } else if (sign) {
        size_t n = s->out_cap;
        if (EVP_DigestSign(m, s->out, &n, s->msg, s->msg_len) != 1) {
            st = ossl_fail("EVP_DigestSign");
        } else {
            s->out_len = n;
        }
    } else {
        int v = EVP_DigestVerify(m, s->sig, s->sig_len, s->msg, s->msg_len);
        if (v != 1) {
            ERR_clear_error();
            tb_set_error("signature did not verify");
            st = TB_REJECT;
        } else {
            s->out_len = 0;
        }
    }
    EVP_MD_CTX_free(m);
    return st;
}

static tb_status prepare_pke(state_t *s, const tb_job *job)
{
    const unsigned char *p = job->key.data;
    s->pkey = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, (long)job->key.len);
    if (s->pkey == NULL) return ossl_fail("d2i_PrivateKey (PKCS#1 RSA)");
    s->pctx = EVP_PKEY_CTX_new_from_pkey(NULL, s->pkey, NULL);
    if (s->pctx == NULL) return ossl_fail("EVP_PKEY_CTX_new");
    int ok = s->op == OP_ENC ? EVP_PKEY_encrypt_init(s->pctx) : EVP_PKEY_decrypt_init(s->pctx);
    if (ok != 1 || EVP_PKEY_CTX_set_rsa_padding(s->pctx, RSA_PKCS1_PADDING) != 1) return ossl_fail("RSA init");
#ifdef OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION
    if (s->op == OP_DEC) {
        /* Report a padding failure as such (OpenSSL >= 3.2 otherwise returns
         * a random message, the implicit-rejection defence). */
        OSSL_PARAM prm[] = {OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_IMPLICIT_REJECTION, &(unsigned){0}),
                            OSSL_PARAM_END};
        EVP_PKEY_CTX_set_params(s->pctx, prm);
        ERR_clear_error();
    }
#endif
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    return reserve_out(s, 1024);
}

static tb_status run_pke(state_t *s)
{
    size_t n = s->out_cap;
    if (s->op == OP_ENC) {
        if (EVP_PKEY_encrypt(s->pctx, s->out, &n, s->msg, s->msg_len) != 1) return ossl_fail("EVP_PKEY_encrypt");
    } else if (EVP_PKEY_decrypt(s->pctx, s->out, &n, s->msg, s->msg_len) != 1) {
        ERR_clear_error();
        tb_set_error("PKCS#1 v1.5 padding check failed");
        return TB_REJECT;
    }
    s->out_len = n;
    return TB_OK;
}

/* ---------- the contract ---------- */

static void openssl_release(void *p)
{
    state_t *s = p;
    if (s == NULL) return;
    EVP_MD_free(s->fetched);
    EVP_MAC_CTX_free(s->mac);
    EVP_CIPHER_CTX_free(s->cctx);
    EVP_PKEY_CTX_free(s->pctx);
    EVP_PKEY_free(s->pkey);
    OPENSSL_cleanse(s->key, sizeof(s->key));
    free(s->aad);
    free(s->msg);
    free(s->sig);
    free(s->out);
    free(s);
}

static tb_status openssl_prepare(const tb_job *job, void **out)
{
    state_t *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->kind = job->kind;
    s->op = op_code(job->op);
    snprintf(s->alg, sizeof(s->alg), "%s", job->alg);
    tb_status st;
    switch (job->kind) {
    case TB_KIND_HASH:
        st = prepare_hash(s, job);
        break;
    case TB_KIND_MAC:
        st = prepare_mac(s, job);
        break;
    case TB_KIND_AEAD:
        st = prepare_aead(s, job);
        break;
    case TB_KIND_KEX:
        st = prepare_kex(s, job);
        break;
    case TB_KIND_SIG:
        st = prepare_sig(s, job);
        break;
    case TB_KIND_PKE:
        st = prepare_pke(s, job);
        break;
    default:
        st = TB_UNSUPPORTED;
    }
    if (st != TB_OK) {
        openssl_release(s);
        return st;
    }
    *out = s;
    return TB_OK;
}

static tb_status openssl_run(void *p)
{
    state_t *s = p;
    switch (s->kind) {
    case TB_KIND_HASH:
        return run_hash(s);
    case TB_KIND_MAC:
        return run_mac(s);
    case TB_KIND_AEAD:
        return s->op == OP_ENC ? run_aead_enc(s) : run_aead_dec(s);
    case TB_KIND_KEX:
        return run_kex(s, s->alg);
    case TB_KIND_SIG:
        return run_sig(s, strncmp(s->alg, "rsa", 3) == 0);
    case TB_KIND_PKE:
        return run_pke(s);
    default:
        return TB_UNSUPPORTED;
    }
}

static tb_status openssl_result(void *p, tb_bytes *out)
{
    state_t *s = p;
    out->data = s->out;
    out->len = s->out_len;
    return TB_OK;
}

const tb_adapter tb_library = {
    .name = "openssl",
    .init = openssl_init,
    .version = openssl_version,
    .config = openssl_config,
    .supports = openssl_supports,
    .prepare = openssl_prepare,
    .run = openssl_run,
    .result = openssl_result,
    .release = openssl_release,
};
