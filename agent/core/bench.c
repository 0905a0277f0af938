/* Shared measuring code: the same loop for every library and family. */
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"

#include <stdlib.h>
#include <string.h>

static void emit_batch(const char *type, uint64_t index, uint64_t iters, const tb_reading *d)
{
    uint32_t have = tb_platform_counters();
    tb_rec_begin(type);
    tb_rec_u64("i", index);
    tb_rec_u64("iters", iters);
    if (have & TB_CTR_WALL_NS) tb_rec_u64("wall_ns", d->wall_ns);
    if (have & TB_CTR_CPU_NS) tb_rec_u64("cpu_ns", d->cpu_ns);
    if (have & TB_CTR_TSC) tb_rec_u64("tsc", d->tsc);
    if (have & TB_CTR_CYCLES) tb_rec_u64("cycles", d->cycles);
    if (have & TB_CTR_INSTRUCTIONS) tb_rec_u64("instructions", d->instructions);
    if (have & TB_CTR_MODEL_CYCLES) tb_rec_u64("model_cycles", d->model_cycles);
    tb_rec_end();
}

/* Runs the prepared operation iters times; d gets the counter deltas. */
static tb_status run_batch(void *state, uint64_t iters, tb_reading *d)
{
    tb_reading a, b;
    tb_status st = TB_OK;
    tb_read_counters(&a);
    for (uint64_t i = 0; i < iters && st == TB_OK; i++) {
        st = tb_library.run(state);
    }
    tb_read_counters(&b);
    d->wall_ns = b.wall_ns - a.wall_ns;
    d->cpu_ns = b.cpu_ns - a.cpu_ns;
    d->tsc = b.tsc - a.tsc;
    d->cycles = b.cycles - a.cycles;
    d->instructions = b.instructions - a.instructions;
    d->model_cycles = b.model_cycles - a.model_cycles;
    return st;
}

typedef struct {
    void *state;
    tb_status status;
} stack_call;

static void call_run(void *arg)
{
    stack_call *c = arg;
    c->status = tb_library.run(c->state);
}

/* One untimed pass with the memory instruments (a counting allocator and a
 * painted stack would disturb the timing, so they never share a batch). */
static tb_status measure_memory(void *state, const tb_heap_usage *setup)
{
    uint32_t have = tb_platform_memory();
    if (have == 0) return TB_OK;
    tb_rec_begin("memory");
    if (have & TB_MEM_HEAP) {
        tb_heap_usage h;
        tb_heap_begin();
        tb_status s = tb_library.run(state);
        tb_heap_end(&h);
        if (s != TB_OK) return s;
        tb_rec_u64("setup_heap_peak", setup->peak);
        tb_rec_u64("setup_heap_held", setup->held);
        tb_rec_u64("heap_peak", h.peak);
        tb_rec_u64("heap_held", h.held);
        tb_rec_u64("allocs", h.allocs);
    }
    if (have & TB_MEM_STACK) {
        uint64_t used = 0;
        stack_call c = {state, TB_OK};
        if (tb_stack_run(call_run, &c, &used) != 0) {
            tb_set_error("could not run on a painted stack");
            return TB_ERROR;
        }
        if (c.status != TB_OK) return c.status;
        tb_rec_u64("stack", used);
    }
    tb_rec_end();
    return TB_OK;
}

/* Produces the input a measured operation consumes (a ciphertext to
 * decrypt, a signature to verify) with the same library. */
static tb_status make_input(const tb_job *job, const char *op, uint8_t **out, size_t *out_len)
{
    tb_job pre = *job;
    pre.op = op;
    pre.sig.len = 0;
    void *st = NULL;
    tb_status s = tb_library.prepare(&pre, &st);
    if (s != TB_OK) return s;
    s = tb_library.run(st);
    tb_bytes r = {0};
    if (s == TB_OK) s = tb_library.result(st, &r);
    if (s == TB_OK) {
        *out = malloc(r.len ? r.len : 1);
        if (*out == NULL) {
            s = TB_ERROR;
            tb_set_error("out of memory");
        } else {
            memcpy(*out, r.data, r.len);
            *out_len = r.len;
        }
    }
    tb_library.release(st);
    return s;
}

tb_status tb_bench(const tb_job *job_in, const tb_bench_cfg *cfg)
{
    tb_job job = *job_in;
    uint8_t *fill = NULL, *made = NULL;
    size_t made_len = 0;
    tb_status s = TB_OK;

    if (cfg->size && job.msg.len == 0) {
        /* A fixed, non-trivial pattern: identical input for every library. */
        fill = malloc(cfg->size);
        if (fill == NULL) {
            tb_set_error("out of memory for a %llu-byte message", (unsigned long long)cfg->size);
            return TB_ERROR;
        }
        for (uint64_t i = 0; i < cfg->size; i++) fill[i] = (uint8_t)(i * 131u + 7u);
        job.msg.data = fill;
        job.msg.len = cfg->size;
    }
    const tb_bytes plain = job.msg;
    int dec = strcmp(job.op, "decrypt") == 0;
    int ver = strcmp(job.op, "verify") == 0;
    if (dec) {
        s = make_input(&job, "encrypt", &made, &made_len);
        job.msg.data = made;
        job.msg.len = made_len;
    } else if (ver && job.sig.len == 0) {
        s = make_input(&job, "sign", &made, &made_len);
        job.sig.data = made;
        job.sig.len = made_len;
    }

    void *state = NULL;
    tb_heap_usage setup = {0, 0, 0};
    tb_heap_begin();
    if (s == TB_OK) s = tb_library.prepare(&job, &state);
    tb_heap_end(&setup);
    if (s != TB_OK) goto out;

    /* Calibrate: grow the batch until it lasts min_ns (these batches also
     * warm caches and branch predictors). */
    uint64_t iters = 1;
    tb_reading d;
    /* Without a clock (an emulator's exact instruction count) one operation
     * per batch is exact: no batch needs to outlast a clock's resolution. */
    int clocked = (tb_platform_counters() & TB_CTR_WALL_NS) != 0;
    for (;;) {
        s = run_batch(state, iters, &d);
        if (s != TB_OK) goto out_state;
        if (!clocked || d.wall_ns >= cfg->min_ns || iters >= cfg->max_iters) break;
        uint64_t grow = d.wall_ns ? (cfg->min_ns * 5 / 4) / d.wall_ns + 1 : 100;
        if (grow < 2) grow = 2;
        if (grow > 100) grow = 100;
        iters = iters * grow > cfg->max_iters ? cfg->max_iters : iters * grow;
    }
    tb_rec_begin("calib");
    tb_rec_u64("iters", iters);
    tb_rec_end();

    for (uint64_t w = 0; w < cfg->warmup; w++) {
        s = run_batch(state, iters, &d);
        if (s != TB_OK) goto out_state;
        emit_batch("warmup", w, iters, &d);
    }
    for (uint64_t r = 0; r < cfg->repeats; r++) {
        s = run_batch(state, iters, &d);
        if (s != TB_OK) goto out_state;
        emit_batch("sample", r, iters, &d);
    }
    s = measure_memory(state, &setup);
    if (s != TB_OK) goto out_state;
    if (dec) {
        /* The measured decryption must give back the original message. */
        tb_bytes out = {0};
        s = tb_library.result(state, &out);
        if (s == TB_OK && (out.len != plain.len || memcmp(out.data, plain.data, plain.len) != 0)) {
            tb_set_error("decryption did not return the original message");
            s = TB_ERROR;
        }
    }
out_state:
    tb_library.release(state);
out:
    free(fill);
    free(made);
    return s;
}
