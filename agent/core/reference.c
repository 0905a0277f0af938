/* The reference workload: a fixed integer computation, the same in every
 * agent, timed around each round of a case so the host can tell how fast the
 * machine ran just then. lanes=1 is one dependent xorshift64 chain: it runs
 * at the latency of one ALU and barely notices a neighbour that shares the
 * core's execution units (on our VM, 5th percentile of 90 s: it held 0.96
 * of its best while AES-GCM fell to 0.55 and SHA-256 to 0.43). lanes=8 runs eight independent chains, bound by
 * the core's throughput like the crypto it stands for: its slow phases are
 * theirs. Neither touches memory or allocates. The result is a checksum the
 * host can compute too, so the work is known to have been done. */
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

#if defined(TB_BARE_METAL)
/* firmware is never paced: the single chain only, so its images stay as they were */
#define FIELDS "one field, steps=1..%u"
#else
#define FIELDS "steps=1..%u and lanes=1 or 8"
#define SEED 0x9E3779B97F4A7C15u
#define XORSHIFT(x) ((x) ^= (x) << 13, (x) ^= (x) >> 7, (x) ^= (x) << 17)

/* lane k starts at SEED + k; the result is the lanes' values XORed. Named
 * variables, not an array, so the compiler keeps eight scalar chains. */
static __attribute__((noinline)) uint64_t lanes8(uint64_t steps)
{
    uint64_t a = SEED, b = SEED + 1, c = SEED + 2, d = SEED + 3, e = SEED + 4, f = SEED + 5, g = SEED + 6,
             h = SEED + 7;
    for (uint64_t i = 0; i < steps; i++) {
        XORSHIFT(a), XORSHIFT(b), XORSHIFT(c), XORSHIFT(d), XORSHIFT(e), XORSHIFT(f), XORSHIFT(g), XORSHIFT(h);
    }
    return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
}

static int lanes_field(const tb_field *f, uint64_t *lanes)
{
    return strcmp(f->key, "lanes") == 0 && tb_field_u64(f->value, lanes) == 0 && (*lanes == 1 || *lanes == 8);
}
#endif

void tb_reference(const tb_field *fields, size_t n)
{
    uint64_t steps = DEFAULT_STEPS;
#if !defined(TB_BARE_METAL)
    uint64_t lanes = 1;
#endif
    for (size_t i = 0; i < n; i++) {
        if ((strcmp(fields[i].key, "steps") != 0 || tb_field_u64(fields[i].value, &steps) != 0 || steps == 0 ||
             steps > MAX_STEPS)
#if !defined(TB_BARE_METAL)
            && !lanes_field(&fields[i], &lanes)
#endif
        ) {
            tb_set_error("reference takes " FIELDS " (got %s)", MAX_STEPS, fields[i].key);
            tb_end(TB_BAD_INPUT, tb_last_error());
            return;
        }
    }
    tb_reading a, b;
    tb_read_counters(&a);
#if defined(TB_BARE_METAL)
    uint64_t x = chain(steps);
#else
    uint64_t x = lanes == 1 ? chain(steps) : lanes8(steps);
#endif
    tb_read_counters(&b);
    uint32_t have = tb_platform_counters();
    tb_rec_begin("reference");
    tb_rec_u64("steps", steps);
#if !defined(TB_BARE_METAL)
    if (lanes != 1) tb_rec_u64("lanes", lanes);
#endif
    tb_rec_u64("result", x);
    if (have & TB_CTR_WALL_NS) tb_rec_u64("wall_ns", b.wall_ns - a.wall_ns);
    if (have & TB_CTR_CPU_NS) tb_rec_u64("cpu_ns", b.cpu_ns - a.cpu_ns);
    if (have & TB_CTR_INSTRUCTIONS) tb_rec_u64("instructions", b.instructions - a.instructions);
    tb_rec_end();
    tb_end(TB_OK, NULL);
}
