/*
 * Mbed TLS build profile "p256m" (TB_MBEDTLS_PROFILE=p256m), included by
 * build_info.h after tb_mbedtls_config.h (MBEDTLS_USER_CONFIG_FILE).
 *
 * The p256-m PSA driver (3rdparty/p256-m, MBEDTLS_PSA_P256M_DRIVER_ENABLED),
 * the smallest and fastest P-256 Mbed TLS 3.6 ships. Since 3.6, TLS 1.3
 * derives its ECDHE secret through the PSA API (psa_raw_key_agreement), so
 * a TLS 1.3 handshake on P-256 reaches p256-m's ECDH; PSA ECDSA on P-256
 * goes to it too. The built-in ECP module stays (the adapter's ECDH and
 * ECDSA calls, the other curves, the pk layer's signatures, which
 * MBEDTLS_USE_PSA_CRYPTO, off in our base, would route to PSA): so the
 * primitives "p256" and "ecdsa-p256-sha256" measure the built-in code, and
 * the image is larger than ours, not smaller. Otherwise Mbed TLS's defaults.
 */
#ifndef TB_MBEDTLS_PROFILE_H
#define TB_MBEDTLS_PROFILE_H

#define TB_MBEDTLS_PROFILE_NAME "p256m"
#define TB_MBEDTLS_PROFILE_SUMMARY "Mbed TLS defaults with the p256-m PSA driver (TLS 1.3 ECDHE on P-256 via PSA)"

#define MBEDTLS_PSA_P256M_DRIVER_ENABLED

#endif
