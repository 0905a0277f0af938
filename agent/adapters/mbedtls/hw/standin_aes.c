/* Mbed TLS's own AES under tb_sw_ names: the "hw" profile's stand-in (standin.h). */
#define TB_MBEDTLS_HW_STANDIN 1
#define mbedtls_aes_context tb_sw_aes_context
#define mbedtls_aes_xts_context tb_sw_aes_xts_context
#define mbedtls_aes_init tb_sw_aes_init
#define mbedtls_aes_free tb_sw_aes_free
#define mbedtls_aes_xts_init tb_sw_aes_xts_init
#define mbedtls_aes_xts_free tb_sw_aes_xts_free
#define mbedtls_aes_setkey_enc tb_sw_aes_setkey_enc
#define mbedtls_aes_setkey_dec tb_sw_aes_setkey_dec
#define mbedtls_aes_xts_setkey_enc tb_sw_aes_xts_setkey_enc
#define mbedtls_aes_xts_setkey_dec tb_sw_aes_xts_setkey_dec
#define mbedtls_internal_aes_encrypt tb_sw_internal_aes_encrypt
#define mbedtls_internal_aes_decrypt tb_sw_internal_aes_decrypt
#define mbedtls_aes_crypt_ecb tb_sw_aes_crypt_ecb
#define mbedtls_aes_crypt_cbc tb_sw_aes_crypt_cbc
#define mbedtls_aes_crypt_xts tb_sw_aes_crypt_xts
#define mbedtls_aes_crypt_cfb128 tb_sw_aes_crypt_cfb128
#define mbedtls_aes_crypt_cfb8 tb_sw_aes_crypt_cfb8
#define mbedtls_aes_crypt_ofb tb_sw_aes_crypt_ofb
#define mbedtls_aes_crypt_ctr tb_sw_aes_crypt_ctr
#define mbedtls_aes_self_test tb_sw_aes_self_test
#include "aes.c" /* Mbed TLS's library/ (its include path) */

#include "standin.h"

_Static_assert(sizeof(tb_sw_aes_context) <= 4 * TB_SW_AES_CONTEXT_WORDS, "TB_SW_AES_CONTEXT_WORDS too small");
