/* What a platform's allocation hooks call for every block (its usable size),
 * so that the tb_heap_* instruments of platform.h work the same everywhere
 * (core/heap_account.c). */
#ifndef TB_HEAP_ACCOUNT_H
#define TB_HEAP_ACCOUNT_H

#include <stddef.h>

void tb_heap_account_alloc(size_t n);
void tb_heap_account_free(size_t n);

/* Whether a new block of usable size n may be kept under the heap cap
 * (tb_heap_cap in platform.h): 0 means the hook frees it and returns NULL.
 * Called before tb_heap_account_alloc, only while counting. */
int tb_heap_account_admit(size_t n);
/* 1 while the side being charged is capped (realloc then moves the block
 * itself, so a refused growth leaves the old block alive and counted). */
int tb_heap_capped(void);

/* Whether the hooks call the two functions above at all. Cleared for timed
 * passes (tb_timed_begin in platform.h): a timed batch then runs the plain
 * allocator behind one flag test, and none of the accounting's work. */
extern volatile int tb_heap_counting;

#endif
