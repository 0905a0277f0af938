/* Internal to the GnuTLS adapter: the prepared-job shape shared by its
 * three files (adapter.c: symmetric; pk.c: signatures and RSA encryption;
 * kex.c: key agreement over GnuTLS's own nettle/GMP backend). */
#ifndef TB_GNUTLS_GT_H
#define TB_GNUTLS_GT_H

#include "tb/adapter.h"
#include "tb/util.h"

#include <gnutls/gnutls.h>

/* Every prepared job starts with this; the adapter entry points only see it. */
typedef struct gt_job gt_job;
struct gt_job {
    tb_status (*run)(gt_job *job);
    void (*release)(gt_job *job);
    const uint8_t *out; /* result of the last successful run() */
    size_t out_len;
};

/* tb_set_error("<fn>: <GnuTLS error text>") and TB_ERROR. */
tb_status gt_fail(const char *fn, int err);
/* tb_set_error(msg) and TB_BAD_INPUT. */
tb_status gt_bad(const char *msg);

/* nettle_random_func drawing from GnuTLS's DRBG (GNUTLS_RND_RANDOM, the
 * level GnuTLS uses for ephemeral keys). A failure is latched: check
 * gt_rng_failed() after the nettle call. */
void gt_nettle_rnd(void *ctx, size_t len, uint8_t *dst);
int gt_rng_failed(void);

int gt_sym_supports(tb_kind kind, const char *alg);
tb_status gt_sym_prepare(const tb_job *job, gt_job **out);

int gt_pk_supports(tb_kind kind, const char *alg);
tb_status gt_pk_prepare(const tb_job *job, gt_job **out);

int gt_kex_supports(const char *alg);
tb_status gt_kex_prepare(const tb_job *job, gt_job **out);
/* e.g. "nettle 3.8 / GMP 6.2.1, ..." for config(). */
const char *gt_kex_config(void);

#endif
