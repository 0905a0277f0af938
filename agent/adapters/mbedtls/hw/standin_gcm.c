/* Mbed TLS's own GCM under tb_sw_ names: the "hw" profile's stand-in (standin.h).
 * Its block cipher stays MBEDTLS_AES_ALT's (hw.c): inside the stand-in, the model leaves that out too. */
#define TB_MBEDTLS_HW_STANDIN_GCM 1
#define mbedtls_gcm_context tb_sw_gcm_context
#define mbedtls_gcm_init tb_sw_gcm_init
#define mbedtls_gcm_setkey tb_sw_gcm_setkey
#define mbedtls_gcm_starts tb_sw_gcm_starts
#define mbedtls_gcm_update_ad tb_sw_gcm_update_ad
#define mbedtls_gcm_update tb_sw_gcm_update
#define mbedtls_gcm_finish tb_sw_gcm_finish
#define mbedtls_gcm_crypt_and_tag tb_sw_gcm_crypt_and_tag
#define mbedtls_gcm_auth_decrypt tb_sw_gcm_auth_decrypt
#define mbedtls_gcm_free tb_sw_gcm_free
#define mbedtls_gcm_self_test tb_sw_gcm_self_test
#include "gcm.c" /* Mbed TLS's library/ (its include path) */

#include "standin_gcm.h"

_Static_assert(sizeof(tb_sw_gcm_context) <= 8 * TB_SW_GCM_CONTEXT_DWORDS, "TB_SW_GCM_CONTEXT_DWORDS too small");
