/*
 * An adapter written as one operation table per kind (tb_family): the
 * library's files fill in the tables with their library calls, and the
 * core's dispatch (core/family.c, TB_DEFINE_FAMILY_ADAPTER) reaches them,
 * so no adapter writes that dispatch again. An adapter that uses it defines
 * adapter_init, adapter_version, adapter_config and adapter_reseed, its
 * families[] table, and ends with TB_DEFINE_FAMILY_ADAPTER.
 */
#ifndef TB_FAMILY_H
#define TB_FAMILY_H

#include "tb/adapter.h"

/* Every prepared job starts with this header; out/out_len is the result of
 * the last successful run(). */
typedef struct tb_family tb_family;
typedef struct {
    const tb_family *fam;
    const uint8_t *out;
    size_t out_len;
} tb_family_state;

struct tb_family {
    int (*supports)(const char *alg, const char *op);
    /* Returns a zeroed state of the family's own type with fam set. */
    tb_status (*prepare)(const tb_job *job, tb_family_state **state);
    /* The timed call. NULL in a kind's table whose prepare points the state
     * at a narrower table (one per curve type, say), so the timed call
     * reaches the right run with no second dispatch. */
    tb_status (*run)(tb_family_state *state);
    void (*release)(tb_family_state *state); /* also on a partly prepared state */
};

/* The tables of an adapter's six classic kinds, named tb_<lib>_<kind> (its
 * sym.c: hash, mac, aead; kex.c: kex; pk.c: sig, pke): declared in its
 * <lib>_adapter.h, and listed in its families[] (indexed by tb_kind) with
 * any further kinds after them. */
#define TB_DECLARE_CLASSIC_FAMILIES(lib)                                                                           \
    extern const tb_family tb_##lib##_hash, tb_##lib##_mac, tb_##lib##_aead, tb_##lib##_kex, tb_##lib##_sig,     \
        tb_##lib##_pke
#define TB_CLASSIC_FAMILIES(lib)                                                                                   \
    [TB_KIND_HASH] = &tb_##lib##_hash, [TB_KIND_MAC] = &tb_##lib##_mac, [TB_KIND_AEAD] = &tb_##lib##_aead,        \
    [TB_KIND_KEX] = &tb_##lib##_kex, [TB_KIND_SIG] = &tb_##lib##_sig, [TB_KIND_PKE] = &tb_##lib##_pke

/* The adapter's table for kind (families[kind], NULL where it has none or
 * kind is outside the table of n entries). */
const tb_family *tb_family_of(const tb_family *const *families, size_t n, tb_kind kind);
/* Non-zero when fam exists and supports alg/op. */
int tb_family_supports(const tb_family *fam, const char *alg, const char *op);
/* Prepares job with fam. Where fam is NULL or lacks alg/op: TB_UNSUPPORTED,
 * the error "<kind>/<alg>/<op><why>" (why, e.g. " is not in BearSSL 0.6"). */
tb_status tb_family_prepare(const tb_family *fam, const tb_job *job, void **state, const char *why);
/* Ends the adapter's adapter.c, after its families[] table (indexed by
 * tb_kind): adapter_supports and adapter_prepare on the kind's table (why:
 * the unsupported error's tail; refuse: NULL or a function that may refuse
 * a job before its family sees it, returning TB_OK to let it through), its
 * run, result and release through the state's header, and the tb_library
 * object. They are defined in the adapter's own file, under the contract's
 * names, so the timed call (adapter_run: two loads and a tail call) keeps
 * its code, its place in the image and its name in profiles (tlsbench
 * fidelity counts adapter_run). */
#define TB_DEFINE_FAMILY_ADAPTER(name, families, refuse, why)                                                      \
    static int adapter_supports(tb_kind kind, const char *alg, const char *op)                                     \
    {                                                                                                              \
        return tb_family_supports(tb_family_of(families, sizeof(families) / sizeof(families[0]), kind), alg, op);  \
    }                                                                                                              \
    static tb_status adapter_prepare(const tb_job *job, void **state)                                              \
    {                                                                                                              \
        tb_status (*const refuse_fn)(const tb_job *) = refuse;                                                     \
        if (refuse_fn != NULL) {                                                                                   \
            *state = NULL;                                                                                         \
            tb_status refused = refuse_fn(job);                                                                    \
            if (refused != TB_OK) return refused;                                                                  \
        }                                                                                                          \
        return tb_family_prepare(tb_family_of(families, sizeof(families) / sizeof(families[0]), job->kind), job,   \
                                 state, why);                                                                      \
    }                                                                                                              \
    static tb_status adapter_run(void *state)                                                                      \
    {                                                                                                              \
        tb_family_state *st = state;                                                                               \
        return st->fam->run(st);                                                                                   \
    }                                                                                                              \
    static tb_status adapter_result(void *state, tb_bytes *out)                                                    \
    {                                                                                                              \
        const tb_family_state *st = state;                                                                         \
        out->data = st->out;                                                                                       \
        out->len = st->out_len;                                                                                    \
        return TB_OK;                                                                                              \
    }                                                                                                              \
    static void adapter_release(void *state)                                                                       \
    {                                                                                                              \
        tb_family_state *st = state;                                                                               \
        if (st != NULL) st->fam->release(st);                                                                      \
    }                                                                                                              \
    TB_DEFINE_ADAPTER(name)

#endif
