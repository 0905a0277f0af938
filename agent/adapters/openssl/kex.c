/* OpenSSL adapter: key exchange (X25519, X448, P-256, P-384, ffdhe) through
 * EVP_PKEY, with the peer's public value decoded and validated inside run()
 * as OpenSSL's TLS code does for a received key share. */
#include "openssl_adapter.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/dh.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

#include <stdlib.h>
#include <string.h>

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
        st = tb_openssl_fail("DH group parameters");
    } else {
        size_t plen = (size_t)BN_num_bytes(p);
        x = BN_bin2bn(priv.data, (int)priv.len, NULL);
        y = BN_new();
        if (plen > cap || x == NULL || y == NULL || BN_mod_exp(y, g, x, p, bn) != 1 ||
            BN_bn2binpad(y, out, (int)plen) < 0) {
            st = tb_openssl_fail("BN_mod_exp");
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
tb_status tb_openssl_key_from_raw(const char *alg, tb_bytes priv, tb_bytes pub, EVP_PKEY **out)
{
    if (is_ecx(alg)) {
        int type = strcmp(alg, "x25519") == 0 ? EVP_PKEY_X25519 : EVP_PKEY_X448;
        *out = priv.len ? EVP_PKEY_new_raw_private_key(type, NULL, priv.data, priv.len)
                        : EVP_PKEY_new_raw_public_key(type, NULL, pub.data, pub.len);
        if (*out == NULL) return tb_openssl_fail("EVP_PKEY_new_raw_key");
        return TB_OK;
    }
    if (is_ffdhe(alg) && priv.len && !pub.len) {
        /* A private exponent alone: compute its public value g^x mod p. */
        uint8_t y[512];
        tb_status st = ffdhe_public(alg, priv, y, sizeof(y), &pub.len);
        if (st != TB_OK) return st;
        pub.data = y;
        return tb_openssl_key_from_raw(alg, priv, pub, out);
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
            return tb_openssl_fail("EC_POINT_mul");
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
                st = tb_openssl_fail("EVP_PKEY_fromdata");
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
        st = tb_openssl_fail("EVP_PKEY_fromdata");
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
        if (EVP_PKEY_get_raw_public_key(k, out, &n) != 1) return tb_openssl_fail("EVP_PKEY_get_raw_public_key");
        *len = n;
        return TB_OK;
    }
    if (is_ffdhe(alg)) {
        BIGNUM *pub = NULL;
        int plen = (EVP_PKEY_get_bits(k) + 7) / 8;
        if (EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_PUB_KEY, &pub) != 1) return tb_openssl_fail("get pub");
        int ok = BN_bn2binpad(pub, out, plen);
        BN_free(pub);
        if (ok < 0) return tb_openssl_fail("BN_bn2binpad");
        *len = (size_t)plen;
        return TB_OK;
    }
    size_t n = 0;
    if (EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, out, *len, &n) != 1)
        return tb_openssl_fail("get encoded public key");
    *len = n;
    return TB_OK;
}

static tb_status kex_fill(tb_openssl_state *s, const tb_job *job)
{
    s->group = kex_group(job->alg);
    tb_status st = tb_openssl_reserve_out(s, 1024);
    if (st != TB_OK) return st;
    if (s->op == OP_PUBLIC || s->op == OP_DERIVE) {
        if (job->key.len == 0) {
            tb_set_error("a private key is required");
            return TB_BAD_INPUT;
        }
        st = tb_openssl_key_from_raw(job->alg, job->key, (tb_bytes){0}, &s->pkey);
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
        if (s->pctx == NULL || EVP_PKEY_keygen_init(s->pctx) != 1) return tb_openssl_fail("EVP_PKEY_keygen_init");
        if (!is_ecx(job->alg)) {
            OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)s->group, 0),
                              OSSL_PARAM_END};
            if (EVP_PKEY_CTX_set_params(s->pctx, p) != 1) return tb_openssl_fail("EVP_PKEY_CTX_set_params");
        }
    }
    return TB_OK;
}

/* The shared secret from the peer's public value as received: decode it,
 * then EVP_PKEY_derive_set_peer, which validates it as OpenSSL's TLS code
 * (ssl_derive) has it validated on every handshake. */
static tb_status derive_from_bytes(tb_openssl_state *s, EVP_PKEY *own, const char *alg)
{
    EVP_PKEY *peer = NULL;
    tb_status st = tb_openssl_key_from_raw(alg, (tb_bytes){0}, (tb_bytes){s->msg, s->msg_len}, &peer);
    if (st != TB_OK) return st;
    EVP_PKEY_CTX *d = EVP_PKEY_CTX_new_from_pkey(NULL, own, NULL);
    size_t n = s->out_cap;
    if (d == NULL || EVP_PKEY_derive_init(d) != 1) {
        st = tb_openssl_fail("EVP_PKEY_derive_init");
    } else if (is_ffdhe(alg) && EVP_PKEY_CTX_set_dh_pad(d, 1) != 1) {
        st = tb_openssl_fail("EVP_PKEY_CTX_set_dh_pad");
    } else if (EVP_PKEY_derive_set_peer(d, peer) != 1) {
        st = tb_openssl_fail("EVP_PKEY_derive_set_peer");
    } else if (EVP_PKEY_derive(d, s->buf, &n) != 1) {
        st = tb_openssl_fail("EVP_PKEY_derive");
    } else {
        s->base.out_len = n;
    }
    EVP_PKEY_CTX_free(d);
    EVP_PKEY_free(peer);
    return st;
}

static tb_status kex_run_op(tb_openssl_state *s)
{
    const char *alg = s->alg;
    if (s->op == OP_PUBLIC) {
        s->base.out_len = s->out_cap;
        return kex_public_bytes(alg, s->pkey, s->buf, &s->base.out_len);
    }
    if (s->op == OP_DERIVE) return derive_from_bytes(s, s->pkey, alg);
    EVP_PKEY *fresh = NULL;
    if (EVP_PKEY_generate(s->pctx, &fresh) != 1) return tb_openssl_fail("EVP_PKEY_generate");
    tb_status st;
    if (s->op == OP_KEYGEN) {
        s->base.out_len = s->out_cap;
        st = kex_public_bytes(alg, fresh, s->buf, &s->base.out_len);
    } else {
        st = derive_from_bytes(s, fresh, alg);
    }
    EVP_PKEY_free(fresh);
    return st;
}


TB_OPENSSL_FAMILY(kex, tb_openssl_every_alg, kex_fill, kex_run_op);
