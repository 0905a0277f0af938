/* OpenSSL 3 adapter: the tb_library entry points (init, version, config,
 * supports) and the dispatch to one family per file: sym.c (hash, mac,
 * aead, primitives), kex.c, pk.c (sig, pke); TLS in tls.c. The EVP layer
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
    for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
        if (strcmp(names[i], op) == 0) return i;
    }
    return -1;
}

static tb_status adapter_init(void)
{
    /* Default provider, default DRBG seeded from the OS by OpenSSL itself. */
    if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1) return tb_openssl_fail("OPENSSL_init_crypto");
    uint8_t probe[16];
    if (RAND_bytes(probe, sizeof(probe)) != 1) return tb_openssl_fail("RAND_bytes");
    return TB_OK;
}

/* OpenSSL draws from its own DRBG, seeded from the OS: a restarted
 * platform seed does not reach it, so nothing to rebuild (host only). */
static tb_status adapter_reseed(void)
{
    return TB_OK;
}

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

static int adapter_supports(tb_kind kind, const char *alg, const char *op)
{
    (void)op;
    switch (kind) {
    case TB_KIND_HASH:
    case TB_KIND_MAC:
    case TB_KIND_AEAD:
        return tb_openssl_sym_supports(kind, alg);
    case TB_KIND_KEX:
    case TB_KIND_SIG:
    case TB_KIND_PKE:
        return 1; /* every catalog entry of these kinds is in OpenSSL 3 */
    case TB_KIND_KEM:
    case TB_KIND_PQSIG:
        return tb_openssl_pq_supports(alg);
    default:
        return 0;
    }
}


tb_status tb_openssl_reserve_out(tb_openssl_state *s, size_t cap)
{
    s->out = tb_zalloc(cap);
    s->out_cap = cap;
    return s->out == NULL ? TB_ERROR : TB_OK;
}

/* ---------- the contract ---------- */

static void adapter_release(void *p)
{
    tb_openssl_state *s = p;
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

static tb_status adapter_prepare(const tb_job *job, void **out)
{
    tb_openssl_state *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->kind = job->kind;
    s->op = op_code(job->op);
    snprintf(s->alg, sizeof(s->alg), "%s", job->alg);
    tb_status st;
    switch (job->kind) {
    case TB_KIND_HASH:
    case TB_KIND_MAC:
    case TB_KIND_AEAD:
        st = tb_openssl_sym_prepare(s, job);
        break;
    case TB_KIND_KEX:
        st = tb_openssl_kex_prepare(s, job);
        break;
    case TB_KIND_SIG:
    case TB_KIND_PKE:
        st = tb_openssl_pk_prepare(s, job);
        break;
    case TB_KIND_KEM:
    case TB_KIND_PQSIG:
        st = tb_openssl_pq_prepare(s, job);
        break;
    default:
        st = TB_UNSUPPORTED;
    }
    return tb_settle(st, s, adapter_release, out);
}

static tb_status adapter_run(void *p)
{
    tb_openssl_state *s = p;
    switch (s->kind) {
    case TB_KIND_HASH:
    case TB_KIND_MAC:
    case TB_KIND_AEAD:
        return tb_openssl_sym_run(s);
    case TB_KIND_KEX:
        return tb_openssl_kex_run(s);
    case TB_KIND_SIG:
    case TB_KIND_PKE:
        return tb_openssl_pk_run(s);
    case TB_KIND_KEM:
    case TB_KIND_PQSIG:
        return tb_openssl_pq_run(s);
    default:
        return TB_UNSUPPORTED;
    }
}

static tb_status adapter_result(void *p, tb_bytes *out)
{
    tb_openssl_state *s = p;
    out->data = s->out;
    out->len = s->out_len;
    return TB_OK;
}

TB_DEFINE_ADAPTER("openssl");
