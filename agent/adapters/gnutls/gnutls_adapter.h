/* Internal to the GnuTLS adapter: the tables of its kinds and the helpers
 * its files share (adapter.c: entry points, RNG; sym.c: hashes, HMAC,
 * AEADs, primitives; kex.c: key agreement over GnuTLS's own nettle/GMP
 * backend; pk.c: signatures and RSA encryption; tls.c: TLS). */
#ifndef TB_GNUTLS_ADAPTER_H
#define TB_GNUTLS_ADAPTER_H

#include "tb/family.h"
#include "tb/util.h"

#include <gnutls/gnutls.h>

/* One table per kind (tb/family.h): sym.c hash, mac, aead; kex.c kex;
 * pk.c sig, pke. */
TB_DECLARE_CLASSIC_FAMILIES(gnutls);

/* Non-zero when the catalog lists alg under kind with op: the first test of
 * every family's supports. */
int tb_gnutls_listed(tb_kind kind, const char *alg, const char *op);

/* tb_set_error("<fn>: <GnuTLS error text>") and TB_ERROR. */
tb_status tb_gnutls_fail(const char *fn, int err);
/* tb_set_error(msg) and TB_BAD_INPUT. */
tb_status tb_gnutls_bad(const char *msg);

/* nettle_random_func drawing from GnuTLS's DRBG (GNUTLS_RND_RANDOM, the
 * level GnuTLS uses for ephemeral keys). A failure is latched: check
 * tb_gnutls_rng_failed() after the nettle call. */
void tb_gnutls_nettle_rnd(void *ctx, size_t len, uint8_t *dst);
int tb_gnutls_rng_failed(void);

/* e.g. "nettle 3.8 / GMP 6.2.1, ..." for config(). */
const char *tb_gnutls_kex_config(void);

#endif
