/* What every size probe shares (one probe is one translation unit): the
 * sink that keeps results live, the empty adapter the core needs to link,
 * and the fixed inputs. */
#ifndef TB_SIZEPROBE_PROBE_H
#define TB_SIZEPROBE_PROBE_H

#include "tb/adapter.h"

#include <stddef.h>

volatile unsigned char tb_probe_sink;

/* The agent's core is linked (the platform layer calls into it) but never
 * run: it needs an adapter to link, this empty one, which the linker drops. */
const tb_adapter tb_library;

#define TB_UNUSED __attribute__((unused)) /* not every probe uses every input */
static TB_UNUSED unsigned char key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                          17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static TB_UNUSED unsigned char iv[16] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab};
static TB_UNUSED unsigned char in[64] = "the size probes' one fixed message, sixty-four bytes long......";
static TB_UNUSED unsigned char out[512], back[512], tag[16];

static TB_UNUSED void keep(const unsigned char *p, size_t n)
{
    unsigned char x = 0;
    for (size_t i = 0; i < n; i++) x ^= p[i];
    tb_probe_sink ^= x;
}

#endif
