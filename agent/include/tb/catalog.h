/* The canonical algorithm names and their operations. The Python side keeps
 * the same table (tlsbench/catalog.py); a test checks the two agree. */
#ifndef TB_CATALOG_H
#define TB_CATALOG_H

#include "tb/adapter.h"

typedef struct {
    tb_kind kind;
    const char *alg;
    const char *ops[4]; /* NULL-terminated when shorter */
} tb_catalog_entry;

extern const tb_catalog_entry tb_catalog[];
extern const size_t tb_catalog_len;

const char *tb_kind_name(tb_kind kind);
/* Returns TB_KIND_COUNT when the name is unknown. */
tb_kind tb_kind_from_name(const char *name);
const tb_catalog_entry *tb_catalog_find(tb_kind kind, const char *alg);
int tb_catalog_has_op(const tb_catalog_entry *e, const char *op);

#endif
