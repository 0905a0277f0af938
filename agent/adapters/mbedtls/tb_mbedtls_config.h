/*
 * tlsbench's own Mbed TLS 3.6 configuration (MBEDTLS_CONFIG_FILE), the
 * base of every build profile, host and Cortex-M: the full feature set the
 * primitive benchmarks and the TLS 1.2 / TLS 1.3 handshake benchmarks need,
 * and nothing else (no DTLS, no self tests, no debug output, no persistent
 * PSA key storage).
 *
 * Written for tlsbench; it deliberately does not start from Mbed TLS's
 * include/mbedtls/mbedtls_config.h. Tunables that are not set here keep the
 * library's defaults (MBEDTLS_MPI_WINDOW_SIZE 3, MBEDTLS_ECP_WINDOW_SIZE 4,
 * MBEDTLS_ECP_FIXED_POINT_OPTIM 1, 256-bit CTR_DRBG key, 16 KiB records)
 * unless a build profile changes them: library.cmake passes
 * profiles/<TB_MBEDTLS_PROFILE>.h as MBEDTLS_USER_CONFIG_FILE, which
 * build_info.h includes after this file. build_info.h then adds the derived
 * PSA_WANT_* symbols and runs check_config.h.
 */
#ifndef TB_MBEDTLS_CONFIG_H
#define TB_MBEDTLS_CONFIG_H

/* Checked by build_info.h: this file is written against the 3.x options. */
#define MBEDTLS_CONFIG_VERSION 0x03060000

/* ---- System and platform ------------------------------------------------
 * Inline assembly for the bignum multiply loops (x86-64, and Thumb-2 UMAAL
 * / UMLAL on Cortex-M3/M4/M7) and the AES-NI code; time for session-ticket
 * lifetimes and X.509 validity; the platform layer. */
#define MBEDTLS_HAVE_ASM
#define MBEDTLS_HAVE_TIME
#define MBEDTLS_HAVE_TIME_DATE
#define MBEDTLS_PLATFORM_C
#if !defined(TB_BARE_METAL)
/* Host only: files for loading test certificates and keys, and sockets for
 * handshakes against another library's peer over loopback. */
#define MBEDTLS_FS_IO
#define MBEDTLS_NET_C
#else
/* Bare metal (library.cmake defines TB_BARE_METAL for the library too): no
 * filesystem, no sockets, no threads (MBEDTLS_THREADING_C is never set).
 * time() / gmtime_r() come from newlib, whose gettimeofday is the
 * firmware's frozen clock (the host's "clock unix=..." request); Mbed TLS's
 * millisecond clock has no newlib source, so the adapter provides
 * mbedtls_ms_time() from the same frozen clock. */
#define MBEDTLS_PLATFORM_MS_TIME_ALT
#endif

/* Run-time version string and readable error texts for the adapter. */
#define MBEDTLS_VERSION_C
#define MBEDTLS_VERSION_FEATURES
#define MBEDTLS_ERROR_C
/* Our code must not depend on APIs scheduled for removal. */
#define MBEDTLS_DEPRECATED_REMOVED

/* ---- Random numbers -----------------------------------------------------
 * The entropy module seeds CTR_DRBG, the generator the adapter and TLS use,
 * and PSA's own DRBG. Its only source is tb_platform_seed() (the adapter's
 * mbedtls_hardware_poll): the OS on the host, a deterministic test stream on
 * firmware. Mbed TLS's built-in OS source is off, so there is one path on
 * every platform. HMAC_DRBG is needed for deterministic ECDSA (RFC 6979). */
#define MBEDTLS_ENTROPY_C
#define MBEDTLS_NO_PLATFORM_ENTROPY
#define MBEDTLS_ENTROPY_HARDWARE_ALT
#define MBEDTLS_CTR_DRBG_C
#define MBEDTLS_HMAC_DRBG_C

/* ---- Hashes and HMAC ----------------------------------------------------
 * Every hash in tlsbench's catalog, through the generic md layer (which
 * also provides HMAC). MD5/SHA-1 stay for the catalog and legacy suites;
 * HKDF is TLS 1.3's key schedule (via PSA). */
#define MBEDTLS_MD_C
#define MBEDTLS_MD5_C
#define MBEDTLS_SHA1_C
#define MBEDTLS_SHA224_C
#define MBEDTLS_SHA256_C
#define MBEDTLS_SHA384_C
#define MBEDTLS_SHA512_C
#define MBEDTLS_SHA3_C
#define MBEDTLS_HKDF_C

/* ---- Symmetric ciphers --------------------------------------------------
 * AES with the hardware paths (AES-NI + PCLMULQDQ on x86-64, chosen at run
 * time by CPUID; the Armv8 crypto extension on Arm hosts), behind the
 * generic cipher layer that the TLS record code uses. CBC for the TLS 1.2
 * MAC-then-encrypt suites; GCM, CCM and ChaCha20-Poly1305 as AEADs. */
#define MBEDTLS_AES_C
#define MBEDTLS_AESNI_C
#define MBEDTLS_AESCE_C
#define MBEDTLS_CIPHER_C
#define MBEDTLS_CIPHER_MODE_CBC
#define MBEDTLS_CIPHER_PADDING_PKCS7
#define MBEDTLS_GCM_C
#define MBEDTLS_CCM_C
#define MBEDTLS_CHACHA20_C
#define MBEDTLS_POLY1305_C
#define MBEDTLS_CHACHAPOLY_C

/* ---- Big numbers, encodings ---------------------------------------------
 * Bignum arithmetic for RSA, DHM and ECP; ASN.1/OID/PEM/Base64 for keys and
 * certificates; prime generation for RSA key generation in test set-ups. */
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_GENPRIME
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C
#define MBEDTLS_OID_C
#define MBEDTLS_BASE64_C
#define MBEDTLS_PEM_PARSE_C
#define MBEDTLS_PEM_WRITE_C

/* ---- RSA ----------------------------------------------------------------
 * PKCS#1 v1.5 (signatures, TLS 1.2 RSA key transport) and v2.1 (PSS for
 * TLS 1.3 rsa_pss_rsae_* signatures). */
#define MBEDTLS_RSA_C
#define MBEDTLS_PKCS1_V15
#define MBEDTLS_PKCS1_V21

/* ---- Finite-field Diffie-Hellman ----------------------------------------
 * TLS 1.2 DHE_RSA and, through PSA, the RFC 7919 ffdhe groups of TLS 1.3. */
#define MBEDTLS_DHM_C

/* ---- Elliptic curves ----------------------------------------------------
 * Exactly the curves of the benchmark catalog and the usual TLS groups:
 * secp256r1, secp384r1, X25519, X448. Mbed TLS's own ECP code (no p256-m
 * driver, no Everest X25519), with the fast NIST reductions. ECDSA signing
 * is deterministic (RFC 6979), Mbed TLS's default behaviour. Mbed TLS has
 * no EdDSA. */
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_DP_SECP384R1_ENABLED
#define MBEDTLS_ECP_DP_CURVE25519_ENABLED
#define MBEDTLS_ECP_DP_CURVE448_ENABLED
#define MBEDTLS_ECP_NIST_OPTIM
#define MBEDTLS_ECDH_C
#define MBEDTLS_ECDSA_C
#define MBEDTLS_ECDSA_DETERMINISTIC

/* ---- Public-key layer ---------------------------------------------------
 * Parsing PKCS#1 / PKCS#8 / SEC1 keys (the adapter reads RSAPrivateKey
 * DER) and writing keys, as X.509 and TLS use them. */
#define MBEDTLS_PK_C
#define MBEDTLS_PK_PARSE_C
#define MBEDTLS_PK_WRITE_C

/* ---- PSA Crypto ---------------------------------------------------------
 * Required by TLS 1.3 (HKDF key schedule, its ECDHE/FFDHE key exchange).
 * Volatile keys only. MBEDTLS_USE_PSA_CRYPTO stays off, as in Mbed TLS's
 * default build: TLS 1.2, X.509 and PK use the legacy modules directly.
 * The PSA algorithm set is derived from the legacy options above. */
#define MBEDTLS_PSA_CRYPTO_C
#define MBEDTLS_PSA_KEY_STORE_DYNAMIC

/* ---- X.509 --------------------------------------------------------------
 * Certificate parsing and verification for the handshakes (including
 * RSASSA-PSS-signed certificates), and certificate writing so test
 * certificates can be made in-process. */
#define MBEDTLS_X509_USE_C
#define MBEDTLS_X509_CRT_PARSE_C
#define MBEDTLS_X509_RSASSA_PSS_SUPPORT
#define MBEDTLS_X509_CREATE_C
#define MBEDTLS_X509_CRT_WRITE_C

/* ---- TLS ----------------------------------------------------------------
 * TLS 1.2 and TLS 1.3, client and server. */
#define MBEDTLS_SSL_TLS_C
#define MBEDTLS_SSL_CLI_C
#define MBEDTLS_SSL_SRV_C
#define MBEDTLS_SSL_PROTO_TLS1_2
#define MBEDTLS_SSL_PROTO_TLS1_3

/* TLS 1.2 key exchanges the handshake benchmark uses: certificate-based
 * (RSA transport, DHE/ECDHE signed, static ECDH with an ECDSA certificate)
 * and pre-shared key (plain, ECDHE, DHE). Mbed TLS has no anonymous
 * (DH_anon / ECDH_anon) key exchanges at all. */
#define MBEDTLS_KEY_EXCHANGE_RSA_ENABLED
#define MBEDTLS_KEY_EXCHANGE_DHE_RSA_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_RSA_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDH_ECDSA_ENABLED
#define MBEDTLS_KEY_EXCHANGE_PSK_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_PSK_ENABLED
#define MBEDTLS_KEY_EXCHANGE_DHE_PSK_ENABLED

/* TLS 1.2 extensions common peers negotiate: extended master secret,
 * encrypt-then-MAC for CBC suites, SNI, ALPN. */
#define MBEDTLS_SSL_EXTENDED_MASTER_SECRET
#define MBEDTLS_SSL_ENCRYPT_THEN_MAC
#define MBEDTLS_SSL_SERVER_NAME_INDICATION
#define MBEDTLS_SSL_ALPN
/* RFC 6066 maximum fragment length (TLS 1.2): a client asks for it only when
 * the benchmark says so (a case's mfl=<n>); otherwise nothing is sent. */
#define MBEDTLS_SSL_MAX_FRAGMENT_LENGTH

/* TLS 1.3 key exchange modes (certificate + (EC)DHE, PSK, PSK + (EC)DHE),
 * middlebox compatibility (what other stacks send by default), 0-RTT.
 * TLS 1.3 in Mbed TLS requires the peer certificate to be kept. */
#define MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_EPHEMERAL_ENABLED
#define MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK_ENABLED
#define MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK_EPHEMERAL_ENABLED
#define MBEDTLS_SSL_TLS1_3_COMPATIBILITY_MODE
#define MBEDTLS_SSL_EARLY_DATA
#define MBEDTLS_SSL_KEEP_PEER_CERTIFICATE

/* Resumption: session tickets (TLS 1.2 RFC 5077 and TLS 1.3 NewSessionTicket),
 * the server-side ticket key module, and the TLS 1.2 session-ID cache. */
#define MBEDTLS_SSL_SESSION_TICKETS
#define MBEDTLS_SSL_TICKET_C
#define MBEDTLS_SSL_CACHE_C

#endif /* TB_MBEDTLS_CONFIG_H */
