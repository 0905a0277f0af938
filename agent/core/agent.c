/* Request loop: parse one request line, run it, answer with records. */
#include "tb/catalog.h"
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"
#include "tb/tls_device.h"

#include <stdlib.h>
#include <string.h>

/* A board with little RAM sets smaller ones (its board.cmake). */
#ifndef TB_MAX_LINE
#define TB_MAX_LINE (1u << 16)
#endif
#ifndef TB_BYTES_POOL
#define TB_BYTES_POOL (TB_MAX_LINE / 2)
#endif
#define TB_MAX_FIELDS 24

typedef tb_field field;

static char request[TB_MAX_LINE];
static uint8_t bytes_pool[TB_BYTES_POOL];
static size_t bytes_used;

static void end_record(tb_status s, const char *msg)
{
    static const char *const names[] = {"ok", "unsupported", "error", "bad_input", "reject"};
    tb_rec_begin("end");
    tb_rec_str("status", (unsigned)s < 5 ? names[s] : "error");
    if (msg != NULL && msg[0] != '\0') tb_rec_str("msg", msg);
    tb_rec_end();
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void tb_end(tb_status s, const char *msg)
{
    end_record(s, msg);
}

/* Decodes hex into the request's byte pool. */
int tb_field_bytes(const char *hex, tb_bytes *out)
{
    size_t n = strlen(hex);
    if (n % 2 != 0 || bytes_used + n / 2 > sizeof(bytes_pool)) return -1;
    uint8_t *dst = bytes_pool + bytes_used;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        dst[i] = (uint8_t)(hi << 4 | lo);
    }
    out->data = dst;
    out->len = n / 2;
    bytes_used += n / 2;
    return 0;
}

int tb_field_u64(const char *s, uint64_t *out)
{
    if (*s == '\0') return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

static void do_hello(void)
{
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
               {TB_CTR_INSTRUCTIONS, "instructions"}};
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
        if (!(tb_platform_counters() & ctr[i].bit)) {
            tb_rec_begin("counter_missing");
            tb_rec_str("counter", ctr[i].name);
            tb_rec_str("reason", tb_platform_counter_note(ctr[i].bit));
            tb_rec_end();
        }
    }
    end_record(TB_OK, NULL);
}

static void do_list(void)
{
    for (size_t i = 0; i < tb_catalog_len; i++) {
        const tb_catalog_entry *e = &tb_catalog[i];
        for (size_t j = 0; j < 4 && e->ops[j] != NULL; j++) {
            tb_rec_begin("alg");
            tb_rec_str("kind", tb_kind_name(e->kind));
            tb_rec_str("alg", e->alg);
            tb_rec_str("op", e->ops[j]);
            tb_rec_u64("supported", tb_library.supports(e->kind, e->alg, e->ops[j]) ? 1 : 0);
            tb_rec_end();
        }
    }
    end_record(TB_OK, NULL);
}

static tb_status do_compute(const tb_job *job)
{
    void *state = NULL;
    tb_status s = tb_library.prepare(job, &state);
    if (s != TB_OK) return s;
    s = tb_library.run(state);
    if (s == TB_OK) {
        tb_bytes out = {0};
        s = tb_library.result(state, &out);
        if (s == TB_OK) {
            tb_rec_begin("out");
            tb_rec_hex("data", out.data, out.len);
            tb_rec_end();
        }
    }
    tb_library.release(state);
    return s;
}

static void serve(char *line)
{
    field fields[TB_MAX_FIELDS];
    size_t nfields = 0;
    bytes_used = 0;

    char *save = NULL;
    char *verb = strtok_r(line, " ", &save);
    if (verb == NULL) {
        end_record(TB_BAD_INPUT, "empty request");
        return;
    }
    for (char *tok = strtok_r(NULL, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (eq == NULL || nfields == TB_MAX_FIELDS) {
            end_record(TB_BAD_INPUT, "expected key=value fields");
            return;
        }
        *eq = '\0';
        fields[nfields].key = tok;
        fields[nfields].value = eq + 1;
        nfields++;
    }

    if (strcmp(verb, "hello") == 0) {
        do_hello();
        return;
    }
    if (strcmp(verb, "list") == 0) {
        do_list();
        return;
    }
    if (strcmp(verb, "handshake") == 0) {
        tb_tls_serve(fields, nfields);
        return;
    }
    if (strcmp(verb, "tls-device") == 0) { /* one side here, its peer on the host */
        tb_tls_device_serve(fields, nfields);
        return;
    }
    if (tb_platform_verb(verb, fields, nfields)) return; /* e.g. the host's socket sides */
    int bench = strcmp(verb, "bench") == 0;
    if (!bench && strcmp(verb, "compute") != 0) {
        end_record(TB_BAD_INPUT, "unknown request (expected hello, list, compute, bench, handshake, tls-device, tls-server or tls-client)");
        return;
    }

    tb_job job;
    memset(&job, 0, sizeof(job));
    job.kind = TB_KIND_COUNT;
    tb_bench_cfg cfg = {0, 2, 10, 10000000u, 100000000u};
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
        }
        for (size_t j = 0; !known && j < sizeof(byte_fields) / sizeof(byte_fields[0]); j++) {
            if (strcmp(k, byte_fields[j].name) == 0) {
                if (tb_field_bytes(v, (tb_bytes *)((char *)&job + byte_fields[j].offset)) != 0) {
                    tb_set_error("field %s is not valid hex", k);
                    end_record(TB_BAD_INPUT, tb_last_error());
                    return;
                }
                known = 1;
            }
        }
        for (size_t j = 0; bench && !known && j < sizeof(num_fields) / sizeof(num_fields[0]); j++) {
            if (strcmp(k, num_fields[j].name) == 0) {
                if (tb_field_u64(v, (uint64_t *)((char *)&cfg + num_fields[j].offset)) != 0) {
                    tb_set_error("field %s is not a decimal number", k);
                    end_record(TB_BAD_INPUT, tb_last_error());
                    return;
                }
                known = 1;
            }
        }
        if (!known) {
            tb_set_error("unknown field %s", k);
            end_record(TB_BAD_INPUT, tb_last_error());
            return;
        }
    }
    if (job.kind == TB_KIND_COUNT || job.alg == NULL || job.op == NULL) {
        end_record(TB_BAD_INPUT, "kind, alg and op are required");
        return;
    }
    const tb_catalog_entry *entry = tb_catalog_find(job.kind, job.alg);
    if (entry == NULL || !tb_catalog_has_op(entry, job.op)) {
        end_record(TB_BAD_INPUT, "unknown kind/alg/op");
        return;
    }
    if (cfg.repeats == 0 || cfg.max_iters == 0) {
        end_record(TB_BAD_INPUT, "repeats and max_iters must be positive");
        return;
    }
    if (!tb_library.supports(job.kind, job.alg, job.op)) {
        end_record(TB_UNSUPPORTED, "not supported by this library build");
        return;
    }
    tb_clear_error();
    tb_status s = bench ? tb_bench(&job, &cfg) : do_compute(&job);
    end_record(s, s == TB_OK ? NULL : tb_last_error());
}

int tb_agent_main(void)
{
    tb_platform_init();
    tb_status s = tb_library.init();
    if (s != TB_OK) {
        /* Still answer, so the host sees why this library cannot be used. */
        end_record(s, tb_last_error());
        return 1;
    }
    for (;;) {
        long n = tb_read_line(request, sizeof(request));
        if (n == -1) break;
        if (n == -2) {
            end_record(TB_BAD_INPUT, "request line too long");
            continue;
        }
        serve(request);
    }
    return 0;
}
