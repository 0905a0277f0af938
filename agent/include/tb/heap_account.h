/* What a platform's allocation hooks call for every block (its usable size),
 * so that the tb_heap_* instruments of platform.h work the same everywhere
 * (core/heap_account.c). */
#ifndef TB_HEAP_ACCOUNT_H
#define TB_HEAP_ACCOUNT_H

#include <stddef.h>

void tb_heap_account_alloc(size_t n);
void tb_heap_account_free(size_t n);

/* Whether the hooks call the two functions above at all. Cleared for timed
 * passes (tb_timed_begin in platform.h): a timed batch then runs the plain
 * allocator behind one flag test, and none of the accounting's work. */
extern volatile int tb_heap_counting;

#endif
