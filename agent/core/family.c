/* The untimed part of the dispatch of adapters written as one operation
 * table per kind (tb/family.h): which table, whether it supports the job,
 * the unsupported error and the prepare that releases a partial state. */
#include "tb/family.h"
#include "tb/catalog.h"

#include <stddef.h>

const tb_family *tb_family_of(const tb_family *const *families, size_t n, tb_kind kind)
{
    return (size_t)kind < n ? families[kind] : NULL;
}

int tb_family_supports(const tb_family *fam, const char *alg, const char *op)
{
    return fam != NULL && fam->supports(alg, op);
}

tb_status tb_family_prepare(const tb_family *fam, const tb_job *job, void **state, const char *why)
{
    *state = NULL;
    if (!tb_family_supports(fam, job->alg, job->op)) {
        tb_set_error("%s/%s/%s%s", tb_kind_name(job->kind), job->alg, job->op, why);
        return TB_UNSUPPORTED;
    }
    tb_family_state *st = NULL;
    tb_status s = fam->prepare(job, &st);
    if (s != TB_OK) {
        if (st != NULL) fam->release(st);
        return s;
    }
    *state = st;
    return TB_OK;
}
