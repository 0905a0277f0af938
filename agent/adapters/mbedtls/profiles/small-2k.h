/*
 * Mbed TLS build profile "small-2k" (TB_MBEDTLS_PROFILE=small-2k), included by
 * build_info.h after tb_mbedtls_config.h (MBEDTLS_USER_CONFIG_FILE): "small"
 * (small.h, every saver of it) with TLS record buffers of 2 KiB of plaintext
 * each way (each connection holds one input and one output buffer): the
 * compile-time record-size option of the minimum-RAM study
 * (docs/results-min-ram.md). A peer that sends larger records, or a
 * handshake message longer than 2 KiB, fails; a TLS 1.2 client can ask a
 * server for 2048-byte fragments at run time (max_fragment_length, a case's
 * mfl=2048).
 */
#ifndef TB_MBEDTLS_PROFILE_SMALL_2K_H
#define TB_MBEDTLS_PROFILE_SMALL_2K_H

#include "small.h"

#undef TB_MBEDTLS_PROFILE_NAME
#define TB_MBEDTLS_PROFILE_NAME "small-2k"
#undef TB_MBEDTLS_PROFILE_SUMMARY
#define TB_MBEDTLS_PROFILE_SUMMARY \
    "2 KiB records each way, MPI window 1, ECP window 2 without fixed-point comb, " \
    "AES ROM tables (fewer), smaller SHA-256/SHA-512"

#undef MBEDTLS_SSL_IN_CONTENT_LEN
#undef MBEDTLS_SSL_OUT_CONTENT_LEN
#define MBEDTLS_SSL_IN_CONTENT_LEN 2048
#define MBEDTLS_SSL_OUT_CONTENT_LEN 2048

#endif
