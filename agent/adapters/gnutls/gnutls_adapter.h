/* Internal to the GnuTLS adapter: the prepared-job shape and helpers its
 * files share (adapter.c: entry points, RNG; sym.c: hashes, HMAC, AEADs,
 * primitives; kex.c: key agreement over GnuTLS's own nettle/GMP backend;
 * pk.c: signatures and RSA encryption; tls.c: TLS). */
#ifndef TB_GNUTLS_ADAPTER_H
#define TB_GNUTLS_ADAPTER_H

#include "tb/adapter.h"
#include "tb/util.h"

#include <gnutls/gnutls.h>

/* Every prepared job starts with this; the adapter entry points only see it. */
typedef struct tb_gnutls_job tb_gnutls_job;
struct tb_gnutls_job {
    tb_status (*run)(tb_gnutls_job *job);
    void (*release)(tb_gnutls_job *job);
    const uint8_t *out; /* result of the last successful run() */
    size_t out_len;
};

/* tb_set_error("<fn>: <GnuTLS error text>") and TB_ERROR. */
tb_status tb_gnutls_fail(const char *fn, int err);
/* tb_set_error(msg) and TB_BAD_INPUT. */
tb_status tb_gnutls_bad(const char *msg);

/* nettle_random_func drawing from GnuTLS's DRBG (GNUTLS_RND_RANDOM, the
 * level GnuTLS uses for ephemeral keys). A failure is latched: check
 * tb_gnutls_rng_failed() after the nettle call. */
void tb_gnutls_nettle_rnd(void *ctx, size_t len, uint8_t *dst);
int tb_gnutls_rng_failed(void);

int tb_gnutls_sym_supports(tb_kind kind, const char *alg);
tb_status tb_gnutls_sym_prepare(const tb_job *job, tb_gnutls_job **out);

int tb_gnutls_pk_supports(tb_kind kind, const char *alg);
tb_status tb_gnutls_pk_prepare(const tb_job *job, tb_gnutls_job **out);

int tb_gnutls_kex_supports(const char *alg);
tb_status tb_gnutls_kex_prepare(const tb_job *job, tb_gnutls_job **out);
/* e.g. "nettle 3.8 / GMP 6.2.1, ..." for config(). */
const char *tb_gnutls_kex_config(void);

#endif
