/*
 * Mbed TLS build profile "tls13-min" (TB_MBEDTLS_PROFILE=tls13-min), included
 * by build_info.h after tb_mbedtls_config.h (MBEDTLS_USER_CONFIG_FILE).
 *
 * A minimal TLS 1.3 build in the spirit of Mbed TLS's configs/baremetal.h
 * and configs/config-suite-b.h: TLS 1.3 only, the ephemeral (ECDHE) key
 * exchange and resumption with (EC)DHE (PSK-ephemeral; no pure PSK mode;
 * the adapter's 0-RTT calls need a PSK mode), AES-GCM only (no CCM,
 * CBC or ChaCha20-Poly1305), P-256 and X25519 only, 4 KiB records each way
 * (tlsbench's longest certificate chain fits, as in "small"), and the
 * size-for-speed trades of "small". What the harness itself needs stays
 * (both sides of the handshake run on the device, so the server side too;
 * RSA for the adapter's calls). Cases of what it leaves out are unsupported.
 */
#ifndef TB_MBEDTLS_PROFILE_H
#define TB_MBEDTLS_PROFILE_H

#define TB_MBEDTLS_PROFILE_NAME "tls13-min"
#define TB_MBEDTLS_PROFILE_SUMMARY \
    "TLS 1.3 only (ECDHE, AES-GCM, P-256/X25519), 4 KiB records each way, MPI window 1, ECP window 2"

#undef MBEDTLS_SSL_PROTO_TLS1_2
#undef MBEDTLS_KEY_EXCHANGE_RSA_ENABLED
#undef MBEDTLS_KEY_EXCHANGE_DHE_RSA_ENABLED
#undef MBEDTLS_KEY_EXCHANGE_ECDHE_RSA_ENABLED
#undef MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED
#undef MBEDTLS_KEY_EXCHANGE_ECDH_ECDSA_ENABLED
#undef MBEDTLS_KEY_EXCHANGE_PSK_ENABLED
#undef MBEDTLS_KEY_EXCHANGE_ECDHE_PSK_ENABLED
#undef MBEDTLS_KEY_EXCHANGE_DHE_PSK_ENABLED
#undef MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK_ENABLED /* resumption keeps (EC)DHE: PSK-ephemeral */

#undef MBEDTLS_CCM_C
#undef MBEDTLS_CHACHAPOLY_C
#undef MBEDTLS_ECP_DP_SECP384R1_ENABLED
#undef MBEDTLS_ECP_DP_CURVE448_ENABLED

#define MBEDTLS_SSL_IN_CONTENT_LEN 4096
#define MBEDTLS_SSL_OUT_CONTENT_LEN 4096
#define MBEDTLS_MPI_WINDOW_SIZE 1
#define MBEDTLS_ECP_WINDOW_SIZE 2
#define MBEDTLS_ECP_FIXED_POINT_OPTIM 0

#endif
