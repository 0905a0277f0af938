/* What a platform's allocation hooks call for every block (its usable size),
 * so that the tb_heap_* instruments of platform.h work the same everywhere
 * (core/heap_account.c). */
#ifndef TB_HEAP_ACCOUNT_H
#define TB_HEAP_ACCOUNT_H

#include <stddef.h>

void tb_heap_account_alloc(size_t n);
void tb_heap_account_free(size_t n);

#endif
