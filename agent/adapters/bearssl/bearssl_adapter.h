/* Internal interface of the BearSSL adapter: one family per tb_kind, a
 * common state header, the RNG, the implementations BearSSL's own defaults
 * select, and the error helpers shared by the files.
 *
 * BearSSL allocates nothing: every context lives in memory its caller
 * provides. The adapter's states come from tb_zalloc (the core's, counted
 * like any allocation of ours outside the timed window), so a BearSSL
 * operation shows 0 allocations and 0 heap truthfully; what it needs is
 * in those caller-provided contexts and on the stack (stack_bytes). */
#ifndef TB_BEARSSL_ADAPTER_H
#define TB_BEARSSL_ADAPTER_H

#include "tb/adapter.h"
#include "tb/family.h"
#include "tb/util.h"

#include <bearssl.h>

/* The core's per-kind operation tables (tb/family.h), one per kind: sym.c,
 * kex.c, pk.c. */
TB_DECLARE_CLASSIC_FAMILIES(bearssl);

/* The implementations BearSSL's TLS engine selects by default on this build
 * and CPU (br_ssl_engine_set_default_*), read once in adapter_init, so the
 * primitives time what a BearSSL handshake and record layer would run. */
typedef struct {
    const br_block_ctr_class *aes_ctr;
    const br_block_ctrcbc_class *aes_ctrcbc;
    const br_block_cbcenc_class *aes_cbcenc;
    const br_block_cbcdec_class *aes_cbcdec;
    br_ghash ghash;
    br_chacha20_run chacha;
    br_poly1305_run poly;
    const br_ec_impl *ec;
} tb_bearssl_impls;
extern tb_bearssl_impls tb_bearssl_impl;

/* The adapter's generator (HMAC-DRBG over SHA-256, seeded from
 * tb_platform_seed); pass &tb_bearssl_rng.vtable where BearSSL takes a PRNG. */
extern br_hmac_drbg_context tb_bearssl_rng;

/* Why a BearSSL call failed: it returns 0 with no error code. */
tb_status tb_bearssl_fail(const char *fn);

#endif
