/* Shared measuring code: the same loop for every library and family. */
#include "tb/composite.h"
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"

#include <stdlib.h>
#include <string.h>

/* Who does the job: the library's adapter, or a core composite of its
 * primitives (tb_job_adapter); set at the start of each tb_bench. */
static const tb_adapter *lib;

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
        st = lib->run(state);
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
    c->status = lib->run(c->state);
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
        tb_status s = lib->run(state);
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
    tb_status s = lib->prepare(&pre, &st);
    if (s != TB_OK) return s;
    s = lib->run(st);
    tb_bytes r = {0};
    if (s == TB_OK) s = lib->result(st, &r);
    if (s == TB_OK) {
        *out = malloc(r.len ? r.len : 1);
        if (*out == NULL) {
            s = TB_ERROR;
            tb_set_error("out of memory");
            tb_note_no_room();
        } else {
            memcpy(*out, r.data, r.len);
            *out_len = r.len;
        }
    }
    lib->release(st);
    return s;
}

typedef struct {
    void *state;
    const tb_bench_cfg *cfg;
    uint64_t iters;
    tb_status status;
    uint64_t at; /* the low 12 bits of the timed passes' frame address */
    int probe;   /* only note `at`: where the frame lands for a shift */
} timed_args;

/* Calibration, warm-up and samples: the timed passes. Nothing of ours runs
 * inside a batch; the allocation hooks only forward (tb_timed_begin). */
static __attribute__((noinline)) void timed_passes(timed_args *t)
{
    const tb_bench_cfg *cfg = t->cfg;
    t->at = (uint64_t)(uintptr_t)__builtin_frame_address(0) % TB_STACK_PAGE;
    if (t->probe) return;
    /* Calibrate: grow the batch until it lasts min_ns (these batches also
     * warm caches and branch predictors). */
    uint64_t iters = 1;
    tb_reading d;
    tb_status s;
    /* Without a clock (an emulator's exact instruction count) one operation
     * per batch is exact: no batch needs to outlast a clock's resolution. */
    int clocked = (tb_platform_counters() & TB_CTR_WALL_NS) != 0;
    for (;;) {
        /* every batch starts from the same generator state (untimed): a
         * deterministic seed makes every repeat do the same work */
        if ((s = tb_rng_restart()) != TB_OK) goto done;
        s = run_batch(t->state, iters, &d);
        if (s != TB_OK) goto done;
        if (!clocked || d.wall_ns >= cfg->min_ns || iters >= cfg->max_iters) break;
        uint64_t grow = d.wall_ns ? (cfg->min_ns * 5 / 4) / d.wall_ns + 1 : 100;
        if (grow < 2) grow = 2;
        if (grow > 100) grow = 100;
        iters = iters * grow > cfg->max_iters ? cfg->max_iters : iters * grow;
    }
    t->iters = iters;
    for (uint64_t w = 0; w < cfg->warmup; w++) {
        if ((s = tb_rng_restart()) != TB_OK) goto done;
        s = run_batch(t->state, iters, &d);
        if (s != TB_OK) goto done;
        emit_batch("warmup", w, iters, &d);
    }
    for (uint64_t r = 0; r < cfg->repeats; r++) {
        if ((s = tb_rng_restart()) != TB_OK) goto done;
        s = run_batch(t->state, iters, &d);
        if (s != TB_OK) goto done;
        emit_batch("sample", r, iters, &d);
    }
done:
    t->status = s;
}

/* The timed passes with the stack pointer `shift` bytes lower: where the
 * stack lands moves a loop's data against cache sets and alignment, which
 * can change its speed (Mytkowicz et al., ASPLOS 2009), so each round draws
 * its own offset and the rounds together sample the layouts. */
static __attribute__((noinline)) void shifted(timed_args *t, uint64_t shift)
{
    volatile uint8_t *pad = __builtin_alloca((size_t)shift);
    pad[0] = 0; /* the block is used: it cannot be dropped */
    timed_passes(t);
    pad[0] = 1;
}

tb_status tb_bench(const tb_job *job_in, const tb_bench_cfg *cfg)
{
    tb_job job = *job_in;
    lib = tb_job_adapter(job.kind, job.alg);
    uint8_t *fill = NULL, *made = NULL;
    size_t made_len = 0;
    tb_status s = TB_OK;

    if (cfg->size && job.msg.len == 0) {
        /* A fixed, non-trivial pattern: identical input for every library. */
        fill = malloc(cfg->size);
        if (fill == NULL) {
            tb_set_error("out of memory for a %llu-byte message", (unsigned long long)cfg->size);
            tb_note_no_room();
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
    if (s == TB_OK) s = lib->prepare(&job, &state);
    tb_heap_end(&setup);
    if (s != TB_OK) goto out;

    /* Held over the timed passes only: what the operation allocates lands
     * elsewhere; the memory pass runs without it, so its figures do not
     * depend on the round's layout. */
    uint8_t *heap_pad = NULL;
    if (cfg->heap_shift) {
        heap_pad = malloc((size_t)cfg->heap_shift);
        if (heap_pad == NULL) {
            s = TB_ERROR;
            tb_set_error("out of memory for a %llu-byte heap shift", (unsigned long long)cfg->heap_shift);
            tb_note_no_room();
            goto out_state;
        }
        heap_pad[0] = 0;
    }
    timed_args t = {state, cfg, 0, TB_OK, 0, 0};
    uint64_t shift = cfg->stack_shift;
    if (cfg->stack_at < TB_STACK_PAGE) {
        /* where the frame lands with the smallest shift, then the distance
         * down to stack_at (the stack grows down; whole 16-byte steps) */
        timed_args p = {state, cfg, 0, TB_OK, 0, 1};
        shifted(&p, 16);
        shift = 16 + (p.at + TB_STACK_PAGE - cfg->stack_at) % TB_STACK_PAGE / 16 * 16;
    }
    uint64_t calls_before = tb_timed_heap_calls();
    tb_timed_begin(cfg->count_timed != 0);
    if (shift) {
        shifted(&t, shift);
    } else {
        timed_passes(&t);
    }
    tb_timed_end();
    free(heap_pad);
    s = t.status;
    if (s != TB_OK) goto out_state;
    tb_rec_begin("calib");
    tb_rec_u64("iters", t.iters);
    /* the accounting reached inside the timed passes (0: they ran clean) */
    tb_rec_u64("timed_heap_calls", tb_timed_heap_calls() - calls_before);
    tb_rec_u64("stack_shift", shift);
    tb_rec_u64("stack_at", t.at);
    tb_rec_u64("heap_shift", cfg->heap_shift);
    tb_rec_end();
    s = measure_memory(state, &setup);
    if (s != TB_OK) goto out_state;
    if (dec) {
        /* The measured decryption must give back the original message. */
        tb_bytes out = {0};
        s = lib->result(state, &out);
        if (s == TB_OK && (out.len != plain.len || memcmp(out.data, plain.data, plain.len) != 0)) {
            tb_set_error("decryption did not return the original message");
            s = TB_ERROR;
        }
    }
out_state:
    lib->release(state);
out:
    free(fill);
    free(made);
    return s;
}
