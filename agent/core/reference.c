/* The reference workload: a fixed chain of integer operations (xorshift64),
 * the same in every agent, timed before each round of a case. It touches no
 * memory and allocates nothing, so its time follows only how fast the core
 * runs right now (a host's slow phases: frequency, a neighbour's load); the
 * host compares it with the run's best. The result is a checksum the host
 * can compute too, so the work is known to have been done. */
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"

#include <string.h>

#define DEFAULT_STEPS 10000000u
#define MAX_STEPS 1000000000u

static __attribute__((noinline)) uint64_t chain(uint64_t steps)
{
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (uint64_t i = 0; i < steps; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

void tb_reference(const tb_field *fields, size_t n)
{
    uint64_t steps = DEFAULT_STEPS;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(fields[i].key, "steps") != 0 || tb_field_u64(fields[i].value, &steps) != 0 || steps == 0 ||
            steps > MAX_STEPS) {
            tb_set_error("reference takes one field, steps=1..%u (got %s)", MAX_STEPS, fields[i].key);
            tb_end(TB_BAD_INPUT, tb_last_error());
            return;
        }
    }
    tb_reading a, b;
    tb_read_counters(&a);
    uint64_t x = chain(steps);
    tb_read_counters(&b);
    uint32_t have = tb_platform_counters();
    tb_rec_begin("reference");
    tb_rec_u64("steps", steps);
    tb_rec_u64("result", x);
    if (have & TB_CTR_WALL_NS) tb_rec_u64("wall_ns", b.wall_ns - a.wall_ns);
    if (have & TB_CTR_CPU_NS) tb_rec_u64("cpu_ns", b.cpu_ns - a.cpu_ns);
    if (have & TB_CTR_INSTRUCTIONS) tb_rec_u64("instructions", b.instructions - a.instructions);
    tb_rec_end();
    tb_end(TB_OK, NULL);
}
