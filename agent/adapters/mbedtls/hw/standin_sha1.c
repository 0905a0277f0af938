/* Mbed TLS's own SHA-1 under tb_sw_ names: the "hw" profile's stand-in (standin.h). */
#define TB_MBEDTLS_HW_STANDIN 1
#define mbedtls_sha1_context tb_sw_sha1_context
#define mbedtls_sha1_init tb_sw_sha1_init
#define mbedtls_sha1_free tb_sw_sha1_free
#define mbedtls_sha1_clone tb_sw_sha1_clone
#define mbedtls_sha1_starts tb_sw_sha1_starts
#define mbedtls_sha1_update tb_sw_sha1_update
#define mbedtls_sha1_finish tb_sw_sha1_finish
#define mbedtls_internal_sha1_process tb_sw_internal_sha1_process
#define mbedtls_sha1 tb_sw_sha1
#define mbedtls_sha1_self_test tb_sw_sha1_self_test
#include "sha1.c" /* Mbed TLS's library/ (its include path) */

#include "standin.h"

_Static_assert(sizeof(tb_sw_sha1_context) <= 4 * TB_SW_SHA1_CONTEXT_WORDS, "TB_SW_SHA1_CONTEXT_WORDS too small");
