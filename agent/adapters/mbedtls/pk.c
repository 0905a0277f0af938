/* Signatures (RSA PKCS#1 v1.5 / PSS, ECDSA) and RSA PKCS#1 v1.5
 * encryption. Keys are parsed with mbedtls_pk (PKCS#1 RSAPrivateKey DER);
 * the operations call the rsa/ecdsa modules that Mbed TLS's pk layer, and
 * so its TLS stack, dispatches to (MBEDTLS_USE_PSA_CRYPTO off), except
 * ECDSA P-256 where a PSA driver serves it (TB_MBEDTLS_P256_PSA, the p256-m
 * profile): there psa_sign_hash / psa_verify_hash as the pk layer calls
 * them with MBEDTLS_USE_PSA_CRYPTO on (psa_p256.c). Mbed TLS has no EdDSA. */
#include "mbedtls_adapter.h"

#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/md.h>
#include <mbedtls/pk.h>
#include <mbedtls/psa_util.h>
#include <mbedtls/rsa.h>

#include <stdlib.h>
#include <string.h>

enum { SIG_PKCS1, SIG_PSS, SIG_ECDSA };

typedef struct {
    const char *name;
    int scheme;
    size_t bits;                /* RSA modulus size */
    mbedtls_ecp_group_id curve; /* ECDSA */
    mbedtls_md_type_t md;
} sig_alg;

static const sig_alg sigs[] = {
    {"rsa2048-pkcs1-sha256", SIG_PKCS1, 2048, MBEDTLS_ECP_DP_NONE, MBEDTLS_MD_SHA256},
    {"rsa3072-pkcs1-sha256", SIG_PKCS1, 3072, MBEDTLS_ECP_DP_NONE, MBEDTLS_MD_SHA256},
    {"rsa2048-pss-sha256", SIG_PSS, 2048, MBEDTLS_ECP_DP_NONE, MBEDTLS_MD_SHA256},
    {"rsa3072-pss-sha256", SIG_PSS, 3072, MBEDTLS_ECP_DP_NONE, MBEDTLS_MD_SHA256},
    {"ecdsa-p256-sha256", SIG_ECDSA, 0, MBEDTLS_ECP_DP_SECP256R1, MBEDTLS_MD_SHA256},
    {"ecdsa-p384-sha384", SIG_ECDSA, 0, MBEDTLS_ECP_DP_SECP384R1, MBEDTLS_MD_SHA384},
    /* "ed25519" is absent: Mbed TLS 3.6 implements no EdDSA. */
};

static const sig_alg *sig_find(const char *alg)
{
    int i = TB_NAME_INDEX(sigs, alg);
    return i < 0 ? NULL : &sigs[i];
}

static int sig_supports(const char *alg, const char *op)
{
    const sig_alg *a = sig_find(alg);
    if (a == NULL || (strcmp(op, "sign") != 0 && strcmp(op, "verify") != 0)) return 0;
    if (mbedtls_md_info_from_type(a->md) == NULL) return 0;
    switch (a->scheme) {
#if defined(MBEDTLS_RSA_C) && defined(MBEDTLS_PK_PARSE_C) && defined(MBEDTLS_PKCS1_V15)
    case SIG_PKCS1: return 1;
#endif
#if defined(MBEDTLS_RSA_C) && defined(MBEDTLS_PK_PARSE_C) && defined(MBEDTLS_PKCS1_V21)
    case SIG_PSS: return 1;
#endif
#if defined(MBEDTLS_ECDSA_C)
    case SIG_ECDSA: return mbedtls_ecp_curve_info_from_grp_id(a->curve) != NULL;
#endif
    default: return 0;
    }
}

/* Parses a PKCS#1 RSAPrivateKey DER of the expected size into pk. */
static tb_status rsa_load(mbedtls_pk_context *pk, tb_bytes key, size_t bits, const char *alg)
{
    if (key.len == 0) {
        tb_set_error("%s needs key = PKCS#1 RSAPrivateKey DER", alg);
        return TB_BAD_INPUT;
    }
    int ret = mbedtls_pk_parse_key(pk, key.data, key.len, NULL, 0, tb_mbedtls_rng, NULL);
    if (ret != 0) return tb_mbedtls_bad_input("mbedtls_pk_parse_key", ret);
    if (mbedtls_pk_get_type(pk) != MBEDTLS_PK_RSA) {
        tb_set_error("%s: key is not an RSA key", alg);
        return TB_BAD_INPUT;
    }
    if (mbedtls_pk_get_bitlen(pk) != bits) {
        tb_set_error("%s: key is %zu bits, expected %zu", alg, mbedtls_pk_get_bitlen(pk), bits);
        return TB_BAD_INPUT;
    }
    return TB_OK;
}

/* Verification errors are rejections, except running out of memory. */
static tb_status verify_failed(const char *fn, int ret)
{
    if (((-ret) & 0x7F) == -MBEDTLS_ERR_MPI_ALLOC_FAILED || ret == MBEDTLS_ERR_ECP_ALLOC_FAILED ||
        ret == MBEDTLS_ERR_MD_ALLOC_FAILED) {
        return tb_mbedtls_fail(fn, ret);
    }
    return tb_mbedtls_reject(fn, ret);
}

/* ---- sig ----------------------------------------------------------------- */

typedef struct {
    tb_family_state base;
    const sig_alg *a;
    int verify;
    mbedtls_pk_context pk;  /* RSA */
    mbedtls_ecdsa_context ec;
    const mbedtls_md_info_t *md;
    uint8_t *msg, *sig;
    size_t msg_len, sig_len;
    uint8_t hash[MBEDTLS_MD_MAX_SIZE];
    uint8_t buf[MBEDTLS_PK_SIGNATURE_MAX_SIZE];
    int psa; /* ECDSA P-256 through PSA (TB_MBEDTLS_P256_PSA) */
#if defined(TB_MBEDTLS_P256_PSA)
    uint8_t priv[TB_P256_SCALAR], pub[TB_P256_POINT]; /* as PSA imports them */
#endif
} sig_state;

#if defined(TB_MBEDTLS_P256_PSA)
/* The keys as PSA imports them, checked here (untimed) as ecdsa_load does:
 * the scalar by an import, the public key by an import or derived from the
 * scalar. */
static tb_status ecdsa_load_via_psa(sig_state *st, const tb_job *job)
{
    tb_status s = tb_mbedtls_psa_start();
    if (s != TB_OK) return s;
    if (job->key.len) {
        memcpy(st->priv + sizeof(st->priv) - job->key.len, job->key.data, job->key.len);
        if ((s = tb_mbedtls_p256_public(st->priv, st->pub)) != TB_OK) return s;
    }
    if (!st->verify || job->pub.len == 0) return TB_OK;
    if (job->pub.len != TB_P256_POINT || job->pub.data[0] != 0x04) {
        tb_set_error("%s pub must be 0x04 || X || Y (%d bytes)", st->a->name, TB_P256_POINT);
        return TB_BAD_INPUT;
    }
    memcpy(st->pub, job->pub.data, TB_P256_POINT);
    return tb_mbedtls_p256_check_public(st->pub);
}

static tb_status ecdsa_run_via_psa(sig_state *st, unsigned hlen)
{
    psa_algorithm_t hash = mbedtls_md_psa_alg_from_type(st->a->md);
    if (st->verify) {
        st->base.out_len = 0;
        return tb_mbedtls_p256_verify(st->pub, hash, st->hash, hlen, st->sig, st->sig_len);
    }
    size_t olen = 0;
    tb_status s = tb_mbedtls_p256_sign(st->priv, hash, st->hash, hlen, st->buf, sizeof(st->buf), &olen);
    st->base.out_len = s == TB_OK ? olen : 0;
    return s;
}
#endif

static tb_status ecdsa_load(sig_state *st, const tb_job *job)
{
    const sig_alg *a = st->a;
    const mbedtls_ecp_curve_info *ci = mbedtls_ecp_curve_info_from_grp_id(a->curve);
    size_t len = (ci->bit_size + 7) / 8;
    int ret;
    if (job->key.len > len || (job->key.len == 0 && (!st->verify || job->pub.len == 0))) {
        tb_set_error("%s needs key = big-endian scalar of 1..%zu bytes%s", a->name, len,
                     st->verify ? " or pub" : "");
        return TB_BAD_INPUT;
    }
#if defined(TB_MBEDTLS_P256_PSA)
    if (a->curve == MBEDTLS_ECP_DP_SECP256R1) {
        st->psa = 1;
        return ecdsa_load_via_psa(st, job);
    }
#endif
    if (job->key.len) {
        ret = mbedtls_ecp_read_key(a->curve, &st->ec, job->key.data, job->key.len);
        if (ret != 0) return tb_mbedtls_bad_input("mbedtls_ecp_read_key", ret);
    }
    if (!st->verify) return TB_OK;
    if (job->pub.len == 0) {
        ret = mbedtls_ecp_keypair_calc_public(&st->ec, tb_mbedtls_rng, NULL);
        return ret == 0 ? TB_OK : tb_mbedtls_fail("mbedtls_ecp_keypair_calc_public", ret);
    }
    if (job->pub.len != 1 + 2 * len || job->pub.data[0] != 0x04) {
        tb_set_error("%s pub must be 0x04 || X || Y (%zu bytes)", a->name, 1 + 2 * len);
        return TB_BAD_INPUT;
    }
    mbedtls_ecp_group grp;
    mbedtls_ecp_point Q;
    mbedtls_ecp_group_init(&grp);
    mbedtls_ecp_point_init(&Q);
    ret = mbedtls_ecp_group_load(&grp, a->curve);
    if (ret == 0) ret = mbedtls_ecp_point_read_binary(&grp, &Q, job->pub.data, job->pub.len);
    if (ret == 0) ret = mbedtls_ecp_check_pubkey(&grp, &Q);
    if (ret == 0) ret = mbedtls_ecp_set_public_key(a->curve, &st->ec, &Q);
    mbedtls_ecp_point_free(&Q);
    mbedtls_ecp_group_free(&grp);
    return ret == 0 ? TB_OK : tb_mbedtls_bad_input("mbedtls_ecp_set_public_key", ret);
}

static tb_status sig_prepare(const tb_job *job, tb_family_state **out)
{
    sig_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &tb_mbedtls_sig;
    st->base.out = st->buf;
    mbedtls_pk_init(&st->pk);
    mbedtls_ecdsa_init(&st->ec);
    *out = &st->base;

    const sig_alg *a = sig_find(job->alg);
    st->a = a;
    st->verify = strcmp(job->op, "verify") == 0;
    st->md = mbedtls_md_info_from_type(a->md);
    st->msg = tb_dup(job->msg);
    st->sig = tb_dup(job->sig);
    if (st->msg == NULL || st->sig == NULL) return TB_ERROR;
    st->msg_len = job->msg.len;
    st->sig_len = job->sig.len;

    if (a->scheme == SIG_ECDSA) return ecdsa_load(st, job);
    tb_status s = rsa_load(&st->pk, job->key, a->bits, a->name);
    if (s != TB_OK) return s;
    if (a->scheme == SIG_PSS) {
        /* MGF1 uses the context's hash; the salt length is passed per call. */
        int ret = mbedtls_rsa_set_padding(mbedtls_pk_rsa(st->pk), MBEDTLS_RSA_PKCS_V21, a->md);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_rsa_set_padding", ret);
    }
    return TB_OK;
}

static tb_status sig_run(tb_family_state *base)
{
    sig_state *st = (sig_state *)base;
    const sig_alg *a = st->a;
    int ret = mbedtls_md(st->md, st->msg, st->msg_len, st->hash);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_md", ret);
    unsigned hlen = mbedtls_md_get_size(st->md);

#if defined(TB_MBEDTLS_P256_PSA)
    if (st->psa) return ecdsa_run_via_psa(st, hlen);
#endif
    if (a->scheme == SIG_ECDSA) {
        if (st->verify) {
            ret = mbedtls_ecdsa_read_signature(&st->ec, st->hash, hlen, st->sig, st->sig_len);
            if (ret != 0) return verify_failed("mbedtls_ecdsa_read_signature", ret);
            st->base.out_len = 0;
            return TB_OK;
        }
        size_t olen = 0;
        ret = mbedtls_ecdsa_write_signature(&st->ec, a->md, st->hash, hlen, st->buf,
                                            sizeof(st->buf), &olen, tb_mbedtls_rng, NULL);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_ecdsa_write_signature", ret);
        st->base.out_len = olen;
        return TB_OK;
    }

    mbedtls_rsa_context *rsa = mbedtls_pk_rsa(st->pk);
    size_t k = mbedtls_rsa_get_len(rsa);
    if (st->verify) {
        if (st->sig_len != k) {
            tb_set_error("%s: signature is %zu bytes, the modulus %zu", a->name, st->sig_len, k);
            return TB_REJECT;
        }
        if (a->scheme == SIG_PKCS1) {
            ret = mbedtls_rsa_rsassa_pkcs1_v15_verify(rsa, a->md, hlen, st->hash, st->sig);
            if (ret != 0) return verify_failed("mbedtls_rsa_rsassa_pkcs1_v15_verify", ret);
        } else {
            ret = mbedtls_rsa_rsassa_pss_verify_ext(rsa, a->md, hlen, st->hash, a->md, (int)hlen,
                                                    st->sig);
            if (ret != 0) return verify_failed("mbedtls_rsa_rsassa_pss_verify_ext", ret);
        }
        st->base.out_len = 0;
        return TB_OK;
    }
    if (a->scheme == SIG_PKCS1) {
        ret = mbedtls_rsa_rsassa_pkcs1_v15_sign(rsa, tb_mbedtls_rng, NULL, a->md, hlen, st->hash, st->buf);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_rsa_rsassa_pkcs1_v15_sign", ret);
    } else {
        /* Salt length = hash length, explicitly. */
        ret = mbedtls_rsa_rsassa_pss_sign_ext(rsa, tb_mbedtls_rng, NULL, a->md, hlen, st->hash, (int)hlen,
                                              st->buf);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_rsa_rsassa_pss_sign_ext", ret);
    }
    st->base.out_len = k;
    return TB_OK;
}

static void sig_release(tb_family_state *base)
{
    sig_state *st = (sig_state *)base;
    mbedtls_pk_free(&st->pk);
    mbedtls_ecdsa_free(&st->ec);
    free(st->msg);
    free(st->sig);
    free(st);
}

const tb_family tb_mbedtls_sig = {sig_supports, sig_prepare, sig_run, sig_release};

/* ---- pke ----------------------------------------------------------------- */

static const struct {
    const char *name;
    size_t bits;
} pkes[] = {{"rsa2048-pkcs1v15", 2048}, {"rsa3072-pkcs1v15", 3072}};

static size_t pke_bits(const char *alg)
{
    int i = TB_NAME_INDEX(pkes, alg);
    return i < 0 ? 0 : pkes[i].bits;
}

static int pke_supports(const char *alg, const char *op)
{
#if defined(MBEDTLS_RSA_C) && defined(MBEDTLS_PK_PARSE_C) && defined(MBEDTLS_PKCS1_V15)
    return pke_bits(alg) != 0 && (strcmp(op, "encrypt") == 0 || strcmp(op, "decrypt") == 0);
#else
    (void)alg;
    (void)op;
    return 0;
#endif
}

typedef struct {
    tb_family_state base;
    const char *alg;
    int decrypt;
    mbedtls_pk_context pk;
    uint8_t *msg;
    size_t msg_len;
    uint8_t buf[MBEDTLS_MPI_MAX_SIZE];
} pke_state;

static tb_status pke_prepare(const tb_job *job, tb_family_state **out)
{
    pke_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &tb_mbedtls_pke;
    st->base.out = st->buf;
    mbedtls_pk_init(&st->pk);
    *out = &st->base;

    st->alg = job->alg;
    st->decrypt = strcmp(job->op, "decrypt") == 0;
    tb_status s = rsa_load(&st->pk, job->key, pke_bits(job->alg), job->alg);
    if (s != TB_OK) return s;
    size_t k = mbedtls_rsa_get_len(mbedtls_pk_rsa(st->pk));
    if (st->decrypt ? job->msg.len != k : job->msg.len + 11 > k) {
        tb_set_error("%s: %s must be %s%zu bytes, got %zu", job->alg,
                     st->decrypt ? "ciphertext" : "message", st->decrypt ? "" : "at most ",
                     st->decrypt ? k : k - 11, job->msg.len);
        return TB_BAD_INPUT;
    }
    st->msg = tb_dup(job->msg);
    if (st->msg == NULL) return TB_ERROR;
    st->msg_len = job->msg.len;
    return TB_OK;
}

static tb_status pke_run(tb_family_state *base)
{
    pke_state *st = (pke_state *)base;
    mbedtls_rsa_context *rsa = mbedtls_pk_rsa(st->pk);
    size_t k = mbedtls_rsa_get_len(rsa);
    int ret;
    if (st->decrypt) {
        size_t olen = 0;
        ret = mbedtls_rsa_rsaes_pkcs1_v15_decrypt(rsa, tb_mbedtls_rng, NULL, &olen, st->msg, st->buf, k);
        /* Bad padding, or a ciphertext not below the modulus. */
        if (ret == MBEDTLS_ERR_RSA_INVALID_PADDING ||
            ret == MBEDTLS_ERR_RSA_PRIVATE_FAILED + MBEDTLS_ERR_MPI_BAD_INPUT_DATA) {
            return tb_mbedtls_reject("mbedtls_rsa_rsaes_pkcs1_v15_decrypt", ret);
        }
        if (ret != 0) return tb_mbedtls_fail("mbedtls_rsa_rsaes_pkcs1_v15_decrypt", ret);
        st->base.out_len = olen;
        return TB_OK;
    }
    ret = mbedtls_rsa_rsaes_pkcs1_v15_encrypt(rsa, tb_mbedtls_rng, NULL, st->msg_len, st->msg, st->buf);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_rsa_rsaes_pkcs1_v15_encrypt", ret);
    st->base.out_len = k;
    return TB_OK;
}

static void pke_release(tb_family_state *base)
{
    pke_state *st = (pke_state *)base;
    mbedtls_pk_free(&st->pk);
    free(st->msg);
    free(st);
}

const tb_family tb_mbedtls_pke = {pke_supports, pke_prepare, pke_run, pke_release};
