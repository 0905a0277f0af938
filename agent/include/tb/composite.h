/* Operations the core composes from adapter primitives (core/composite.c),
 * so that every library's timed region does the same steps. */
#ifndef TB_COMPOSITE_H
#define TB_COMPOSITE_H

#include "tb/adapter.h"

/* Who does a job: a composite of the core for the algorithms it composes
 * (aes-128-cbc-hmac-*), else the library's own adapter (tb_library). Only
 * supports/prepare/run/result/release of a composite are set. */
const tb_adapter *tb_job_adapter(tb_kind kind, const char *alg);

/* 1 when the core composes this algorithm. */
int tb_is_composite(tb_kind kind, const char *alg);

/* A composite prepared on the given primitives (the call counter passes its
 * counting table; everything else goes through tb_job_adapter). */
tb_status tb_composite_prepare(const tb_prim_ops *prims, const tb_job *job, void **state);

#endif
