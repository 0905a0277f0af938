/*
 * Mbed TLS build profile "small-2k" (TB_MBEDTLS_PROFILE=small-2k), included by
 * build_info.h after tb_mbedtls_config.h (MBEDTLS_USER_CONFIG_FILE): the
 * RAM (and some code) savers Mbed TLS documents for constrained devices,
 * each trading speed for memory. The feature set is the base one, so every
 * benchmark of "default" also runs here.
 */
#ifndef TB_MBEDTLS_PROFILE_H
#define TB_MBEDTLS_PROFILE_H

#define TB_MBEDTLS_PROFILE_NAME "small-2k"
#define TB_MBEDTLS_PROFILE_SUMMARY \
    "2 KiB records each way, MPI window 1, ECP window 2 without fixed-point comb, " \
    "AES ROM tables (fewer), smaller SHA-256/SHA-512"

/* "small" with TLS record buffers of 2 KiB of plaintext each way (each
 * connection holds one input and one output buffer): the compile-time
 * record-size option of the minimum-RAM study (docs/results-min-ram.md). A
 * peer that sends larger records, or a handshake message longer than 2 KiB,
 * fails; a TLS 1.2 client can ask a server for 2048-byte fragments at run
 * time (max_fragment_length, a case's mfl=2048). */
#define MBEDTLS_SSL_IN_CONTENT_LEN 2048
#define MBEDTLS_SSL_OUT_CONTENT_LEN 2048

/* Bignum exponentiation window: 1 keeps one precomputed power instead of
 * 2^(3-1) (RSA/DHE heap peak down by about 4 modulus-sized numbers), at the
 * cost of more multiplications. */
#define MBEDTLS_MPI_WINDOW_SIZE 1

/* ECC scalar multiplication: window 2 (comb table of 2^(2-1) points instead
 * of 2^(4-1)), and no fixed-point comb kept per curve for the base point
 * (that table lives in the group structure for the group's lifetime). */
#define MBEDTLS_ECP_WINDOW_SIZE 2
#define MBEDTLS_ECP_FIXED_POINT_OPTIM 0

/* AES: tables in flash (const) instead of generated into RAM at first use
 * (about 8 KiB of RAM saved), and one table per direction instead of four
 * (about 6 KiB less of them), at the cost of rotates per round. */
#define MBEDTLS_AES_ROM_TABLES
#define MBEDTLS_AES_FEWER_TABLES

/* Hashes: the rolled-loop SHA-256/SHA-512 (less code, a little slower). */
#define MBEDTLS_SHA256_SMALLER
#define MBEDTLS_SHA512_SMALLER

#endif
