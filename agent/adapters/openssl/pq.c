/* OpenSSL adapter: post-quantum primitives (OpenSSL 3.5+): ML-KEM (kind
 * kem) through EVP_PKEY_encapsulate/decapsulate, ML-DSA and SLH-DSA (kind
 * pqsig) through EVP_DigestSign/Verify, keys from their FIPS 203/204/205
 * seeds (SLH-DSA: SK.seed || SK.prf || PK.seed, 3n bytes), or for ML-DSA
 * signing FIPS 204's encoded private key (known answers). Built
 * against an older OpenSSL (the system's 3.0), every entry is unsupported. */
#include "openssl_adapter.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/opensslv.h>

#include <string.h>

#if OPENSSL_VERSION_NUMBER >= 0x30500000L
#define TB_OPENSSL_PQ 1
#endif

#ifdef TB_OPENSSL_PQ

/* "ml-kem-768" -> "ML-KEM-768", the provider's algorithm name */
static const char *provider_name(const char *alg)
{
    static const char *const names[][2] = {
        {"ml-kem-512", "ML-KEM-512"}, {"ml-kem-768", "ML-KEM-768"}, {"ml-kem-1024", "ML-KEM-1024"},
        {"ml-dsa-44", "ML-DSA-44"},   {"ml-dsa-65", "ML-DSA-65"},   {"ml-dsa-87", "ML-DSA-87"},
        {"slh-dsa-sha2-128s", "SLH-DSA-SHA2-128s"}, {"slh-dsa-sha2-128f", "SLH-DSA-SHA2-128f"},
    };
    int i = TB_NAME_INDEX(names, alg);
    return i < 0 ? NULL : names[i][1];
}

/* The seed a key pair is made from: ML-KEM d || z, ML-DSA xi, SLH-DSA 3n bytes (n = 16 for the 128 sets). */
static size_t seed_len(int kind, const char *alg)
{
    if (kind == TB_KIND_KEM) return 64;
    return strncmp(alg, "slh-dsa-", 8) == 0 ? 48 : 32;
}

/* A key pair from its seed: the keygen operation, also the untimed set-up of decaps and sign. */
static tb_status key_from_seed(EVP_PKEY_CTX *ctx, int kem, const uint8_t *seed, size_t len, EVP_PKEY **out)
{
    OSSL_PARAM prm[] = {OSSL_PARAM_construct_octet_string(kem ? OSSL_PKEY_PARAM_ML_KEM_SEED : OSSL_PKEY_PARAM_ML_DSA_SEED,
                                                          (void *)seed, len),
                        OSSL_PARAM_END};
    if (EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_params(ctx, prm) != 1) return tb_openssl_fail("keygen init (seed)");
    if (EVP_PKEY_generate(ctx, out) != 1) return tb_openssl_fail("EVP_PKEY_generate");
    return TB_OK;
}

static tb_status seeded_key(tb_openssl_state *s, const tb_job *job, int kem)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, provider_name(s->alg), NULL);
    if (ctx == NULL) return tb_openssl_fail("EVP_PKEY_CTX_new_from_name");
    tb_status st = key_from_seed(ctx, kem, job->key.data, job->key.len, &s->pkey);
    EVP_PKEY_CTX_free(ctx);
    return st;
}

/* FIPS 204's encoded private key (skEncode), as published signing answers give it. */
static tb_status encoded_private_key(tb_openssl_state *s, const tb_job *job)
{
    s->pkey = EVP_PKEY_new_raw_private_key_ex(NULL, provider_name(s->alg), NULL, job->key.data, job->key.len);
    if (s->pkey == NULL) return tb_openssl_fail("EVP_PKEY_new_raw_private_key_ex");
    return TB_OK;
}

static tb_status public_key(tb_openssl_state *s, const tb_job *job)
{
    s->pkey = EVP_PKEY_new_raw_public_key_ex(NULL, provider_name(s->alg), NULL, job->pub.data, job->pub.len);
    if (s->pkey == NULL) return tb_openssl_fail("EVP_PKEY_new_raw_public_key_ex");
    return TB_OK;
}

static tb_status pq_fill(tb_openssl_state *s, const tb_job *job)
{
    int kem = job->kind == TB_KIND_KEM;
    /* SLH-DSA-SHA2-128f signatures are 17,088 bytes, every other output fits 8 KiB */
    tb_status st = tb_openssl_reserve_out(s, strncmp(s->alg, "slh-dsa-", 8) == 0 ? 17088 : 8192);
    if (st != TB_OK) return st;
    s->msg = tb_dup(job->msg);
    s->msg_len = job->msg.len;
    s->sig = tb_dup(job->sig);
    s->sig_len = job->sig.len;
    if (s->op == OP_KEYGEN) {
        unsigned want = (unsigned)seed_len(job->kind, s->alg);
        if (job->key.len != want) {
            tb_set_error("keygen needs the %u-byte seed as key", want);
            return TB_BAD_INPUT;
        }
        memcpy(s->key, job->key.data, job->key.len);
        s->enc_key_len = job->key.len;
        s->pctx = EVP_PKEY_CTX_new_from_name(NULL, provider_name(s->alg), NULL);
        return s->pctx == NULL ? tb_openssl_fail("EVP_PKEY_CTX_new_from_name") : TB_OK;
    }
    if (s->op == OP_ENCAPS) {
        if (job->nonce.len != 32) {
            tb_set_error("encaps needs the 32-byte m as nonce");
            return TB_BAD_INPUT;
        }
        memcpy(s->nonce, job->nonce.data, 32);
        st = public_key(s, job);
    } else if (s->op == OP_VERIFY) {
        st = public_key(s, job);
    } else if (s->op == OP_SIGN && strncmp(s->alg, "ml-dsa-", 7) == 0 && job->key.len != seed_len(job->kind, s->alg)) {
        st = encoded_private_key(s, job);
    } else {
        st = seeded_key(s, job, kem);
    }
    if (st != TB_OK || !kem) return st;
    s->pctx = EVP_PKEY_CTX_new_from_pkey(NULL, s->pkey, NULL);
    if (s->pctx == NULL) return tb_openssl_fail("EVP_PKEY_CTX_new_from_pkey");
    int ok = s->op == OP_ENCAPS ? EVP_PKEY_encapsulate_init(s->pctx, NULL) : EVP_PKEY_decapsulate_init(s->pctx, NULL);
    return ok == 1 ? TB_OK : tb_openssl_fail("EVP_PKEY_encapsulate/decapsulate_init");
}

static tb_status run_keygen(tb_openssl_state *s)
{
    EVP_PKEY *k = NULL;
    tb_status st = key_from_seed(s->pctx, s->kind == TB_KIND_KEM, s->key, s->enc_key_len, &k);
    if (st == TB_OK) {
        size_t n = s->out_cap;
        if (EVP_PKEY_get_raw_public_key(k, s->buf, &n) != 1) {
            st = tb_openssl_fail("EVP_PKEY_get_raw_public_key");
        } else {
            s->base.out_len = n;
        }
    }
    EVP_PKEY_free(k);
    return st;
}

static tb_status run_kem(tb_openssl_state *s)
{
    size_t ss_len = 32;
    if (s->op == OP_DECAPS) {
        if (EVP_PKEY_decapsulate(s->pctx, s->buf, &ss_len, s->msg, s->msg_len) != 1)
            return tb_openssl_fail("EVP_PKEY_decapsulate");
        s->base.out_len = ss_len;
        return TB_OK;
    }
    /* the encapsulation randomness m is one-shot in OpenSSL: given again for every call */
    OSSL_PARAM prm[] = {OSSL_PARAM_construct_octet_string(OSSL_KEM_PARAM_IKME, s->nonce, 32), OSSL_PARAM_END};
    size_t ct_len = s->out_cap - 32;
    if (EVP_PKEY_CTX_set_params(s->pctx, prm) != 1) return tb_openssl_fail("EVP_PKEY_CTX_set_params (ikmE)");
    if (EVP_PKEY_encapsulate(s->pctx, s->buf, &ct_len, s->buf + s->out_cap - 32, &ss_len) != 1)
        return tb_openssl_fail("EVP_PKEY_encapsulate");
    memmove(s->buf + ct_len, s->buf + s->out_cap - 32, ss_len);
    s->base.out_len = ct_len + ss_len;
    return TB_OK;
}

static tb_status run_sig(tb_openssl_state *s)
{
    int deterministic = 1;
    OSSL_PARAM prm[] = {OSSL_PARAM_construct_int(OSSL_SIGNATURE_PARAM_DETERMINISTIC, &deterministic), OSSL_PARAM_END};
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    if (m == NULL) return tb_openssl_fail("EVP_MD_CTX_new");
    int sign = s->op == OP_SIGN;
    int ok = sign ? EVP_DigestSignInit_ex(m, NULL, NULL, NULL, NULL, s->pkey, prm)
                  : EVP_DigestVerifyInit_ex(m, NULL, NULL, NULL, NULL, s->pkey, NULL);
    tb_status st = ok == 1 ? tb_openssl_sign_or_verify(s, m)
                           : tb_openssl_fail(sign ? "EVP_DigestSignInit_ex" : "EVP_DigestVerifyInit_ex");
    EVP_MD_CTX_free(m);
    return st;
}

static int pq_supports(const char *alg, const char *op)
{
    (void)op;
    return provider_name(alg) != NULL;
}

static tb_status run_kem_op(tb_openssl_state *s)
{
    return s->op == OP_KEYGEN ? run_keygen(s) : run_kem(s);
}

static tb_status run_pqsig_op(tb_openssl_state *s)
{
    return s->op == OP_KEYGEN ? run_keygen(s) : run_sig(s);
}

#else

static int pq_supports(const char *alg, const char *op)
{
    (void)alg;
    (void)op;
    return 0;
}

static tb_status pq_fill(tb_openssl_state *s, const tb_job *job)
{
    (void)s;
    (void)job;
    return TB_UNSUPPORTED;
}

static tb_status unsupported_run(tb_openssl_state *s)
{
    (void)s;
    return TB_UNSUPPORTED;
}
#define run_kem_op unsupported_run
#define run_pqsig_op unsupported_run

#endif

TB_OPENSSL_FAMILY(kem, pq_supports, pq_fill, run_kem_op);
TB_OPENSSL_FAMILY(pqsig, pq_supports, pq_fill, run_pqsig_op);
