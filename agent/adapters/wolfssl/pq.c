/* wolfSSL adapter: post-quantum primitives where the tree has them (wolfSSL
 * 5.8+, TB_WOLFSSL_PQ from library.cmake): ML-KEM (kind kem) with wolfCrypt's
 * wc_MlKemKey_* and ML-DSA (kind pqsig) with wc_MlDsaKey_*, keys from their
 * FIPS 203/204 seeds (ML-DSA signing also from FIPS 204's encoded private
 * key, for known answers), every random input given (adapter.h); SLH-DSA (kind
 * pqsig, 5.9+, TB_WOLFSSL_SLHDSA) with wc_SlhDsaKey_*, keys from FIPS 205's
 * 3n-byte seed SK.seed || SK.prf || PK.seed, deterministic signing. */
#include "wolfssl_adapter.h"

#ifdef TB_WOLFSSL_PQ

#include <stdlib.h>

/* FIPS 204 deterministic signing: rnd is 32 zero bytes */
static const byte zero_rnd[32];

#ifdef TB_WOLFSSL_SLHDSA
static tb_status slhdsa_prepare(state *s, const tb_job *job)
{
    SlhDsaKey *k = &s->u.slhdsa;
    size_t n = (size_t)s->alg->size;
    int ret = wc_SlhDsaKey_Init(k, (enum SlhDsaParam)s->alg->param, NULL, INVALID_DEVID);
    if (ret != 0) return lib_fail("wc_SlhDsaKey_Init", ret);
    s->live = 1;
    if (s->op == OP_VERIFY) {
        ret = wc_SlhDsaKey_ImportPublic(k, job->pub.data, (word32)job->pub.len);
        return ret == 0 ? TB_OK : lib_fail("wc_SlhDsaKey_ImportPublic", ret);
    }
    if (job->key.len != 3 * n) return bad_len("SLH-DSA seed (key)", job->key.len, "48");
    memcpy(s->key, job->key.data, 3 * n);
    if (s->op == OP_KEYGEN) return TB_OK;
    ret = wc_SlhDsaKey_MakeKeyWithRandom(k, s->key, (word32)n, s->key + n, (word32)n, s->key + 2 * n, (word32)n);
    return ret == 0 ? TB_OK : lib_fail("wc_SlhDsaKey_MakeKeyWithRandom", ret);
}

static tb_status run_slhdsa(state *s)
{
    SlhDsaKey *k = &s->u.slhdsa;
    word32 n = (word32)s->alg->size, len = 17088;
    int ret;
    switch (s->op) {
    case OP_KEYGEN:
        ret = wc_SlhDsaKey_MakeKeyWithRandom(k, s->key, n, s->key + n, n, s->key + 2 * n, n);
        if (ret != 0) return lib_fail("wc_SlhDsaKey_MakeKeyWithRandom", ret);
        ret = wc_SlhDsaKey_ExportPublic(k, out_buf(s), &len);
        if (ret != 0) return lib_fail("wc_SlhDsaKey_ExportPublic", ret);
        s->base.out_len = len;
        return TB_OK;
    case OP_SIGN:
        ret = wc_SlhDsaKey_SignDeterministic(k, NULL, 0, s->msg.data, (word32)s->msg.len, out_buf(s), &len);
        if (ret != 0) return lib_fail("wc_SlhDsaKey_SignDeterministic", ret);
        s->base.out_len = len;
        return TB_OK;
    default:
        ret = wc_SlhDsaKey_Verify(k, NULL, 0, s->msg.data, (word32)s->msg.len, s->sig.data, (word32)s->sig.len);
        if (ret != 0) {
            tb_set_error("signature did not verify (%s)", wc_GetErrorString(ret));
            return TB_REJECT;
        }
        s->base.out_len = 0;
        return TB_OK;
    }
}
#endif

static tb_status pq_fill(state *s, const tb_job *job)
{
    int ret;
    /* SLH-DSA-SHA2-128f signatures are 17,088 bytes, every other output fits 8 KiB
     * (kept at 8 KiB where a board's heap is counted and SLH-DSA is absent) */
#ifdef TB_WOLFSSL_SLHDSA
    tb_status st = tb_wolfssl_alloc_out(s, s->alg->fam == F_SLHDSA ? 17088 : 8192);
#else
    tb_status st = tb_wolfssl_alloc_out(s, 8192);
#endif
    if (st != TB_OK) return st;
#ifdef TB_WOLFSSL_SLHDSA
    if (s->alg->fam == F_SLHDSA) return slhdsa_prepare(s, job);
#endif
    if (s->alg->fam == F_MLKEM) {
        MlKemKey *k = &s->u.mlkem;
        ret = wc_MlKemKey_Init(k, s->alg->param, NULL, INVALID_DEVID);
        if (ret != 0) return lib_fail("wc_MlKemKey_Init", ret);
        s->live = 1;
        if (s->op == OP_KEYGEN || s->op == OP_DECAPS) {
            if (job->key.len != 64) return bad_len("ML-KEM seed (key)", job->key.len, "64");
            memcpy(s->key, job->key.data, 64);
            if (s->op == OP_KEYGEN) return TB_OK;
            ret = wc_MlKemKey_MakeKeyWithRandom(k, s->key, 64);
            return ret == 0 ? TB_OK : lib_fail("wc_MlKemKey_MakeKeyWithRandom", ret);
        }
        if (s->nonce.len != 32) return bad_len("ML-KEM m (nonce)", s->nonce.len, "32");
        ret = wc_MlKemKey_DecodePublicKey(k, job->pub.data, (word32)job->pub.len);
        return ret == 0 ? TB_OK : lib_fail("wc_MlKemKey_DecodePublicKey", ret);
    }
    wc_MlDsaKey *k = &s->u.mldsa;
    ret = wc_MlDsaKey_Init(k, NULL, INVALID_DEVID);
    if (ret != 0) return lib_fail("wc_MlDsaKey_Init", ret);
    s->live = 1;
    ret = wc_MlDsaKey_SetParams(k, (byte)s->alg->param);
    if (ret != 0) return lib_fail("wc_MlDsaKey_SetParams", ret);
    if (s->op == OP_VERIFY) {
        ret = wc_MlDsaKey_ImportPubRaw(k, job->pub.data, (word32)job->pub.len);
        return ret == 0 ? TB_OK : lib_fail("wc_MlDsaKey_ImportPubRaw", ret);
    }
    if (s->op == OP_SIGN && job->key.len > 32) {
        /* FIPS 204's encoded private key, as published signing answers give it */
        ret = wc_MlDsaKey_ImportPrivRaw(k, job->key.data, (word32)job->key.len);
        return ret == 0 ? TB_OK : lib_fail("wc_MlDsaKey_ImportPrivRaw", ret);
    }
    if (job->key.len != 32) return bad_len("ML-DSA seed (key)", job->key.len, "32");
    memcpy(s->key, job->key.data, 32);
    if (s->op == OP_KEYGEN) return TB_OK;
    ret = wc_MlDsaKey_MakeKeyFromSeed(k, s->key);
    return ret == 0 ? TB_OK : lib_fail("wc_MlDsaKey_MakeKeyFromSeed", ret);
}

static tb_status run_mlkem(state *s)
{
    MlKemKey *k = &s->u.mlkem;
    word32 ct_len = 0, n = 0;
    int ret;
    switch (s->op) {
    case OP_KEYGEN:
        ret = wc_MlKemKey_MakeKeyWithRandom(k, s->key, 64);
        if (ret != 0) return lib_fail("wc_MlKemKey_MakeKeyWithRandom", ret);
        if ((ret = wc_MlKemKey_PublicKeySize(k, &n)) != 0) return lib_fail("wc_MlKemKey_PublicKeySize", ret);
        ret = wc_MlKemKey_EncodePublicKey(k, out_buf(s), n);
        if (ret != 0) return lib_fail("wc_MlKemKey_EncodePublicKey", ret);
        s->base.out_len = n;
        return TB_OK;
    case OP_ENCAPS:
        if ((ret = wc_MlKemKey_CipherTextSize(k, &ct_len)) != 0) return lib_fail("wc_MlKemKey_CipherTextSize", ret);
        ret = wc_MlKemKey_EncapsulateWithRandom(k, out_buf(s), out_buf(s) + ct_len, s->nonce.data, 32);
        if (ret != 0) return lib_fail("wc_MlKemKey_EncapsulateWithRandom", ret);
        s->base.out_len = ct_len + 32;
        return TB_OK;
    default:
        ret = wc_MlKemKey_Decapsulate(k, out_buf(s), s->msg.data, (word32)s->msg.len);
        if (ret != 0) return lib_fail("wc_MlKemKey_Decapsulate", ret);
        s->base.out_len = 32;
        return TB_OK;
    }
}

static tb_status run_mldsa(state *s)
{
    wc_MlDsaKey *k = &s->u.mldsa;
    word32 n = 8192;
    int ret, res = 0;
    switch (s->op) {
    case OP_KEYGEN:
        ret = wc_MlDsaKey_MakeKeyFromSeed(k, s->key);
        if (ret != 0) return lib_fail("wc_MlDsaKey_MakeKeyFromSeed", ret);
        ret = wc_MlDsaKey_ExportPubRaw(k, out_buf(s), &n);
        if (ret != 0) return lib_fail("wc_MlDsaKey_ExportPubRaw", ret);
        s->base.out_len = n;
        return TB_OK;
    case OP_SIGN:
        ret = wc_MlDsaKey_SignCtxWithSeed(k, NULL, 0, out_buf(s), &n, s->msg.data, (word32)s->msg.len, zero_rnd);
        if (ret != 0) return lib_fail("wc_MlDsaKey_SignCtxWithSeed", ret);
        s->base.out_len = n;
        return TB_OK;
    default:
        ret = wc_MlDsaKey_VerifyCtx(k, s->sig.data, (word32)s->sig.len, NULL, 0, s->msg.data, (word32)s->msg.len, &res);
        if (ret != 0) return check_fail("wc_MlDsaKey_VerifyCtx", ret);
        if (res != 1) {
            tb_set_error("signature did not verify");
            return TB_REJECT;
        }
        s->base.out_len = 0;
        return TB_OK;
    }
}

tb_status tb_wolfssl_pq_run(tb_family_state *base)
{
    state *s = (state *)base;
#ifdef TB_WOLFSSL_SLHDSA
    if (s->alg->fam == F_SLHDSA) return run_slhdsa(s);
#endif
    return s->alg->fam == F_MLKEM ? run_mlkem(s) : run_mldsa(s);
}

static void pq_free_key(state *s)
{
    if (s->alg->fam == F_MLKEM) {
        wc_MlKemKey_Free(&s->u.mlkem);
#ifdef TB_WOLFSSL_SLHDSA
    } else if (s->alg->fam == F_SLHDSA) {
        wc_SlhDsaKey_Free(&s->u.slhdsa);
#endif
    } else {
        wc_MlDsaKey_Free(&s->u.mldsa);
    }
}

static void pq_release(tb_family_state *base)
{
    state *s = (state *)base;
    if (s->live) pq_free_key(s);
    tb_wolfssl_free(s);
}

TB_WOLFSSL_FAMILY(kem, TB_KIND_KEM, pq_fill, tb_wolfssl_pq_run, pq_release);
TB_WOLFSSL_FAMILY(pqsig, TB_KIND_PQSIG, pq_fill, tb_wolfssl_pq_run, pq_release);

#else

/* An ISO C translation unit is never empty. */
typedef int tb_wolfssl_no_pq;

#endif
