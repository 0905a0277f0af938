/*
 * tlsbench's own wolfSSL configuration (compiled with WOLFSSL_USER_SETTINGS).
 *
 * The base of every build profile, host and Cortex-M: the full feature set
 * the primitive and TLS handshake benchmarks need. The maths and assembly
 * choices are the profile's (profiles/<name>.h, included below): x86-64-asm
 * (the host default on x86-64), c, sp-asm (Cortex-M), small-stack.
 *
 * This header is also included by wolfSSL's .S files, so it holds
 * preprocessor directives only (C declarations sit under __ASSEMBLER__).
 */
#ifndef TB_WOLFSSL_USER_SETTINGS_H
#define TB_WOLFSSL_USER_SETTINGS_H

/* ---- Protocol: TLS 1.2 + TLS 1.3, client and server; no SSLv3/TLS 1.0/1.1,
 * no DTLS. The extensions are the ones real peers send and the handshake
 * benchmarks exercise (tickets, EMS, EtM, SNI, ALPN, groups). */
#define WOLFSSL_TLS13
#define NO_OLD_TLS
#define HAVE_TLS_EXTENSIONS
#define HAVE_SUPPORTED_CURVES
#define HAVE_EXTENDED_MASTER
#define HAVE_ENCRYPT_THEN_MAC
#define HAVE_SERVER_RENEGOTIATION_INFO
#define HAVE_SNI
#define HAVE_ALPN
#define HAVE_MAX_FRAGMENT         /* RFC 6066 maximum fragment length (a client asks only when a case says mfl=) */
#define HAVE_SESSION_TICKET
#define WOLFSSL_EARLY_DATA        /* TLS 1.3 0-RTT (the adapter enables it per server) */
#define WOLFSSL_SEND_HRR_COOKIE   /* stateless HelloRetryRequest */
#define HAVE_HKDF                 /* TLS 1.3 key schedule */
#define HAVE_FFDHE                /* RFC 7919 named groups in TLS */
#define HAVE_FFDHE_2048
#define HAVE_FFDHE_3072           /* no HAVE_FFDHE_Q: keygen uses wolfSSL's short-exponent table, as its TLS does */
#define HAVE_DH_DEFAULT_PARAMS    /* TLS 1.2 DHE server picks the RFC 7919 group the client offers (configure's default) */
#define WOLFSSL_STATIC_RSA        /* TLS_RSA_* key transport suites */
#define WOLFSSL_STATIC_PSK        /* plain TLS_PSK_* suites (ECDHE_PSK, DHE_PSK need no flag; PSK is on: no NO_PSK) */
#define WOLFSSL_STATIC_DH         /* static ECDH suites: TLS_ECDH_ECDSA_* (ECDSA certificate, no ephemeral key) */
#define HAVE_ANON                 /* TLS_DH_anon_* (wolfSSL has no ECDH_anon suites) */

/* ---- Symmetric primitives and hashes. MD5 and SHA-1 stay for TLS 1.2
 * CBC-SHA suites and our hash benchmarks; legacy ciphers are out. */
#define HAVE_AESGCM
#define HAVE_AESCCM
#define HAVE_AES_CBC
#define HAVE_AES_DECRYPT
#define WOLFSSL_AES_128
#define WOLFSSL_AES_256
#define GCM_TABLE_4BIT            /* portable GCM (no AES-NI): 4-bit tables */
#define HAVE_CHACHA
#define HAVE_POLY1305
#define WOLFSSL_SHA224
#define WOLFSSL_SHA384
#define WOLFSSL_SHA512
#define WOLFSSL_SHA3
#define WOLFSSL_SHAKE256          /* needed by Ed448 */
#define NO_RC4
#define NO_MD4
#define NO_DES3
#define NO_DSA
#define WOLFSSL_NO_SHAKE128

/* ---- Public key: RSA (PKCS#1 v1.5 sign/encrypt and PSS), ECC P-256/P-384,
 * X25519/Ed25519, X448/Ed448, finite-field DH. Hardening on, as shipped. */
#define WC_RSA_PSS
#define WC_RSA_BLINDING
#define HAVE_ECC
#define ECC_USER_CURVES           /* only the curves below */
#define HAVE_ECC256
#define HAVE_ECC384
#define ECC_SHAMIR
#define ECC_TIMING_RESISTANT
#define TFM_TIMING_RESISTANT
#define HAVE_CURVE25519
#define HAVE_ED25519
#define HAVE_CURVE448
#define HAVE_ED448

/* ---- Maths: wolfSSL's SP integer library for every size, plus the
 * fixed-size SP implementations for RSA 2048/3072, DH 2048/3072 and
 * P-256/P-384 (the fast path TLS uses). */
#define WOLFSSL_SP_MATH_ALL
#define WOLFSSL_HAVE_SP_RSA
#define WOLFSSL_HAVE_SP_DH
#define WOLFSSL_HAVE_SP_ECC
#define WOLFSSL_SP_384
#define SP_INT_BITS 4096          /* RSA-4096 certificates still parse */

/* ---- RNG: Hash DRBG (SHA-256). Its seed comes from one function of the
 * adapter, which reads tb_platform_seed (host: the OS; firmware: a
 * deterministic test stream, never an entropy source). */
#define HAVE_HASHDRBG
#define CUSTOM_RAND_GENERATE_SEED tb_wolfssl_seed
#ifndef __ASSEMBLER__
int tb_wolfssl_seed(unsigned char *output, unsigned int sz);
#endif

/* ---- Build profile (a benchmark dimension): maths and assembly choices
 * live in profiles/<TB_WOLFSSL_PROFILE>.h, which library.cmake names in
 * TB_WOLFSSL_PROFILE_HEADER (with the source files it needs). */
#if defined(TB_WOLFSSL_PROFILE_HEADER)
/* ---- Post-quantum, where the tree has it (library.cmake sets TB_WOLFSSL_PQ
 * for wolfSSL 5.8+): ML-KEM-512/768/1024 (FIPS 203) and ML-DSA-44/65/87
 * (FIPS 204), wolfSSL's own implementations, as --enable-mlkem
 * --enable-mldsa configure them. Both need SHAKE128 as well. */
#ifdef TB_WOLFSSL_PQ
#define WOLFSSL_HAVE_MLKEM
#define WOLFSSL_WC_MLKEM
#define WOLFSSL_HAVE_MLDSA
#define WOLFSSL_PQC_HYBRIDS       /* TLS 1.3 X25519MLKEM768, SecP256r1MLKEM768 (ML-KEM-768 alone is on by default) */
#undef WOLFSSL_NO_SHAKE128
#define WOLFSSL_SHAKE128
#if defined(TB_BARE_METAL)
/* Firmware: wolfSSL's small-memory ML-KEM and ML-DSA (documented at the top
 * of wc_mlkem.c and wc_mldsa.c): less heap and stack for key generation,
 * encapsulation, signing and verification, at some speed; key buffers sized
 * to the parameter set in use. The small-code options (WOLFSSL_MLKEM_SMALL,
 * WOLFSSL_MLDSA_SMALL: smaller, slower code) are not set. */
#define WOLFSSL_MLKEM_MAKEKEY_SMALL_MEM
#define WOLFSSL_MLKEM_ENCAPSULATE_SMALL_MEM
#define WOLFSSL_MLDSA_MAKE_KEY_SMALL_MEM
#define WOLFSSL_MLDSA_SIGN_SMALL_MEM
#define WOLFSSL_MLDSA_VERIFY_SMALL_MEM
#endif
#endif
/* SLH-DSA (FIPS 205, wolfSSL 5.9+, host agents: library.cmake sets
 * TB_WOLFSSL_SLHDSA): the 128s/128f sets, SHA2 and SHAKE, what configure
 * --enable-slhdsa=128s,128f,sha2-128s,sha2-128f defines. The SHAKE 128 sets
 * stay on because wolfSSL 5.9.2 sizes its internal buffers (wc_slhdsa.c
 * SLHDSA_MAX_INDICES_SZ, SLHDSA_MAX_A, SLHDSA_MAX_H_M) from the SHAKE "NO"
 * flags alone: with every SHAKE set off they are those of no set, and
 * signing with SHA2-128f overran a stack buffer (a crash we saw). */
#ifdef TB_WOLFSSL_SLHDSA
#define WOLFSSL_HAVE_SLHDSA
#define WOLFSSL_WC_SLHDSA
#define WOLFSSL_SLHDSA_PARAM_128S
#define WOLFSSL_SLHDSA_PARAM_128F
#define WOLFSSL_SLHDSA_PARAM_NO_192S
#define WOLFSSL_SLHDSA_PARAM_NO_192F
#define WOLFSSL_SLHDSA_PARAM_NO_256S
#define WOLFSSL_SLHDSA_PARAM_NO_256F
#define WOLFSSL_SLHDSA_SHA2
#define WOLFSSL_SLHDSA_PARAM_SHA2_128S
#define WOLFSSL_SLHDSA_PARAM_SHA2_128F
#define WOLFSSL_SLHDSA_PARAM_NO_SHA2_192S
#define WOLFSSL_SLHDSA_PARAM_NO_SHA2_192F
#define WOLFSSL_SLHDSA_PARAM_NO_SHA2_256S
#define WOLFSSL_SLHDSA_PARAM_NO_SHA2_256F
#endif

#include TB_WOLFSSL_PROFILE_HEADER
#endif

/* ---- Platform services. Host: POSIX threads/mutexes, filesystem, BSD
 * sockets stay available (the TLS benchmark drives memory I/O callbacks).
 * Bare metal (library.cmake defines TB_BARE_METAL for the library too): no
 * threads, files, sockets or OS random device; the adapter installs its own
 * I/O callbacks and the seed (above) is tb_platform_seed. time() and
 * gmtime() come from newlib, whose gettimeofday is the firmware's frozen
 * clock (the host's "clock unix=..." request). */
#if defined(TB_BARE_METAL)
#define SINGLE_THREADED
#define NO_FILESYSTEM
#define WOLFSSL_USER_IO
#define WOLFSSL_NO_SOCK
#define NO_WRITEV
#define NO_DEV_RANDOM
#define WOLFSSL_NO_CURRDIR
/* tls13.c's TimeNowInMilliseconds uses struct timeval and gettimeofday;
 * newlib's headers bring them in, picolibc's (RV32 class images) only here */
#include <sys/time.h>
#endif

/* ---- The user's own settings (tlsbench --config wolfssl=PATH), last, so
 * they may #undef what they turn off. */
#if defined(TB_WOLFSSL_USER_CONFIG)
#include TB_WOLFSSL_USER_CONFIG
#endif

#endif
