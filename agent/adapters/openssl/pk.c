/* OpenSSL adapter: signatures (RSA PKCS#1 v1.5 / PSS, ECDSA, Ed25519) and
 * RSA PKCS#1 v1.5 encryption through EVP_DigestSign/Verify and EVP_PKEY. */
#include "openssl_adapter.h"

#include <openssl/err.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <stdlib.h>
#include <string.h>

static tb_status load_sig_key(tb_openssl_state *s, const tb_job *job)
{
    const char *alg = job->alg;
    if (strncmp(alg, "rsa", 3) == 0) {
        const unsigned char *p = job->key.data;
        s->pkey = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, (long)job->key.len);
        if (s->pkey == NULL) return tb_openssl_fail("d2i_PrivateKey (PKCS#1 RSA)");
        return TB_OK;
    }
    if (strcmp(alg, "ed25519") == 0) {
        s->pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, job->key.data, job->key.len);
        if (s->pkey == NULL) return tb_openssl_fail("EVP_PKEY_new_raw_private_key");
        return TB_OK;
    }
    const char *curve = strstr(alg, "p256") ? "p256" : "p384";
    return tb_openssl_key_from_raw(curve, job->key, job->pub, &s->pkey);
}

static tb_status prepare_sig(tb_openssl_state *s, const tb_job *job)
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
    return tb_openssl_reserve_out(s, 1024);
}

static tb_status run_sig(tb_openssl_state *s, int rsa)
{
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    tb_status st = TB_OK;
    if (m == NULL) return tb_openssl_fail("EVP_MD_CTX_new");
    int sign = s->op == OP_SIGN;
    int ok = sign ? EVP_DigestSignInit(m, &pc, s->md, NULL, s->pkey) : EVP_DigestVerifyInit(m, &pc, s->md, NULL, s->pkey);
    if (ok != 1) {
        st = tb_openssl_fail("EVP_DigestSignInit/VerifyInit");
    } else if (rsa && (EVP_PKEY_CTX_set_rsa_padding(pc, s->pad) != 1 ||
                       (s->pad == RSA_PKCS1_PSS_PADDING &&
                        EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) != 1))) {
        st = tb_openssl_fail("RSA padding");
    } else {
        st = tb_openssl_sign_or_verify(s, m);
    }
    EVP_MD_CTX_free(m);
    return st;
}

static tb_status prepare_pke(tb_openssl_state *s, const tb_job *job)
{
    const unsigned char *p = job->key.data;
    s->pkey = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, (long)job->key.len);
    if (s->pkey == NULL) return tb_openssl_fail("d2i_PrivateKey (PKCS#1 RSA)");
    s->pctx = EVP_PKEY_CTX_new_from_pkey(NULL, s->pkey, NULL);
    if (s->pctx == NULL) return tb_openssl_fail("EVP_PKEY_CTX_new");
    int ok = s->op == OP_ENC ? EVP_PKEY_encrypt_init(s->pctx) : EVP_PKEY_decrypt_init(s->pctx);
    if (ok != 1 || EVP_PKEY_CTX_set_rsa_padding(s->pctx, RSA_PKCS1_PADDING) != 1) return tb_openssl_fail("RSA init");
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
    return tb_openssl_reserve_out(s, 1024);
}

static tb_status run_pke(tb_openssl_state *s)
{
    size_t n = s->out_cap;
    if (s->op == OP_ENC) {
        if (EVP_PKEY_encrypt(s->pctx, s->buf, &n, s->msg, s->msg_len) != 1) return tb_openssl_fail("EVP_PKEY_encrypt");
    } else if (EVP_PKEY_decrypt(s->pctx, s->buf, &n, s->msg, s->msg_len) != 1) {
        ERR_clear_error();
        tb_set_error("PKCS#1 v1.5 padding check failed");
        return TB_REJECT;
    }
    s->base.out_len = n;
    return TB_OK;
}



static tb_status run_sig_of_alg(tb_openssl_state *s)
{
    return run_sig(s, strncmp(s->alg, "rsa", 3) == 0);
}

TB_OPENSSL_FAMILY(sig, tb_openssl_every_alg, prepare_sig, run_sig_of_alg);
TB_OPENSSL_FAMILY(pke, tb_openssl_every_alg, prepare_pke, run_pke);
