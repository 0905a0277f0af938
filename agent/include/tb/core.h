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
    /* Layout sampled on purpose: the timed passes run this many bytes
     * deeper in the stack, and with a block of heap_shift bytes allocated
     * before the state is prepared (both 0 on firmware: exact counts). */
    uint64_t stack_shift;
    uint64_t heap_shift;
    /* Or a place: the timed passes' frame starts at an address whose low 12
     * bits are stack_at (a shift computed from where the stack is now, so
     * the process's own randomised stack start does not blur it). */
    uint64_t stack_at;
    uint64_t count_timed; /* 1: the allocation hooks keep counting in timed passes (what they cost) */
} tb_bench_cfg;

/* Limits of the layout fields (a request beyond them is bad input). */
#define TB_MAX_STACK_SHIFT 65536u
#define TB_MAX_HEAP_SHIFT (1u << 20)
#define TB_STACK_PAGE 4096u /* stack_at is taken modulo this (0..4095) */

/* The "handshake" request (core/tls.c). */
void tb_tls_serve(const tb_field *fields, size_t n);

/* The "reference" request: a fixed integer workload, timed (how fast the
 * machine is right now, compared between the rounds of a run). */
void tb_reference(const tb_field *fields, size_t n);

/* Serves requests from the input line by line until end of input. */
int tb_agent_main(void);
/* Serves one request line (its newline removed; it is cut up in place):
 * every request ends with exactly one "end" record. tb_agent_main calls it
 * for each line; a fuzzer calls it with lines of its own. */
void tb_agent_serve_line(char *line);

/* Measures one job; emits calib/warmup/sample records and returns a status
 * for the final "end" record. */
tb_status tb_bench(const tb_job *job, const tb_bench_cfg *cfg);

/* The "calls" request (core/calls.c): one untimed run() of the job with
 * every call through the adapter interface counted; emits a "calls" record. */
tb_status tb_count_calls(const tb_job *job);

#endif
