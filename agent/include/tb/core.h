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

/* Serves requests from the input line by line until end of input. */
int tb_agent_main(void);

/* Measures one job; emits calib/warmup/sample records and returns a status
 * for the final "end" record. */
tb_status tb_bench(const tb_job *job, const tb_bench_cfg *cfg);

#endif
