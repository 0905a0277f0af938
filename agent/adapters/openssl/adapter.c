/* OpenSSL 3 adapter: the tb_library entry points (init, version, config),
 * the state every family fills and the table of the families, one per kind
 * (the dispatch is the core's, tb/family.h): sym.c (hash, mac, aead,
 * primitives), kex.c, pk.c (sig, pke), pq.c (kem, pqsig); TLS in tls.c. The EVP layer
 * throughout, the API TLS itself uses. */
#include "openssl_adapter.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tb_status tb_openssl_fail(const char *what)
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
                                        "keygen",   "derive", "exchange", "sign",    "verify",
                                        "encaps",   "decaps"};
    return TB_NAME_INDEX(names, op);
}

static tb_status adapter_init(void)
{
    /* Default provider, default DRBG seeded from the OS by OpenSSL itself. */
    if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1) return tb_openssl_fail("OPENSSL_init_crypto");
    uint8_t probe[16];
    if (RAND_bytes(probe, sizeof(probe)) != 1) return tb_openssl_fail("RAND_bytes");
    return TB_OK;
}

TB_DEFINE_RESEED_NOTHING()

static const char *adapter_version(void)
{
    return OpenSSL_version(OPENSSL_VERSION);
}

static const char *adapter_config(void)
{
    static char buf[512];
    snprintf(buf, sizeof(buf), "%s; %s; %s; %s", TB_LIBRARY_CONFIG, OpenSSL_version(OPENSSL_BUILT_ON),
             OpenSSL_version(OPENSSL_CPU_INFO), "ffdhe keygen: provider default private length");
    return buf;
}

tb_status tb_openssl_reserve_out(tb_openssl_state *s, size_t cap)
{
    s->buf = tb_zalloc(cap);
    s->out_cap = cap;
    s->base.out = s->buf;
    return s->buf == NULL ? TB_ERROR : TB_OK;
}

void tb_openssl_release(tb_family_state *st)
{
    tb_openssl_state *s = (tb_openssl_state *)st;
    EVP_MD_free(s->fetched);
    EVP_MAC_CTX_free(s->mac);
    EVP_CIPHER_CTX_free(s->cctx);
    EVP_PKEY_CTX_free(s->pctx);
    EVP_PKEY_free(s->pkey);
    OPENSSL_cleanse(s->key, sizeof(s->key));
    free(s->aad);
    free(s->msg);
    free(s->sig);
    free(s->buf);
    free(s);
}

tb_status tb_openssl_prepare(const tb_family *fam, const tb_job *job,
                             tb_status (*fill)(tb_openssl_state *s, const tb_job *job), tb_family_state **out)
{
    tb_openssl_state *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->base.fam = fam;
    s->kind = job->kind;
    s->op = op_code(job->op);
    snprintf(s->alg, sizeof(s->alg), "%s", job->alg);
    *out = &s->base;
    return fill(s, job);
}

tb_status tb_openssl_sign_or_verify(tb_openssl_state *s, EVP_MD_CTX *m)
{
    if (s->op == OP_SIGN) {
        size_t n = s->out_cap;
        if (EVP_DigestSign(m, s->buf, &n, s->msg, s->msg_len) != 1) return tb_openssl_fail("EVP_DigestSign");
        s->base.out_len = n;
        return TB_OK;
    }
    if (EVP_DigestVerify(m, s->sig, s->sig_len, s->msg, s->msg_len) != 1) {
        ERR_clear_error();
        tb_set_error("signature did not verify");
        return TB_REJECT;
    }
    s->base.out_len = 0;
    return TB_OK;
}

int tb_openssl_every_alg(const char *alg, const char *op)
{
    (void)alg;
    (void)op;
    return 1;
}

/* ---------- the contract ---------- */

static const tb_family *const families[] = {
    TB_CLASSIC_FAMILIES(openssl), [TB_KIND_KEM] = &tb_openssl_kem, [TB_KIND_PQSIG] = &tb_openssl_pqsig};

TB_DEFINE_FAMILY_ADAPTER("openssl", families, NULL, " is not in this OpenSSL build");
