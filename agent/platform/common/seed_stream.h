/* The deterministic seed stream of the platforms (firmware always, the host
 * with TLSBENCH_FIXED_SEED=1): xorshift32 from the caller's start, one byte
 * (the state's low byte) a step. Test material only: never an entropy
 * source. A statement macro on the caller's own state variable (an lvalue),
 * not a function taking its address: so the loop compiles exactly as it did
 * written out in each tb_platform_seed (a pointer made GCC store the state
 * on every step). */
#ifndef TB_SEED_STREAM_H
#define TB_SEED_STREAM_H

#include <stddef.h>
#include <stdint.h>

#define TB_SEED_STREAM(state, out, n)                                                                              \
    for (size_t tb_seed_i = 0; tb_seed_i < (n); tb_seed_i++) {                                                     \
        (state) ^= (state) << 13;                                                                                  \
        (state) ^= (state) >> 17;                                                                                  \
        (state) ^= (state) << 5;                                                                                   \
        (out)[tb_seed_i] = (uint8_t)(state);                                                                       \
    }

#endif
