/* realloc's move under a heap cap, for both counting allocators
 * (cortexm/memory_cortexm.c, host/memory_host.c): a move the cap refuses
 * must leave the old block alive, so the new block is taken (admitted or
 * not) while the old one still counts, and the old one is freed only once
 * the data is across. alloc and release are the allocator's own counted
 * malloc and free. static inline: each allocator keeps its code. */
#ifndef TB_CAPPED_MOVE_H
#define TB_CAPPED_MOVE_H

#include <malloc.h>
#include <stddef.h>
#include <string.h>

static inline void *tb_capped_move(void *old, size_t n, void *(*alloc)(size_t), void (*release)(void *))
{
    void *p = alloc(n);
    if (p == NULL) return NULL;
    size_t keep = malloc_usable_size(old);
    memcpy(p, old, keep < n ? keep : n);
    release(old);
    return p;
}

#endif
