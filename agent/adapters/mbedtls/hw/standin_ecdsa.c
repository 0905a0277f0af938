/* Mbed TLS's own ECDSA under tb_sw_ names: the "hw" profile's stand-in for the PKA (standin_ecdsa.h). */
#define TB_MBEDTLS_HW_STANDIN_ECDSA 1
#define mbedtls_ecdsa_can_do tb_sw_ecdsa_can_do
#define mbedtls_ecdsa_sign_restartable tb_sw_ecdsa_sign_restartable
#define mbedtls_ecdsa_sign tb_sw_ecdsa_sign
#define mbedtls_ecdsa_sign_det_restartable tb_sw_ecdsa_sign_det_restartable
#define mbedtls_ecdsa_sign_det_ext tb_sw_ecdsa_sign_det_ext
#define mbedtls_ecdsa_verify_restartable tb_sw_ecdsa_verify_restartable
#define mbedtls_ecdsa_verify tb_sw_ecdsa_verify
#define mbedtls_ecdsa_write_signature_restartable tb_sw_ecdsa_write_signature_restartable
#define mbedtls_ecdsa_write_signature tb_sw_ecdsa_write_signature
#define mbedtls_ecdsa_read_signature tb_sw_ecdsa_read_signature
#define mbedtls_ecdsa_read_signature_restartable tb_sw_ecdsa_read_signature_restartable
#define mbedtls_ecdsa_genkey tb_sw_ecdsa_genkey
#define mbedtls_ecdsa_from_keypair tb_sw_ecdsa_from_keypair
#define mbedtls_ecdsa_init tb_sw_ecdsa_init
#define mbedtls_ecdsa_free tb_sw_ecdsa_free
#define mbedtls_ecdsa_restart_init tb_sw_ecdsa_restart_init
#define mbedtls_ecdsa_restart_free tb_sw_ecdsa_restart_free
#include "ecdsa.c" /* Mbed TLS's library/ (its include path) */

#include "standin_ecdsa.h"
