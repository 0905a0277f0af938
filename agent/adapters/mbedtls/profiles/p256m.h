/*
 * Mbed TLS build profile "p256m" (TB_MBEDTLS_PROFILE=p256m), included by
 * build_info.h after tb_mbedtls_config.h (MBEDTLS_USER_CONFIG_FILE).
 *
 * The p256-m PSA driver (3rdparty/p256-m, MBEDTLS_PSA_P256M_DRIVER_ENABLED),
 * the smallest and fastest P-256 Mbed TLS 3.6 ships. It serves the PSA API
 * only. Since 3.6, TLS 1.3 derives its ECDHE secret through PSA
 * (psa_generate_key, psa_raw_key_agreement), so a TLS 1.3 handshake on P-256
 * reaches p256-m's ECDH; in this build the adapter's P-256 primitives go
 * through PSA too (psa_p256.c, TB_MBEDTLS_P256_PSA): "p256" (public,
 * keygen, derive, exchange) and "ecdsa-p256-sha256" (psa_sign_hash with
 * randomised k, the only ECDSA p256-m has; psa_verify_hash) measure p256-m
 * with PSA's key handling. The built-in ECP module stays (the other curves,
 * TLS 1.2's ECDHE, and the pk layer's signatures in the handshakes, which
 * only MBEDTLS_USE_PSA_CRYPTO, off in our base, would route to PSA): so the
 * image is larger than ours, not smaller. Otherwise Mbed TLS's defaults.
 */
#ifndef TB_MBEDTLS_PROFILE_H
#define TB_MBEDTLS_PROFILE_H

#define TB_MBEDTLS_PROFILE_NAME "p256m"
#define TB_MBEDTLS_PROFILE_SUMMARY "Mbed TLS defaults with the p256-m PSA driver (TLS 1.3 ECDHE and the P-256 primitives via PSA)"

#define MBEDTLS_PSA_P256M_DRIVER_ENABLED

#endif
