/* Internal interface of the Mbed TLS adapter: one family per tb_kind, a
 * common state header, the RNG and error helpers shared by the files. */
#ifndef TB_MBEDTLS_ADAPTER_H
#define TB_MBEDTLS_ADAPTER_H

#include "tb/adapter.h"
#include "tb/family.h"
#include "tb/util.h"

#include <mbedtls/build_info.h>

/* The core's per-kind operation tables (tb/family.h), one per kind: sym.c,
 * kex.c, pk.c. */
TB_DECLARE_CLASSIC_FAMILIES(mbedtls);

/* The adapter's DRBG in the (f_rng, p_rng) shape Mbed TLS takes: pass
 * tb_mbedtls_rng, NULL. */
int tb_mbedtls_rng(void *unused, unsigned char *out, size_t len);
/* Non-zero once TLS (tls.c) or a P-256 primitive (psa_p256.c) started PSA Crypto, whose own DRBG
 * adapter_reseed then restarts too. */
extern int tb_mbedtls_psa_started;

/* Records "<fn>: -0xNNNN <Mbed TLS error text>" and returns TB_ERROR. */
tb_status tb_mbedtls_fail(const char *fn, int ret);
/* Same text, for a rejection (bad tag, padding or signature). */
tb_status tb_mbedtls_reject(const char *fn, int ret);
/* Same text, for input the library refused as malformed. */
tb_status tb_mbedtls_bad_input(const char *fn, int ret);

/* P-256 ECDH ("p256") and ECDSA ("ecdsa-p256-sha256") go through PSA only
 * where a PSA driver serves P-256 (the p256-m driver, profile "p256m"): the
 * legacy ecp/ecdh/ecdsa calls never reach a driver, so there PSA is the only
 * way to measure it. Every other build keeps the legacy calls: with
 * MBEDTLS_USE_PSA_CRYPTO off (our base) they are what TLS 1.2's ECDHE and
 * every TLS signature run, and PSA's built-in P-256 is the same ecp.c
 * arithmetic with PSA's key handling on top. */
#if defined(MBEDTLS_PSA_P256M_DRIVER_ENABLED) && defined(MBEDTLS_PSA_CRYPTO_C) && \
    defined(MBEDTLS_VERSION_NUMBER) && MBEDTLS_VERSION_NUMBER >= 0x03060000
#define TB_MBEDTLS_P256_PSA 1
#include <psa/crypto.h>

enum { TB_P256_SCALAR = 32, TB_P256_POINT = 65 /* 0x04 || X || Y */ };

/* psa_crypto_init (idempotent), and adapter_reseed restarts PSA from then on. */
tb_status tb_mbedtls_psa_start(void);
/* Each imports or generates its key, uses it and destroys it (psa_p256.c). */
tb_status tb_mbedtls_p256_public(const uint8_t priv[TB_P256_SCALAR], uint8_t pub[TB_P256_POINT]);
tb_status tb_mbedtls_p256_keygen(uint8_t pub[TB_P256_POINT]);
tb_status tb_mbedtls_p256_derive(const uint8_t priv[TB_P256_SCALAR], const uint8_t *peer, size_t peer_len,
                                 uint8_t secret[TB_P256_SCALAR]);
tb_status tb_mbedtls_p256_exchange(const uint8_t *peer, size_t peer_len, uint8_t secret[TB_P256_SCALAR]);
/* ECDSA with randomised k (PSA_ALG_ECDSA(hash)), the signature as DER. */
tb_status tb_mbedtls_p256_sign(const uint8_t priv[TB_P256_SCALAR], psa_algorithm_t hash, const uint8_t *digest,
                               size_t digest_len, uint8_t *der, size_t der_size, size_t *der_len);
/* TB_BAD_INPUT unless pub is a point of the curve (as PSA's import checks it). */
tb_status tb_mbedtls_p256_check_public(const uint8_t pub[TB_P256_POINT]);
/* TB_REJECT for a malformed or wrong DER signature. */
tb_status tb_mbedtls_p256_verify(const uint8_t pub[TB_P256_POINT], psa_algorithm_t hash, const uint8_t *digest,
                                 size_t digest_len, const uint8_t *der, size_t der_len);
#endif


#endif
