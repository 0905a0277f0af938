/* The stand-in of Mbed TLS's ECDSA on the PKA (hw_ecdsa.c): its own
 * library/ecdsa.c compiled once more without MBEDTLS_ECDSA_SIGN_ALT and
 * MBEDTLS_ECDSA_VERIFY_ALT, its functions named tb_sw_ecdsa_* instead of
 * mbedtls_ecdsa_* (standin_ecdsa.c). */
#ifndef TB_MBEDTLS_STANDIN_ECDSA_H
#define TB_MBEDTLS_STANDIN_ECDSA_H

#include "mbedtls/ecp.h"

int tb_sw_ecdsa_sign(mbedtls_ecp_group *grp, mbedtls_mpi *r, mbedtls_mpi *s, const mbedtls_mpi *d,
                     const unsigned char *buf, size_t blen, int (*f_rng)(void *, unsigned char *, size_t),
                     void *p_rng);
int tb_sw_ecdsa_verify(mbedtls_ecp_group *grp, const unsigned char *buf, size_t blen, const mbedtls_ecp_point *Q,
                       const mbedtls_mpi *r, const mbedtls_mpi *s);

#endif
