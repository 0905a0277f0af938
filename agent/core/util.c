#define _POSIX_C_SOURCE 200112L
#include "tb/util.h"
#include "tb/adapter.h"
#include "tb/platform.h"

#include <stdlib.h>
#include <string.h>

void *tb_zalloc(size_t n)
{
    void *p = NULL;
#if defined(TB_BARE_METAL) && TB_BARE_METAL
    p = malloc(n + TB_SLACK); /* no caches to line up with; newlib has no posix_memalign */
    if (p == NULL) {
#else
    if (posix_memalign(&p, 64, n + TB_SLACK) != 0) {
#endif
        tb_set_error("out of memory (%zu bytes)", n);
        tb_note_no_room();
        return NULL;
    }
    memset(p, 0, n + TB_SLACK);
    return p;
}

uint8_t *tb_dup(tb_bytes b)
{
    uint8_t *p = tb_zalloc(b.len);
    if (p != NULL && b.len) memcpy(p, b.data, b.len);
    return p;
}

tb_status tb_settle(tb_status st, void *obj, void (*release)(void *obj), void **out)
{
    if (st != TB_OK) {
        release(obj);
        return st;
    }
    *out = obj;
    return TB_OK;
}

tb_status tb_refuse_rekey(void)
{
    tb_set_error("rekey (the key set again before every operation) is not supported by this adapter");
    return TB_UNSUPPORTED;
}

tb_status tb_rng_restart(void)
{
    if (!tb_platform_seed_restart() || tb_library.reseed == NULL) return TB_OK;
    return tb_library.reseed();
}

int tb_name_index(const void *table, size_t count, size_t size, const char *name)
{
    const char *entry = table;
    for (size_t i = 0; i < count; i++, entry += size) {
        if (strcmp(*(const char *const *)(const void *)entry, name) == 0) return (int)i;
    }
    return -1;
}
