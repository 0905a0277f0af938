/* Internal interface of the Mbed TLS adapter: one family per tb_kind, a
 * common state header, the RNG and error helpers shared by the files. */
#ifndef TB_MBEDTLS_MBT_H
#define TB_MBEDTLS_MBT_H

#include "tb/adapter.h"
#include "tb/util.h"

/* Every prepared job starts with this header; out/out_len is the result of
 * the last successful run(). */
typedef struct mbt_family mbt_family;
typedef struct {
    const mbt_family *fam;
    const uint8_t *out;
    size_t out_len;
} mbt_state;

struct mbt_family {
    int (*supports)(const char *alg, const char *op);
    /* Returns a zeroed state of the family's own type with fam set. */
    tb_status (*prepare)(const tb_job *job, mbt_state **state);
    tb_status (*run)(mbt_state *state);
    void (*release)(mbt_state *state); /* also on a partly prepared state */
};

extern const mbt_family mbt_hash, mbt_mac, mbt_aead; /* sym.c */
extern const mbt_family mbt_kex, mbt_sig, mbt_pke;   /* pk.c */

/* The adapter's DRBG in the (f_rng, p_rng) shape Mbed TLS takes: pass
 * mbt_rng, NULL. */
int mbt_rng(void *unused, unsigned char *out, size_t len);

/* Records "<fn>: -0xNNNN <Mbed TLS error text>" and returns TB_ERROR. */
tb_status mbt_fail(const char *fn, int ret);
/* Same text, for a rejection (bad tag, padding or signature). */
tb_status mbt_reject(const char *fn, int ret);
/* Same text, for input the library refused as malformed. */
tb_status mbt_bad_input(const char *fn, int ret);


#endif
