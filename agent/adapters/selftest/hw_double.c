/* The selftest double's crypto peripheral driver (adapter.c: sha256, sha384):
 * 16 register writes, a doorbell and a poll per 64-byte block, after a
 * stand-in of TURNS turns that the cycle model must leave out. Linked after
 * the platform's code, so the rest of the image keeps its layout. */
#include "hwcrypto.h"

#include <stddef.h>
#include <string.h>

static __attribute__((noinline)) void standin(uint32_t turns)
{
    tb_hw_standin_begin();
    for (volatile uint32_t i = 0; i < turns; i++) {
    }
    tb_hw_standin_end();
}

void tb_selftest_hw(const uint8_t *msg, size_t len, uint32_t turns);
void tb_selftest_hw(const uint8_t *msg, size_t len, uint32_t turns)
{
    standin(turns);
    for (size_t off = 0; off + 64u <= len; off += 64u) {
        for (size_t w = 0; w < 64u; w += 4u) {
            uint32_t word;
            memcpy(&word, msg + off + w, 4u);
            tb_hw.din = word;
        }
        tb_hw_block_sha256();
        tb_hw_wait();
    }
}
