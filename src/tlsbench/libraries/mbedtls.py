"""Mbed TLS: built from its pinned source tree, for the host and as firmware."""

from __future__ import annotations

from tlsbench.libraries.configs import MbedtlsUserConfig, Need
from tlsbench.libraries.record import Library, Version, debian

_PQ_PROBES = ("mlkem768-keygen", "mlkem768", "mldsa44-keygen", "mldsa44", "mldsa65")

LIBRARY = Library(
    name="mbedtls",
    display="Mbed TLS",
    versions=(
        Version("mbedtls", "3.6", "mbedtls", "Mbed TLS 3.6.6 LTS", release="3.6.6"),
        Version("mbedtls", "3.6.7", "mbedtls@3.6.7", "Mbed TLS 3.6.7 LTS"),
    ),
    default="3.6.7",
    host_build="source",
    firmware="default",
    default_profile="default",
    size_archives=("libmbedtls.a", "libmbedx509.a", "libmbedcrypto.a"),
    size_unsupported={
        **{p: "Mbed TLS 3.6 has no EdDSA" for p in ("ed25519-sign", "ed25519-verify", "ed25519-sign-verify")},
        **{p: "Mbed TLS 3.6 has no ML-KEM or ML-DSA" for p in _PQ_PROBES},
    },
    lacks={"ed25519": "Mbed TLS 3.6 has no EdDSA: psa/crypto_values.h declares PSA_ALG_PURE_EDDSA, no driver"
                      " implements it"},
    config_mechanism=MbedtlsUserConfig(
        header="mbedtls/build_info.h",
        layered="MBEDTLS_USER_CONFIG_FILE over our base and profile (full:PATH: the whole MBEDTLS_CONFIG_FILE)",
        needs=(
            Need("MBEDTLS_ENTROPY_C", "the entropy module that seeds every DRBG from the harness's seed"),
            Need("MBEDTLS_ENTROPY_HARDWARE_ALT", "the harness's seed hook mbedtls_hardware_poll (the test RNG)"),
            Need("MBEDTLS_NO_PLATFORM_ENTROPY", "one seed path, the harness's deterministic test stream",
                 firmware_only=True),
            Need("MBEDTLS_PLATFORM_MS_TIME_ALT", "the adapter's millisecond clock (the firmware's frozen clock)",
                 firmware_only=True),
            Need("MBEDTLS_CTR_DRBG_C", "the adapter's random generator"),
            Need("MBEDTLS_MD_C", "the adapter's hash and HMAC calls (the md layer)"),
            Need("MBEDTLS_CIPHER_C", "the adapter's AEAD and CBC calls (the cipher layer)"),
            Need("MBEDTLS_BIGNUM_C", "the adapter's key exchange and signature calls"),
            Need("MBEDTLS_ECP_C", "the adapter's elliptic-curve calls"),
            Need("MBEDTLS_ECDH_C", "the adapter's ECDH calls"),
            Need("MBEDTLS_RSA_C", "the adapter's RSA calls"),
            Need("MBEDTLS_PK_C", "the adapter's test keys (pk layer)"),
            Need("MBEDTLS_PK_PARSE_C", "the adapter's test keys (DER parsing)"),
            Need("MBEDTLS_X509_CRT_PARSE_C", "the handshakes' certificates"),
            Need("MBEDTLS_SSL_TLS_C", "the adapter's TLS calls"),
            Need("MBEDTLS_SSL_CLI_C", "the TLS client side of the handshakes"),
            Need("MBEDTLS_SSL_SRV_C", "the TLS server side of the handshakes"),
            Need("MBEDTLS_PSA_CRYPTO_C", "psa_crypto_init, which the adapter calls"),
            Need("MBEDTLS_VERSION_C", "the version string the run records"),
        ),
        # what a case needs on (matched on its name library/kind/alg/op)
        case_needs=(
            (r"/tls/TLS_(AES|CHACHA20)_", "MBEDTLS_SSL_PROTO_TLS1_3"),
            # the adapter leaves its 0-RTT calls out where the config does (Mbed TLS's default)
            (r"/tls/.*[/+]0rtt(\+|$)", "MBEDTLS_SSL_EARLY_DATA"),
            (r"/tls/TLS_\w+_WITH_", "MBEDTLS_SSL_PROTO_TLS1_2"),
            (r"/tls/TLS_ECDHE_ECDSA_WITH_", "MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED"),
            (r"/tls/TLS_ECDHE_RSA_WITH_", "MBEDTLS_KEY_EXCHANGE_ECDHE_RSA_ENABLED"),
            (r"/tls/TLS_DHE_RSA_WITH_", "MBEDTLS_KEY_EXCHANGE_DHE_RSA_ENABLED"),
            (r"/tls/TLS_RSA_WITH_", "MBEDTLS_KEY_EXCHANGE_RSA_ENABLED"),
            (r"/tls/TLS_ECDH_ECDSA_WITH_", "MBEDTLS_KEY_EXCHANGE_ECDH_ECDSA_ENABLED"),
            (r"/tls/TLS_PSK_WITH_", "MBEDTLS_KEY_EXCHANGE_PSK_ENABLED"),
            (r"/tls/TLS_ECDHE_PSK_WITH_", "MBEDTLS_KEY_EXCHANGE_ECDHE_PSK_ENABLED"),
            (r"/tls/TLS_DHE_PSK_WITH_", "MBEDTLS_KEY_EXCHANGE_DHE_PSK_ENABLED"),
            (r"(?i)chacha20", "MBEDTLS_CHACHAPOLY_C"),
            (r"(?i)_GCM|-gcm", "MBEDTLS_GCM_C"),
            (r"(?i)_CCM|-ccm", "MBEDTLS_CCM_C"),
            (r"(?i)_CBC_|-cbc", "MBEDTLS_CIPHER_MODE_CBC"),
            (r"x25519", "MBEDTLS_ECP_DP_CURVE25519_ENABLED"),
            (r"x448", "MBEDTLS_ECP_DP_CURVE448_ENABLED"),
            (r"p256|secp256r1", "MBEDTLS_ECP_DP_SECP256R1_ENABLED"),
            (r"p384|secp384r1", "MBEDTLS_ECP_DP_SECP384R1_ENABLED"),
            (r"ffdhe", "MBEDTLS_DHM_C"),
            (r"sha3-", "MBEDTLS_SHA3_C"),
            (r"/md5", "MBEDTLS_MD5_C"),
            (r"/sha1|-sha1", "MBEDTLS_SHA1_C"),
        ),
    ),
    # profile "hw": MBEDTLS_*_ALT functions in agent/adapters/mbedtls/hw.c, hw_gcm.c (HMAC through the hash;
    # GCM on the CRYP's GCM mode, else its block cipher on the ECB with GHASH in software; AES-128 only)
    hw_routes={
        "sha1": ("sha1",), "sha256": ("sha256",), "hmac-sha1": ("sha1",), "hmac-sha256": ("sha256",),
        "aes-128-gcm": ("aes-gcm|aes-ecb",),
        "aes-128-cbc-hmac-sha1": ("aes-cbc", "sha1"), "aes-128-cbc-hmac-sha256": ("aes-cbc", "sha256"),
        # ECDSA P-256 on a public-key accelerator (MBEDTLS_ECDSA_SIGN_ALT/VERIFY_ALT: adapters/mbedtls/hw_ecdsa.c)
        "ecdsa-p256-sha256": ("ecdsa-p256-sign", "ecdsa-p256-verify"),
    },
    hw_modules=("aes.c.obj", "gcm.c.obj", "sha1.c.obj", "sha256.c.obj"),
    # HMAC is md.c's (mbedtls_md_hmac_*)
    cipher_modules={"chacha20-poly1305": ("chacha20.c.obj", "poly1305.c.obj", "chachapoly.c.obj"),
                    "aes-128-gcm": ("aes.c.obj", "gcm.c.obj"),
                    "aes-128-cbc-hmac-sha1": ("aes.c.obj", "sha1.c.obj", "md.c.obj")},
    # its pinned sources: Debian source packages (apt-get source PACKAGE=VERSION from SUITE), every downloaded
    # file checked by its SHA-256 (record.debian, targets/sources.py)
    pins=(
        debian("mbedtls", "mbedtls=3.6.6-0.1~deb13u1", "trixie", upstream="3.6.6", archive="mbedtls_3.6.6.orig.tar.bz2",
               tree=("mbedtls-3.6.6", "include/mbedtls/build_info.h"), sha256="""
          eb9ed1adbbddcb0d00276fac6fcee0056c64ce01481c2522a16dca75792eb5eb mbedtls_3.6.6-0.1~deb13u1.dsc
          8fb65fae8dcae5840f793c0a334860a411f884cc537ea290ce1c52bb64ca007a mbedtls_3.6.6.orig.tar.bz2
          210466c522eeebc85cf2f76bd5aef935b4ebac465559cc0a84f9e73a8ed6601c mbedtls_3.6.6-0.1~deb13u1.debian.tar.xz"""),
        # from sid, beside 3.6.6: the same adapter, configuration header and profiles built from this tree
        debian("mbedtls@3.6.7", "mbedtls=3.6.7-3", "sid", upstream="3.6.7", archive="mbedtls_3.6.7.orig.tar.bz2",
               tree=("mbedtls-3.6.7", "include/mbedtls/build_info.h"), sha256="""
          a468f939a098d45c5a6f64ac91a5bb41ff188d5562edbcb37aaed59f767df25f mbedtls_3.6.7-3.dsc
          a7e8bcbec0e6f761b4af24f25677626b35f762f68eef79c08677a363212d11f6 mbedtls_3.6.7.orig.tar.bz2
          87d9007e48fdbc49e207da375b7811b13d23312cd7c412952cc9dc7a19d4c833 mbedtls_3.6.7-3.debian.tar.xz"""),
    ),
)
