/* Mbed TLS's own SHA-256 under tb_sw_ names: the "hw" profile's stand-in (standin.h). */
#define TB_MBEDTLS_HW_STANDIN 1
#define mbedtls_sha256_context tb_sw_sha256_context
#define mbedtls_sha256_init tb_sw_sha256_init
#define mbedtls_sha256_free tb_sw_sha256_free
#define mbedtls_sha256_clone tb_sw_sha256_clone
#define mbedtls_sha256_starts tb_sw_sha256_starts
#define mbedtls_sha256_update tb_sw_sha256_update
#define mbedtls_sha256_finish tb_sw_sha256_finish
#define mbedtls_internal_sha256_process tb_sw_internal_sha256_process
#define mbedtls_internal_sha256_process_c tb_sw_internal_sha256_process_c
#define mbedtls_internal_sha256_process_a64_crypto tb_sw_internal_sha256_process_a64_crypto
#define mbedtls_sha256 tb_sw_sha256
#define mbedtls_sha256_self_test tb_sw_sha256_self_test
#define mbedtls_sha224_self_test tb_sw_sha224_self_test
#include "sha256.c" /* Mbed TLS's library/ (its include path) */

#include "standin.h"

_Static_assert(sizeof(tb_sw_sha256_context) <= 4 * TB_SW_SHA256_CONTEXT_WORDS,
               "TB_SW_SHA256_CONTEXT_WORDS too small");
