/* The agent core: the request loop and the shared measuring code. */
#ifndef TB_CORE_H
#define TB_CORE_H

#include "tb/adapter.h"
#include "tb/request.h"

typedef struct {
    uint64_t size;      /* message size for sized operations (0: not sized) */
    uint64_t warmup;    /* batches run and reported as warm-up, not samples */
    uint64_t repeats;   /* measured batches */
    uint64_t min_ns;    /* a batch repeats the operation at least this long */
    uint64_t max_iters; /* upper bound on operations per batch */
} tb_bench_cfg;

/* The "handshake" request (core/tls.c). */
void tb_tls_serve(const tb_field *fields, size_t n);

/* Serves requests from the input line by line until end of input. */
int tb_agent_main(void);

/* Measures one job; emits calib/warmup/sample records and returns a status
 * for the final "end" record. */
tb_status tb_bench(const tb_job *job, const tb_bench_cfg *cfg);

/* The "calls" request (core/calls.c): one untimed run() of the job with
 * every call through the adapter interface counted; emits a "calls" record. */
tb_status tb_count_calls(const tb_job *job);

#endif
