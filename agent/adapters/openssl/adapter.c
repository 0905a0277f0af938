/* OpenSSL 3 adapter: the tb_library entry points (init, version, config),
 * the state every family fills and the table of the families, one per kind
 * (the dispatch is the core's, tb/family.h): sym.c (hash, mac, aead,
 * primitives), kex.c, pk.c (sig, pke), pq.c (kem, pqsig); TLS in tls.c. The EVP layer
 * throughout, the API TLS itself uses. */
#include "openssl_adapter.h"

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include "tb/platform.h"

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

/* ---- The fixed generator (only where the platform's seed is a fixed
 * stream: TLSBENCH_FIXED_SEED=1 on the host). OpenSSL's own DRBGs seed from
 * the OS and mix the pid and the time into their nonce, so two runs drew
 * different numbers and counted different instructions. Here every DRBG
 * OpenSSL makes (primary, public, private, in any thread) is an EVP_RAND of
 * a tiny built-in provider that hands out the platform's stream itself:
 * tb_rng_restart puts that stream back at its start before every handshake
 * and batch, so nothing of ours needs rebuilding (adapter_reseed). Built on
 * the provider API of OpenSSL 3.0 (RAND_set_DRBG_type): 3.0 has no
 * generating mode in its own TEST-RAND, which only replays bytes it was
 * given, per DRBG instance. Test material only: never an entropy source. */

#define FIXED_RAND "TB-FIXED-SEED"
#define FIXED_PROVIDER "tlsbench-fixed-seed"

static int fixed_rand_state = EVP_RAND_STATE_UNINITIALISED;

static void *fixed_rand_new(void *provctx, void *parent, const OSSL_DISPATCH *parent_calls)
{
    (void)provctx;
    (void)parent;
    (void)parent_calls;
    return &fixed_rand_state; /* no state of its own: the platform's stream is the state */
}

static void fixed_rand_free(void *ctx)
{
    (void)ctx;
}

static int fixed_rand_instantiate(void *ctx, unsigned int strength, int prediction_resistance,
                                  const unsigned char *pstr, size_t pstr_len, const OSSL_PARAM params[])
{
    (void)ctx;
    (void)strength;
    (void)prediction_resistance;
    (void)pstr;
    (void)pstr_len;
    (void)params;
    fixed_rand_state = EVP_RAND_STATE_READY;
    return 1;
}

static int fixed_rand_uninstantiate(void *ctx)
{
    (void)ctx;
    return 1;
}

static int fixed_rand_generate(void *ctx, unsigned char *out, size_t outlen, unsigned int strength,
                               int prediction_resistance, const unsigned char *adin, size_t adin_len)
{
    (void)ctx;
    (void)strength;
    (void)prediction_resistance;
    (void)adin;
    (void)adin_len;
    return tb_platform_seed(out, outlen) == 0;
}

static int fixed_rand_reseed(void *ctx, int prediction_resistance, const unsigned char *entropy,
                             size_t entropy_len, const unsigned char *adin, size_t adin_len)
{
    (void)ctx;
    (void)prediction_resistance;
    (void)entropy;
    (void)entropy_len;
    (void)adin;
    (void)adin_len;
    return 1;
}

/* The agent draws from one thread at a time (the stack pass's worker runs
 * while the main thread waits), so the lock OpenSSL asks for is nothing. */
static int fixed_rand_enable_locking(void *ctx)
{
    (void)ctx;
    return 1;
}

static const OSSL_PARAM *fixed_rand_gettable(void *ctx, void *provctx)
{
    (void)ctx;
    (void)provctx;
    static const OSSL_PARAM known[] = {OSSL_PARAM_int(OSSL_RAND_PARAM_STATE, NULL),
                                       OSSL_PARAM_uint(OSSL_RAND_PARAM_STRENGTH, NULL),
                                       OSSL_PARAM_size_t(OSSL_RAND_PARAM_MAX_REQUEST, NULL), OSSL_PARAM_END};
    return known;
}

static int fixed_rand_get(void *ctx, OSSL_PARAM params[])
{
    (void)ctx;
    OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_STATE);
    if (p != NULL && !OSSL_PARAM_set_int(p, fixed_rand_state)) return 0;
    p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_STRENGTH);
    if (p != NULL && !OSSL_PARAM_set_uint(p, 256)) return 0;
    p = OSSL_PARAM_locate(params, OSSL_RAND_PARAM_MAX_REQUEST);
    if (p != NULL && !OSSL_PARAM_set_size_t(p, 1u << 16)) return 0;
    return 1;
}

static const OSSL_DISPATCH fixed_rand_functions[] = {
    {OSSL_FUNC_RAND_NEWCTX, (void (*)(void))fixed_rand_new},
    {OSSL_FUNC_RAND_FREECTX, (void (*)(void))fixed_rand_free},
    {OSSL_FUNC_RAND_INSTANTIATE, (void (*)(void))fixed_rand_instantiate},
    {OSSL_FUNC_RAND_UNINSTANTIATE, (void (*)(void))fixed_rand_uninstantiate},
    {OSSL_FUNC_RAND_GENERATE, (void (*)(void))fixed_rand_generate},
    {OSSL_FUNC_RAND_RESEED, (void (*)(void))fixed_rand_reseed},
    {OSSL_FUNC_RAND_ENABLE_LOCKING, (void (*)(void))fixed_rand_enable_locking},
    {OSSL_FUNC_RAND_GETTABLE_CTX_PARAMS, (void (*)(void))fixed_rand_gettable},
    {OSSL_FUNC_RAND_GET_CTX_PARAMS, (void (*)(void))fixed_rand_get},
    {0, NULL}};

static const OSSL_ALGORITHM fixed_rand_algorithms[] = {
    {FIXED_RAND, "provider=" FIXED_PROVIDER, fixed_rand_functions, "the platform's fixed test stream"},
    {NULL, NULL, NULL, NULL}};

static const OSSL_ALGORITHM *fixed_query(void *provctx, int operation_id, int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    return operation_id == OSSL_OP_RAND ? fixed_rand_algorithms : NULL;
}

static const OSSL_DISPATCH fixed_provider_functions[] = {
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))fixed_query}, {0, NULL}};

static int fixed_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in, const OSSL_DISPATCH **out,
                               void **provctx)
{
    (void)handle;
    (void)in;
    *out = fixed_provider_functions;
    *provctx = NULL;
    return 1;
}

/* Before OpenSSL makes its first DRBG: once made, its type stays. Loading a
 * provider by hand stops the default one loading by itself, so it is
 * loaded too. */
static tb_status use_fixed_rand(void)
{
    if (OSSL_PROVIDER_add_builtin(NULL, FIXED_PROVIDER, fixed_provider_init) != 1)
        return tb_openssl_fail("OSSL_PROVIDER_add_builtin");
    if (OSSL_PROVIDER_load(NULL, FIXED_PROVIDER) == NULL) return tb_openssl_fail("OSSL_PROVIDER_load " FIXED_PROVIDER);
    if (OSSL_PROVIDER_load(NULL, "default") == NULL) return tb_openssl_fail("OSSL_PROVIDER_load default");
    if (RAND_set_DRBG_type(NULL, FIXED_RAND, "provider=" FIXED_PROVIDER, NULL, NULL) != 1)
        return tb_openssl_fail("RAND_set_DRBG_type");
    return TB_OK;
}

static tb_status adapter_init(void)
{
    /* Default provider, default DRBG seeded from the OS by OpenSSL itself;
     * the fixed generator above where the platform's seed is a fixed stream
     * (asking puts that stream at its start, where it already is). */
    if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1) return tb_openssl_fail("OPENSSL_init_crypto");
    if (tb_platform_seed_restart()) {
        tb_status st = use_fixed_rand();
        if (st != TB_OK) return st;
    }
    uint8_t probe[16];
    if (RAND_bytes(probe, sizeof(probe)) != 1) return tb_openssl_fail("RAND_bytes");
    return TB_OK;
}

/* With the fixed generator, tb_rng_restart's restarted stream is all there
 * is to rebuild; otherwise OpenSSL's DRBG is the OS's, out of its reach. */
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
