/* Small helpers every adapter needs, so buffers are alike in all libraries. */
#ifndef TB_UTIL_H
#define TB_UTIL_H

#include "tb/adapter.h"

/* Zeroed memory starting on a 64-byte cache line (vector code runs slower
 * on buffers whose loads straddle lines, and a TLS record buffer is usually
 * aligned), with TB_SLACK zero bytes after it: some libraries' vector code
 * reads a few bytes past a short input (a 12-byte IV with a 16-byte load).
 * Sets "out of memory" and returns NULL on failure; release with free(). */
#define TB_SLACK 16
void *tb_zalloc(size_t n);
/* An aligned copy of b (as tb_zalloc). */
uint8_t *tb_dup(tb_bytes b);
/* The end of every set-up that builds an object step by step: on TB_OK
 * hands obj over through *out, otherwise releases it (release must accept
 * a partly built object). Returns st. */
tb_status tb_settle(tb_status st, void *obj, void (*release)(void *obj), void **out);
/* The index of the entry called name in a table whose entries start with
 * their name (a const char *: a string table, or structs named first), or
 * -1: the look-up every adapter's request parsing makes. */
int tb_name_index(const void *table, size_t count, size_t size, const char *name);
#define TB_NAME_INDEX(table, name) tb_name_index((table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]), (name))
/* An AEAD set-up's answer to rekey=1 where it sets its key only once. */
tb_status tb_refuse_rekey(void);

#endif
