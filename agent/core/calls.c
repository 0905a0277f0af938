/*
 * The "calls" request: how many calls one run() of a job makes through the
 * adapter interface, and how many bytes each primitive call is given. The
 * same case must do the same steps in every library (a composite is written
 * once, in core/composite.c); this is the evidence, exact and checked by the
 * tests. It runs on its own prepared state, never inside a timed batch: the
 * timed pass calls the library's primitives directly, with no counting.
 */
#include "tb/composite.h"
#include "tb/core.h"
#include "tb/protocol.h"

#include <string.h>

static struct {
    uint64_t cipher_run, cipher_bytes, mac_run, mac_bytes;
} count;

static int counted_supports(const char *alg)
{
    return tb_library_prims.supports(alg);
}

static tb_status counted_cipher_new(const char *alg, tb_bytes key, int decrypt, void **ctx)
{
    return tb_library_prims.cipher_new(alg, key, decrypt, ctx);
}

static tb_status counted_cipher_run(void *ctx, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    count.cipher_run++;
    count.cipher_bytes += len;
    return tb_library_prims.cipher_run(ctx, iv, in, out, len);
}

static void counted_cipher_free(void *ctx)
{
    tb_library_prims.cipher_free(ctx);
}

static tb_status counted_mac_new(const char *alg, tb_bytes key, void **ctx)
{
    return tb_library_prims.mac_new(alg, key, ctx);
}

static tb_status counted_mac_run(void *ctx, tb_bytes a, tb_bytes b, uint8_t *tag)
{
    count.mac_run++;
    count.mac_bytes += a.len + b.len;
    return tb_library_prims.mac_run(ctx, a, b, tag);
}

static void counted_mac_free(void *ctx)
{
    tb_library_prims.mac_free(ctx);
}

static const tb_prim_ops counting = {
    counted_supports,   counted_cipher_new, counted_cipher_run, counted_cipher_free,
    counted_mac_new,    counted_mac_run,    counted_mac_free,
};

tb_status tb_count_calls(const tb_job *job)
{
    const tb_adapter *ops = tb_job_adapter(job->kind, job->alg);
    int composite = tb_is_composite(job->kind, job->alg);
    void *state = NULL;
    tb_status s = composite ? tb_composite_prepare(&counting, job, &state) : ops->prepare(job, &state);
    if (s != TB_OK) return s;
    memset(&count, 0, sizeof(count));
    s = ops->run(state);
    ops->release(state);
    if (s != TB_OK) return s;
    /* A library's own operation is one call of its run(); a composite's
     * calls are the primitives it made. */
    uint64_t adapter_run = composite ? 0 : 1;
    tb_rec_begin("calls");
    tb_rec_u64("adapter_run", adapter_run);
    tb_rec_u64("cipher_run", count.cipher_run);
    tb_rec_u64("cipher_bytes", count.cipher_bytes);
    tb_rec_u64("mac_run", count.mac_run);
    tb_rec_u64("mac_bytes", count.mac_bytes);
    tb_rec_u64("total", adapter_run + count.cipher_run + count.mac_run);
    tb_rec_end();
    return TB_OK;
}
