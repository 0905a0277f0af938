/* GnuTLS adapter: entry points, the RNG, the helpers its files share and
 * the table of its families, one per kind (the dispatch is the core's,
 * tb/family.h). Hashes, HMAC, AEADs and the primitives the core composes
 * are in sym.c, signatures and RSA encryption in pk.c, key agreement in
 * kex.c. */
#include "gnutls_adapter.h"
#include "tb/catalog.h"
#include "tb/platform.h"

#include <gnutls/crypto.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* ---- shared helpers ---------------------------------------------------- */

tb_status tb_gnutls_fail(const char *fn, int err)
{
    tb_set_error("%s: %s (%d)", fn, gnutls_strerror(err), err);
    return TB_ERROR;
}

tb_status tb_gnutls_bad(const char *msg)
{
    tb_set_error("%s", msg);
    return TB_BAD_INPUT;
}

static int rng_failed;

void tb_gnutls_nettle_rnd(void *ctx, size_t len, uint8_t *dst)
{
    (void)ctx;
    if (gnutls_rnd(GNUTLS_RND_RANDOM, dst, len) < 0) rng_failed = 1;
}

int tb_gnutls_rng_failed(void)
{
    int f = rng_failed;
    rng_failed = 0;
    return f;
}

/* GnuTLS's own name for the clock its generator and handshakes read
 * (gnutls_gettime, CLOCK_REALTIME): a private symbol (GNUTLS_PRIVATE_3_4,
 * exported for its own tests' virtual time, tests/virt-time.h), declared in
 * no installed header; GnuTLS 3.7 and 3.8 both export it. */
void _gnutls_global_set_gettime_function(void (*gettime)(struct timespec *));

/* The agent's clock, frozen where TLSBENCH_FIXED_CLOCK is set
 * (platform_host.c's gettimeofday). */
static void agent_gettime(struct timespec *t)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    t->tv_sec = tv.tv_sec;
    t->tv_nsec = (long)tv.tv_usec * 1000;
}

/* The one place randomness is set up. On the host GnuTLS seeds its own
 * DRBG from the OS (getrandom) and reseeds it itself; here we only check
 * that it answers. Where the platform's seed is a fixed stream
 * (TLSBENCH_FIXED_SEED=1), GnuTLS 3.7 offers no public way to hand it a
 * generator (gnutls_crypto_rnd_register is not exported), and its DRBG
 * keys itself from getrandom and takes its ChaCha nonce from the real time
 * (lib/nettle/rnd.c): the platform's getrandom then answers the fixed stream
 * (platform_host.c) and its clock is set to the agent's own, so each
 * thread's generator starts from the same key and nonce in every run and
 * two runs draw the same numbers. It must be set before the first
 * gnutls_rnd (the probe below), which makes this thread's generator.
 * GnuTLS's generator is not rebuilt per handshake (adapter_reseed): its
 * draws are the same sequence in every run, not in every handshake. */
static tb_status seed_rng(void)
{
    if (tb_platform_seed_restart()) _gnutls_global_set_gettime_function(agent_gettime);
    uint8_t probe[16];
    int r = gnutls_rnd(GNUTLS_RND_RANDOM, probe, sizeof(probe));
    if (r < 0) return tb_gnutls_fail("gnutls_rnd", r);
    return TB_OK;
}

/* ---- entry points ------------------------------------------------------ */

static char config_text[2048];

static tb_status adapter_init(void)
{
    int r = gnutls_global_init();
    if (r < 0) return tb_gnutls_fail("gnutls_global_init", r);
    tb_status s = seed_rng();
    if (s != TB_OK) return s;
    const char *cpuid = getenv("GNUTLS_CPUID_OVERRIDE");
#ifdef TB_GNUTLS_OWN_PREFIX
    const char *origin = "the shared libs of that prefix", *accel = "this build";
#else
    const char *origin = "system shared libs", *accel = "the distribution library";
#endif
    snprintf(config_text, sizeof(config_text),
             "%s; built against GnuTLS headers %s; crypto backend nettle/hogweed + GMP (%s): %s; "
             "hardware acceleration as compiled into %s (lib/accelerated x86: "
             "AES-NI/PCLMUL/SSSE3/SHA-NI, chosen by CPUID at run time%s%s); FIPS-140 mode %s; RNG: GnuTLS DRBG "
             "seeded from the OS",
             TB_LIBRARY_CONFIG, GNUTLS_VERSION, origin, tb_gnutls_kex_config(), accel,
             cpuid ? ", GNUTLS_CPUID_OVERRIDE=" : "",
             cpuid ? cpuid : "", gnutls_fips140_mode_enabled() ? "on" : "off");
    return TB_OK;
}

TB_DEFINE_RESEED_NOTHING()

static const char *adapter_version(void)
{
    return gnutls_check_version(NULL);
}

static const char *adapter_config(void)
{
    return config_text;
}

int tb_gnutls_listed(tb_kind kind, const char *alg, const char *op)
{
    const tb_catalog_entry *e = tb_catalog_find(kind, alg);
    return e != NULL && tb_catalog_has_op(e, op);
}

static const tb_family *const families[] = {TB_CLASSIC_FAMILIES(gnutls)};

TB_DEFINE_FAMILY_ADAPTER("gnutls", families, NULL, " is not supported by this GnuTLS");
