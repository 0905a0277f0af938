/* wolfSSL adapter: signatures (RSA PKCS#1 v1.5 / PSS, ECDSA, Ed25519) and
 * RSA PKCS#1 v1.5 encryption with wolfCrypt. */
#include "wolfssl_adapter.h"
#include "tb/util.h"

#include <stdlib.h>

static tb_status rsa_fill(state *s, const tb_job *job)
{
    word32 idx = 0;
    int ret = wc_InitRsaKey_ex(&s->u.rsa, NULL, TB_WOLFSSL_DEVID); /* "hw": its exponentiation to the PKA */
    if (ret != 0) return lib_fail("wc_InitRsaKey", ret);
    s->live = 1;
    ret = wc_RsaPrivateKeyDecode(job->key.data, &idx, &s->u.rsa, (word32)job->key.len);
    if (ret != 0) {
        tb_set_error("wc_RsaPrivateKeyDecode: %s (%d)", wc_GetErrorString(ret), ret);
        return TB_BAD_INPUT;
    }
    size_t k = (size_t)wc_RsaEncryptSize(&s->u.rsa);
    if (k * 8 != (size_t)s->alg->size) {
        tb_set_error("RSA key has a %zu-bit modulus, expected %d", k * 8, s->alg->size);
        return TB_BAD_INPUT;
    }
    ret = wc_RsaSetRNG(&s->u.rsa, &tb_wolfssl_rng); /* blinding (WC_RSA_BLINDING) */
    if (ret != 0) return lib_fail("wc_RsaSetRNG", ret);
    if (s->alg->fam == F_RSA_PKE) {
        if (s->op == OP_ENC && job->msg.len > k - 11) return bad_len("message", job->msg.len, "at most modulus - 11");
        if (s->op == OP_ENC && job->msg.len == 0) {
            tb_set_error("wc_RsaPublicEncrypt refuses an empty message");
            return TB_BAD_INPUT;
        }
        if (s->op == OP_DEC && job->msg.len != k) return bad_len("ciphertext", job->msg.len, "the modulus size");
    } else if (s->op == OP_VERIFY && job->sig.len != k) {
        return bad_len("signature", job->sig.len, "the modulus size");
    }
    return tb_wolfssl_alloc_out(s, k);
}

static tb_status ecdsa_fill(state *s, const tb_job *job)
{
    const alg_info *a = s->alg;
    size_t n = (size_t)a->size;
    int ret = TB_WOLFSSL_ECC_INIT(&s->u.ecc.k);
    if (ret != 0) return lib_fail("wc_ecc_init", ret);
    s->live = 1;
    if (s->op == OP_VERIFY && job->pub.len != 0) {
        if (job->pub.len != 1 + 2 * n) return bad_len("public key", job->pub.len, "0x04 || X || Y");
        ret = wc_ecc_import_x963_ex(job->pub.data, (word32)job->pub.len, &s->u.ecc.k, a->param);
        if (ret != 0) return lib_fail("wc_ecc_import_x963_ex", ret);
    } else {
        if (job->key.len != n) return bad_len("private key", job->key.len, "the scalar size");
        ret = wc_ecc_import_private_key_ex(job->key.data, (word32)n, NULL, 0, &s->u.ecc.k, a->param);
        if (ret != 0) return lib_fail("wc_ecc_import_private_key_ex", ret);
        ret = wc_ecc_set_rng(&s->u.ecc.k, &tb_wolfssl_rng);
        if (ret != 0) return lib_fail("wc_ecc_set_rng", ret);
        if (s->op == OP_VERIFY) {
            ret = wc_ecc_make_pub_ex(&s->u.ecc.k, NULL, &tb_wolfssl_rng);
            if (ret != 0) return lib_fail("wc_ecc_make_pub_ex", ret);
        }
    }
    return tb_wolfssl_alloc_out(s, 2 * n + 16);
}

static tb_status ed25519_fill(state *s, const tb_job *job)
{
    uint8_t pub[ED25519_PUB_KEY_SIZE];
    int ret = wc_ed25519_init(&s->u.ed);
    if (ret != 0) return lib_fail("wc_ed25519_init", ret);
    s->live = 1;
    if (s->op == OP_VERIFY && job->sig.len != ED25519_SIG_SIZE) return bad_len("signature", job->sig.len, "64");
    if (s->op == OP_VERIFY && job->pub.len != 0) {
        if (job->pub.len != ED25519_PUB_KEY_SIZE) return bad_len("public key", job->pub.len, "32");
        ret = wc_ed25519_import_public(job->pub.data, ED25519_PUB_KEY_SIZE, &s->u.ed);
        if (ret != 0) return lib_fail("wc_ed25519_import_public", ret);
    } else {
        if (job->key.len != ED25519_KEY_SIZE) return bad_len("private key (seed)", job->key.len, "32");
        ret = wc_ed25519_import_private_only(job->key.data, ED25519_KEY_SIZE, &s->u.ed);
        if (ret != 0) return lib_fail("wc_ed25519_import_private_only", ret);
        ret = wc_ed25519_make_public(&s->u.ed, pub, sizeof(pub));
        if (ret != 0) return lib_fail("wc_ed25519_make_public", ret);
        ret = wc_ed25519_import_private_key(job->key.data, ED25519_KEY_SIZE, pub, sizeof(pub), &s->u.ed);
        if (ret != 0) return lib_fail("wc_ed25519_import_private_key", ret);
    }
    return tb_wolfssl_alloc_out(s, ED25519_SIG_SIZE);
}

static tb_status sig_fill(state *s, const tb_job *job)
{
    switch (s->alg->fam) {
    case F_ECDSA: return ecdsa_fill(s, job);
    case F_ED25519: return ed25519_fill(s, job);
    default: return rsa_fill(s, job); /* F_RSA_PKCS1, F_RSA_PSS */
    }
}

tb_status tb_wolfssl_sig_run(tb_family_state *base)
{
    state *s = (state *)base;
    const alg_info *a = s->alg;
    word32 hlen = 0, k = (word32)a->size / 8;
    int ret, res = 0;
    if (a->fam != F_ED25519) {
        hlen = (word32)hash_size(a->hash);
        ret = wc_Hash((enum wc_HashType)a->hash, s->msg.data, (word32)s->msg.len, s->digest, hlen);
        if (ret != 0) return lib_fail("wc_Hash", ret);
    }
    s->base.out_len = 0;
    switch (a->fam) {
    case F_RSA_PKCS1: {
        uint8_t enc[128]; /* DigestInfo: ASN.1 prefix + digest */
        word32 enc_len = wc_EncodeSignature(enc, s->digest, hlen, wc_GetCTC_HashOID(a->hash));
        if (enc_len == 0) return lib_fail("wc_EncodeSignature", BAD_FUNC_ARG);
        if (s->op == OP_SIGN) {
            ret = wc_RsaSSL_Sign(enc, enc_len, out_buf(s), k, &s->u.rsa, &tb_wolfssl_rng);
            if (ret < 0) return lib_fail("wc_RsaSSL_Sign", ret);
            s->base.out_len = (size_t)ret;
            return TB_OK;
        }
        ret = wc_RsaSSL_Verify(s->sig.data, k, out_buf(s), k, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaSSL_Verify", ret);
        if ((word32)ret != enc_len || memcmp(out_buf(s), enc, enc_len) != 0) {
            tb_set_error("RSA PKCS#1 v1.5 signature does not match the message");
            return TB_REJECT;
        }
        return TB_OK;
    }
    case F_RSA_PSS:
        /* MGF1 with the same hash, salt length = hash length. */
        if (s->op == OP_SIGN) {
            ret = wc_RsaPSS_Sign_ex(s->digest, hlen, out_buf(s), k, (enum wc_HashType)a->hash, WC_MGF1SHA256, (int)hlen,
                                    &s->u.rsa, &tb_wolfssl_rng);
            if (ret < 0) return lib_fail("wc_RsaPSS_Sign_ex", ret);
            s->base.out_len = (size_t)ret;
            return TB_OK;
        }
        ret = wc_RsaPSS_Verify_ex((byte *)s->sig.data, k, out_buf(s), k, (enum wc_HashType)a->hash, WC_MGF1SHA256,
                                  (int)hlen, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaPSS_Verify_ex", ret);
        ret = wc_RsaPSS_CheckPadding_ex(s->digest, hlen, out_buf(s), (word32)ret, (enum wc_HashType)a->hash, (int)hlen,
                                        a->size);
        return ret == 0 ? TB_OK : check_fail("wc_RsaPSS_CheckPadding_ex", ret);
    case F_ECDSA:
        if (s->op == OP_SIGN) {
            word32 len = 2 * (word32)a->size + 16;
            ret = wc_ecc_sign_hash(s->digest, hlen, out_buf(s), &len, &tb_wolfssl_rng, &s->u.ecc.k);
            if (ret != 0) return lib_fail("wc_ecc_sign_hash", ret);
            s->base.out_len = len;
            return TB_OK;
        }
        ret = wc_ecc_verify_hash(s->sig.data, (word32)s->sig.len, s->digest, hlen, &res, &s->u.ecc.k);
        if (ret != 0) return check_fail("wc_ecc_verify_hash", ret);
        break;
    default: /* F_ED25519 */
        if (s->op == OP_SIGN) {
            word32 len = ED25519_SIG_SIZE;
            ret = wc_ed25519_sign_msg(s->msg.data, (word32)s->msg.len, out_buf(s), &len, &s->u.ed);
            if (ret != 0) return lib_fail("wc_ed25519_sign_msg", ret);
            s->base.out_len = len;
            return TB_OK;
        }
        ret = wc_ed25519_verify_msg(s->sig.data, ED25519_SIG_SIZE, s->msg.data, (word32)s->msg.len, &res, &s->u.ed);
        if (ret != 0) return check_fail("wc_ed25519_verify_msg", ret);
        break;
    }
    if (res != 1) {
        tb_set_error("signature does not verify");
        return TB_REJECT;
    }
    return TB_OK;
}

tb_status tb_wolfssl_pke_run(tb_family_state *base)
{
    state *s = (state *)base;
    word32 k = (word32)s->alg->size / 8;
    int ret;
    if (s->op == OP_ENC) {
        ret = wc_RsaPublicEncrypt(s->msg.data, (word32)s->msg.len, out_buf(s), k, &s->u.rsa, &tb_wolfssl_rng);
        if (ret < 0) return lib_fail("wc_RsaPublicEncrypt", ret);
    } else {
        ret = wc_RsaPrivateDecrypt(s->msg.data, k, out_buf(s), k, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaPrivateDecrypt", ret);
    }
    s->base.out_len = (size_t)ret;
    return TB_OK;
}

static void pk_release(tb_family_state *base)
{
    state *s = (state *)base;
    if (s->live) {
        switch (s->alg->fam) {
        case F_ECDSA: wc_ecc_free(&s->u.ecc.k); break;
        case F_ED25519: wc_ed25519_free(&s->u.ed); break;
        default: wc_FreeRsaKey(&s->u.rsa); break; /* F_RSA_PKCS1, F_RSA_PSS, F_RSA_PKE */
        }
    }
    tb_wolfssl_free(s);
}

TB_WOLFSSL_FAMILY(sig, TB_KIND_SIG, sig_fill, tb_wolfssl_sig_run, pk_release);
TB_WOLFSSL_FAMILY(pke, TB_KIND_PKE, rsa_fill, tb_wolfssl_pke_run, pk_release);
