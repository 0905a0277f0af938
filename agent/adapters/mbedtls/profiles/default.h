/*
 * Mbed TLS build profile "default" (TB_MBEDTLS_PROFILE=default), included by
 * build_info.h after tb_mbedtls_config.h (MBEDTLS_USER_CONFIG_FILE).
 *
 * Mbed TLS's own tunables, unchanged: 16 KiB record buffers each way, MPI
 * window 3, ECP window 4 with the fixed-point comb for the base point, AES
 * tables built in RAM, unrolled SHA-256/SHA-512. The profile to compare
 * with other libraries' defaults.
 */
#ifndef TB_MBEDTLS_PROFILE_H
#define TB_MBEDTLS_PROFILE_H

#define TB_MBEDTLS_PROFILE_NAME "default"
#define TB_MBEDTLS_PROFILE_SUMMARY "Mbed TLS defaults (16 KiB records, MPI window 3, ECP window 4 + fixed-point comb)"

#endif
