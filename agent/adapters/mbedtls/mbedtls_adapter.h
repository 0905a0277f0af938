/* Internal interface of the Mbed TLS adapter: one family per tb_kind, a
 * common state header, the RNG and error helpers shared by the files. */
#ifndef TB_MBEDTLS_ADAPTER_H
#define TB_MBEDTLS_ADAPTER_H

#include "tb/adapter.h"
#include "tb/family.h"
#include "tb/util.h"

/* The core's per-kind operation tables and state header (tb/family.h),
 * under this adapter's names. */
typedef tb_family_state tb_mbedtls_state;
typedef tb_family tb_mbedtls_family;

extern const tb_mbedtls_family tb_mbedtls_hash, tb_mbedtls_mac, tb_mbedtls_aead; /* sym.c */
extern const tb_mbedtls_family tb_mbedtls_kex;                 /* kex.c */
extern const tb_mbedtls_family tb_mbedtls_sig, tb_mbedtls_pke; /* pk.c */

/* The adapter's DRBG in the (f_rng, p_rng) shape Mbed TLS takes: pass
 * tb_mbedtls_rng, NULL. */
int tb_mbedtls_rng(void *unused, unsigned char *out, size_t len);
/* Non-zero once TLS started PSA Crypto (tls.c), whose own DRBG adapter_reseed then restarts too. */
extern int tb_mbedtls_psa_started;

/* Records "<fn>: -0xNNNN <Mbed TLS error text>" and returns TB_ERROR. */
tb_status tb_mbedtls_fail(const char *fn, int ret);
/* Same text, for a rejection (bad tag, padding or signature). */
tb_status tb_mbedtls_reject(const char *fn, int ret);
/* Same text, for input the library refused as malformed. */
tb_status tb_mbedtls_bad_input(const char *fn, int ret);


#endif
