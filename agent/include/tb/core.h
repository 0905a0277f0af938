/* The agent core: request parsing and the shared measuring code. */
#ifndef TB_CORE_H
#define TB_CORE_H

#include "tb/adapter.h"

typedef struct {
    uint64_t size;      /* message size for sized operations (0: not sized) */
    uint64_t warmup;    /* batches run and reported as warm-up, not samples */
    uint64_t repeats;   /* measured batches */
    uint64_t min_ns;    /* a batch repeats the operation at least this long */
    uint64_t max_iters; /* upper bound on operations per batch */
} tb_bench_cfg;

typedef struct {
    char *key;
    char *value;
} tb_field;

/* Decodes a hex field value into the request's byte pool (valid until the
 * next request). Returns 0 on success. */
int tb_field_bytes(const char *hex, tb_bytes *out);
int tb_field_u64(const char *text, uint64_t *out);
/* Ends a request with the final "end" record. */
void tb_end(tb_status s, const char *msg);

/* The "handshake" request (core/tls.c). */
void tb_tls_serve(const tb_field *fields, size_t n);

/* Serves requests from the input line by line until end of input. */
int tb_agent_main(void);
/* Serves one request line (its newline removed; it is cut up in place):
 * every request ends with exactly one "end" record. tb_agent_main calls it
 * for each line; a fuzzer calls it with lines of its own. */
void tb_agent_serve_line(char *line);

/* Measures one job; emits calib/warmup/sample records and returns a status
 * for the final "end" record. */
tb_status tb_bench(const tb_job *job, const tb_bench_cfg *cfg);

#endif
