/* Request loop: parse one request line, dispatch its verb through the table
 * below, answer with records. */
#include "tb/catalog.h"
#include "tb/composite.h"
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"
#include "tb/tls_device.h"
#include "tb/upload.h"

#include <stdlib.h>
#include <string.h>

/* A board with little RAM sets a smaller one (its board.cmake). */
#ifndef TB_MAX_LINE
#define TB_MAX_LINE (1u << 16)
#endif
#define TB_MAX_FIELDS 24

typedef tb_field field;

static char request[TB_MAX_LINE];

static void do_hello(const tb_field *fields, size_t n)
{
    (void)fields;
    (void)n;
    tb_rec_begin("hello");
    tb_rec_u64("proto", TB_PROTOCOL_VERSION);
    tb_rec_str("library", tb_library.name);
    tb_rec_str("version", tb_library.version());
    tb_rec_str("config", tb_library.config());
    tb_rec_str("platform", tb_platform_name());
    static const struct {
        uint32_t bit;
        const char *name;
    } ctr[] = {{TB_CTR_WALL_NS, "wall_ns"},
               {TB_CTR_CPU_NS, "cpu_ns"},
               {TB_CTR_TSC, "tsc"},
               {TB_CTR_CYCLES, "cycles"},
               {TB_CTR_INSTRUCTIONS, "instructions"},
               {TB_CTR_MODEL_CYCLES, "model_cycles"}};
    char have[96] = "";
    for (size_t i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++) {
        if (tb_platform_counters() & ctr[i].bit) {
            if (have[0]) strcat(have, ",");
            strcat(have, ctr[i].name);
        }
    }
    tb_rec_str("counters", have);
    tb_rec_end();
    for (size_t i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++) {
        /* a model is asked for, not lacked: no counter_missing for it */
        if (!(tb_platform_counters() & ctr[i].bit) && ctr[i].bit != TB_CTR_MODEL_CYCLES) {
            tb_rec_begin("counter_missing");
            tb_rec_str("counter", ctr[i].name);
            tb_rec_str("reason", tb_platform_counter_note(ctr[i].bit));
            tb_rec_end();
        }
    }
    tb_end(TB_OK, NULL);
}

static void do_list(const tb_field *fields, size_t n)
{
    (void)fields;
    (void)n;
    for (size_t i = 0; i < tb_catalog_len; i++) {
        const tb_catalog_entry *e = &tb_catalog[i];
        for (size_t j = 0; j < 4 && e->ops[j] != NULL; j++) {
            tb_rec_begin("alg");
            tb_rec_str("kind", tb_kind_name(e->kind));
            tb_rec_str("alg", e->alg);
            tb_rec_str("op", e->ops[j]);
            tb_rec_u64("supported", tb_job_adapter(e->kind, e->alg)->supports(e->kind, e->alg, e->ops[j]) ? 1 : 0);
            tb_rec_end();
        }
    }
    tb_end(TB_OK, NULL);
}

static tb_status do_compute(const tb_job *job)
{
    const tb_adapter *ops = tb_job_adapter(job->kind, job->alg);
    void *state = NULL;
    tb_status s = ops->prepare(job, &state);
    if (s != TB_OK) return s;
    s = ops->run(state);
    if (s == TB_OK) {
        tb_bytes out = {0};
        s = ops->result(state, &out);
        if (s == TB_OK) {
            tb_rec_begin("out");
            tb_rec_hex("data", out.data, out.len);
            tb_rec_end();
        }
    }
    ops->release(state);
    return s;
}

typedef enum { JOB_COMPUTE, JOB_BENCH, JOB_CALLS } job_verb;

/* compute, bench and calls: one job, from the same fields. */
static void serve_job(const tb_field *fields, size_t nfields, job_verb verb)
{
    int bench = verb == JOB_BENCH;
    tb_job job;
    memset(&job, 0, sizeof(job));
    job.kind = TB_KIND_COUNT;
    tb_bench_cfg cfg = {0, 2, 10, 10000000u, 100000000u, 0, 0, TB_STACK_PAGE, 0};
    static const struct {
        const char *name;
        size_t offset;
    } byte_fields[] = {
        {"key", offsetof(tb_job, key)},     {"pub", offsetof(tb_job, pub)}, {"peer", offsetof(tb_job, peer)},
        {"nonce", offsetof(tb_job, nonce)}, {"aad", offsetof(tb_job, aad)}, {"msg", offsetof(tb_job, msg)},
        {"sig", offsetof(tb_job, sig)},
    };
    static const struct {
        const char *name;
        size_t offset;
    } num_fields[] = {
        {"size", offsetof(tb_bench_cfg, size)},       {"warmup", offsetof(tb_bench_cfg, warmup)},
        {"repeats", offsetof(tb_bench_cfg, repeats)}, {"min_ns", offsetof(tb_bench_cfg, min_ns)},
        {"max_iters", offsetof(tb_bench_cfg, max_iters)},
        {"stack_shift", offsetof(tb_bench_cfg, stack_shift)}, {"heap_shift", offsetof(tb_bench_cfg, heap_shift)},
        {"stack_at", offsetof(tb_bench_cfg, stack_at)}, {"count_timed", offsetof(tb_bench_cfg, count_timed)},
    };

    for (size_t i = 0; i < nfields; i++) {
        const char *k = fields[i].key, *v = fields[i].value;
        int known = 0;
        if (strcmp(k, "kind") == 0) {
            job.kind = tb_kind_from_name(v);
            known = 1;
        } else if (strcmp(k, "alg") == 0) {
            job.alg = v;
            known = 1;
        } else if (strcmp(k, "op") == 0) {
            job.op = v;
            known = 1;
        } else if (strcmp(k, "rekey") == 0) {
            uint64_t r = 0;
            if (tb_field_u64(v, &r) != 0 || r > 1) {
                tb_end(TB_BAD_INPUT, "rekey must be 0 or 1");
                return;
            }
            job.rekey = (int)r;
            known = 1;
        }
        for (size_t j = 0; !known && j < sizeof(byte_fields) / sizeof(byte_fields[0]); j++) {
            if (strcmp(k, byte_fields[j].name) == 0) {
                if (tb_field_bytes(v, (tb_bytes *)((char *)&job + byte_fields[j].offset)) != 0) {
                    tb_set_error("field %s is not valid hex", k);
                    tb_end(TB_BAD_INPUT, tb_last_error());
                    return;
                }
                known = 1;
            }
        }
        for (size_t j = 0; bench && !known && j < sizeof(num_fields) / sizeof(num_fields[0]); j++) {
            if (strcmp(k, num_fields[j].name) == 0) {
                if (tb_field_u64(v, (uint64_t *)((char *)&cfg + num_fields[j].offset)) != 0) {
                    tb_set_error("field %s is not a decimal number", k);
                    tb_end(TB_BAD_INPUT, tb_last_error());
                    return;
                }
                known = 1;
            }
        }
        if (!known) {
            tb_set_error("unknown field %s", k);
            tb_end(TB_BAD_INPUT, tb_last_error());
            return;
        }
    }
    if (job.kind == TB_KIND_COUNT || job.alg == NULL || job.op == NULL) {
        tb_end(TB_BAD_INPUT, "kind, alg and op are required");
        return;
    }
    const tb_catalog_entry *entry = tb_catalog_find(job.kind, job.alg);
    if (entry == NULL || !tb_catalog_has_op(entry, job.op)) {
        tb_end(TB_BAD_INPUT, "unknown kind/alg/op");
        return;
    }
    if (job.rekey && job.kind != TB_KIND_AEAD) {
        tb_end(TB_BAD_INPUT, "rekey is for AEAD jobs only");
        return;
    }
    if (cfg.repeats == 0 || cfg.max_iters == 0) {
        tb_end(TB_BAD_INPUT, "repeats and max_iters must be positive");
        return;
    }
    if (cfg.stack_shift > TB_MAX_STACK_SHIFT || cfg.heap_shift > TB_MAX_HEAP_SHIFT || cfg.count_timed > 1 ||
        cfg.stack_at > TB_STACK_PAGE || (cfg.stack_at < TB_STACK_PAGE && cfg.stack_shift)) {
        tb_set_error("stack_shift must be 0..%u, stack_at 0..%u (not both), heap_shift 0..%u, count_timed 0 or 1",
                     TB_MAX_STACK_SHIFT, TB_STACK_PAGE - 1, TB_MAX_HEAP_SHIFT);
        tb_end(TB_BAD_INPUT, tb_last_error());
        return;
    }
    if (!tb_job_adapter(job.kind, job.alg)->supports(job.kind, job.alg, job.op)) {
        tb_end(TB_UNSUPPORTED, "not supported by this library build");
        return;
    }
    tb_clear_error();
    tb_status s = bench ? tb_bench(&job, &cfg) : verb == JOB_CALLS ? tb_count_calls(&job) : do_compute(&job);
    tb_end(s, s == TB_OK ? NULL : tb_last_error());
}

static void do_compute_verb(const tb_field *f, size_t n)
{
    serve_job(f, n, JOB_COMPUTE);
}

static void do_bench(const tb_field *f, size_t n)
{
    serve_job(f, n, JOB_BENCH);
}

static void do_calls(const tb_field *f, size_t n)
{
    serve_job(f, n, JOB_CALLS);
}

static const struct {
    const char *name;
    void (*serve)(const tb_field *fields, size_t n);
} verbs[] = {
    {"hello", do_hello},   {"list", do_list},   {"compute", do_compute_verb},
    {"bench", do_bench},   {"calls", do_calls}, {"handshake", tb_tls_serve}, {"reference", tb_reference},
    {"tls-device", tb_tls_device_serve}, /* one side here, its peer on the host */
    {"upload", tb_upload_serve},         /* a byte field too long for one line, for the next request */
};

/* Serves one request; 1 when it was an upload (which the next request uses). */
static int serve_line(char *line)
{
    field fields[TB_MAX_FIELDS];
    size_t nfields = 0;
    tb_request_reset();

    char *save = NULL;
    char *verb = strtok_r(line, " ", &save);
    if (verb == NULL) {
        tb_end(TB_BAD_INPUT, "empty request");
        return 0;
    }
    int upload = strcmp(verb, "upload") == 0;
    for (char *tok = strtok_r(NULL, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (eq == NULL || nfields == TB_MAX_FIELDS) {
            tb_end(TB_BAD_INPUT, "expected key=value fields");
            return upload;
        }
        *eq = '\0';
        fields[nfields].key = tok;
        fields[nfields].value = eq + 1;
        nfields++;
    }

    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
        if (strcmp(verb, verbs[i].name) == 0) {
            verbs[i].serve(fields, nfields);
            return upload;
        }
    }
    if (tb_platform_verb(verb, fields, nfields)) return 0; /* e.g. the host's socket sides */
    tb_end(TB_BAD_INPUT, "unknown request (expected hello, list, compute, bench, calls, reference, handshake, "
                         "tls-device, upload, tls-server or tls-client)");
    return 0;
}

void tb_agent_serve_line(char *line)
{
    if (!serve_line(line)) tb_upload_clear(); /* uploads serve only the request after them */
}

int tb_agent_main(void)
{
    tb_platform_init();
    tb_status s = tb_library.init();
    if (s != TB_OK) {
        /* Still answer, so the host sees why this library cannot be used. */
        tb_end(s, tb_last_error());
        return 1;
    }
    for (;;) {
        long n = tb_read_line(request, sizeof(request));
        if (n == -1) break;
        if (n == -2) {
            tb_note_no_room(); /* the line is longer than the agent's buffer */
            tb_end(TB_BAD_INPUT, "request line too long");
            tb_upload_clear();
            continue;
        }
        tb_agent_serve_line(request);
    }
    return 0;
}
