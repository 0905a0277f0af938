/* The deterministic seed stream of the platforms (firmware always, the host
 * with TLSBENCH_FIXED_SEED=1): xorshift32 from the caller's start, one byte
 * (the state's low byte) a step. Test material only: never an entropy
 * source. static inline, so each platform's tb_platform_seed keeps its code. */
#ifndef TB_SEED_STREAM_H
#define TB_SEED_STREAM_H

#include <stddef.h>
#include <stdint.h>

static inline void tb_seed_stream(uint32_t *state, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *state ^= *state << 13;
        *state ^= *state >> 17;
        *state ^= *state << 5;
        out[i] = (uint8_t)*state;
    }
}

#endif
