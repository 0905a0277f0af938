/* P-256 ECDH and ECDSA through the PSA API, for builds where a PSA driver
 * serves P-256 (TB_MBEDTLS_P256_PSA: the p256-m driver). The legacy ecp,
 * ecdh and ecdsa calls of kex.c and pk.c never reach a driver; these calls
 * are the ones Mbed TLS 3.6's TLS code makes: TLS 1.3's key share
 * (psa_generate_key, psa_export_public_key, psa_raw_key_agreement,
 * psa_destroy_key; ssl_tls13_generic.c) and, with MBEDTLS_USE_PSA_CRYPTO,
 * the pk layer's ECDSA (a key imported per operation, DER <-> raw with
 * psa_util.h; pk_wrap.c). Keys live only inside one call: the core restarts
 * PSA (adapter_reseed) before every batch, which destroys every key. */
#include "mbedtls_adapter.h"

#if defined(TB_MBEDTLS_P256_PSA)

#include <mbedtls/psa_util.h>
#include <psa/crypto.h>

#include <string.h>

#define P256_BITS 256

/* The names of the errors these calls return (psa/crypto_values.h);
 * mbedtls_strerror knows only the legacy codes. */
static const char *error_name(psa_status_t ps)
{
    switch (ps) {
    case PSA_ERROR_INVALID_ARGUMENT: return "PSA_ERROR_INVALID_ARGUMENT";
    case PSA_ERROR_INVALID_SIGNATURE: return "PSA_ERROR_INVALID_SIGNATURE";
    case PSA_ERROR_INSUFFICIENT_MEMORY: return "PSA_ERROR_INSUFFICIENT_MEMORY";
    case PSA_ERROR_INSUFFICIENT_ENTROPY: return "PSA_ERROR_INSUFFICIENT_ENTROPY";
    case PSA_ERROR_NOT_SUPPORTED: return "PSA_ERROR_NOT_SUPPORTED";
    case PSA_ERROR_NOT_PERMITTED: return "PSA_ERROR_NOT_PERMITTED";
    case PSA_ERROR_BUFFER_TOO_SMALL: return "PSA_ERROR_BUFFER_TOO_SMALL";
    case PSA_ERROR_BAD_STATE: return "PSA_ERROR_BAD_STATE";
    case PSA_ERROR_GENERIC_ERROR: return "PSA_ERROR_GENERIC_ERROR";
    default: return "PSA error";
    }
}

static tb_status failed(const char *fn, psa_status_t ps, tb_status as)
{
    tb_set_error("%s: %d %s", fn, (int)ps, error_name(ps));
    return as;
}

tb_status tb_mbedtls_psa_start(void)
{
    psa_status_t ps = psa_crypto_init(); /* idempotent */
    if (ps != PSA_SUCCESS) return failed("psa_crypto_init", ps, TB_ERROR);
    tb_mbedtls_psa_started = 1; /* adapter_reseed restarts PSA's DRBG too */
    return TB_OK;
}

static void key_attributes(psa_key_attributes_t *attr, psa_key_type_t type, psa_key_usage_t usage,
                           psa_algorithm_t alg)
{
    *attr = psa_key_attributes_init();
    psa_set_key_type(attr, type);
    psa_set_key_bits(attr, P256_BITS);
    psa_set_key_usage_flags(attr, usage);
    psa_set_key_algorithm(attr, alg);
}

static const psa_key_type_t KEY_PAIR = PSA_KEY_TYPE_ECC_KEY_PAIR(PSA_ECC_FAMILY_SECP_R1);
static const psa_key_type_t PUBLIC_KEY = PSA_KEY_TYPE_ECC_PUBLIC_KEY(PSA_ECC_FAMILY_SECP_R1);

/* A malformed key or point is the input's fault; anything else the library's. */
static tb_status input_or_error(const char *fn, psa_status_t ps)
{
    return failed(fn, ps, ps == PSA_ERROR_INVALID_ARGUMENT ? TB_BAD_INPUT : TB_ERROR);
}

static tb_status import_ecdh_key(const uint8_t priv[TB_P256_SCALAR], psa_key_id_t *id)
{
    psa_key_attributes_t attr;
    key_attributes(&attr, KEY_PAIR, PSA_KEY_USAGE_DERIVE, PSA_ALG_ECDH);
    psa_status_t ps = psa_import_key(&attr, priv, TB_P256_SCALAR, id);
    return ps == PSA_SUCCESS ? TB_OK : input_or_error("psa_import_key", ps);
}

static tb_status generate_ecdh_key(psa_key_id_t *id)
{
    psa_key_attributes_t attr;
    key_attributes(&attr, KEY_PAIR, PSA_KEY_USAGE_DERIVE, PSA_ALG_ECDH);
    psa_status_t ps = psa_generate_key(&attr, id);
    return ps == PSA_SUCCESS ? TB_OK : failed("psa_generate_key", ps, TB_ERROR);
}

static tb_status export_public(psa_key_id_t id, uint8_t pub[TB_P256_POINT])
{
    size_t olen = 0;
    psa_status_t ps = psa_export_public_key(id, pub, TB_P256_POINT, &olen);
    if (ps != PSA_SUCCESS) return failed("psa_export_public_key", ps, TB_ERROR);
    return TB_OK;
}

static tb_status agree(psa_key_id_t id, const uint8_t *peer, size_t peer_len, uint8_t secret[TB_P256_SCALAR])
{
    size_t olen = 0;
    psa_status_t ps = psa_raw_key_agreement(PSA_ALG_ECDH, id, peer, peer_len, secret, TB_P256_SCALAR, &olen);
    return ps == PSA_SUCCESS ? TB_OK : input_or_error("psa_raw_key_agreement (peer)", ps);
}

/* Destroys id and returns s, or the destroy's own failure. */
static tb_status destroyed(psa_key_id_t id, tb_status s)
{
    psa_status_t ps = psa_destroy_key(id);
    if (s == TB_OK && ps != PSA_SUCCESS) return failed("psa_destroy_key", ps, TB_ERROR);
    return s;
}

tb_status tb_mbedtls_p256_public(const uint8_t priv[TB_P256_SCALAR], uint8_t pub[TB_P256_POINT])
{
    psa_key_id_t id = PSA_KEY_ID_NULL;
    tb_status s = import_ecdh_key(priv, &id);
    if (s != TB_OK) return s;
    return destroyed(id, export_public(id, pub));
}

tb_status tb_mbedtls_p256_keygen(uint8_t pub[TB_P256_POINT])
{
    psa_key_id_t id = PSA_KEY_ID_NULL;
    tb_status s = generate_ecdh_key(&id);
    if (s != TB_OK) return s;
    return destroyed(id, export_public(id, pub));
}

tb_status tb_mbedtls_p256_derive(const uint8_t priv[TB_P256_SCALAR], const uint8_t *peer, size_t peer_len,
                                 uint8_t secret[TB_P256_SCALAR])
{
    psa_key_id_t id = PSA_KEY_ID_NULL;
    tb_status s = import_ecdh_key(priv, &id);
    if (s != TB_OK) return s;
    return destroyed(id, agree(id, peer, peer_len, secret));
}

tb_status tb_mbedtls_p256_exchange(const uint8_t *peer, size_t peer_len, uint8_t secret[TB_P256_SCALAR])
{
    uint8_t pub[TB_P256_POINT]; /* the key share TLS would send */
    psa_key_id_t id = PSA_KEY_ID_NULL;
    tb_status s = generate_ecdh_key(&id);
    if (s != TB_OK) return s;
    s = export_public(id, pub);
    if (s == TB_OK) s = agree(id, peer, peer_len, secret);
    return destroyed(id, s);
}

/* Randomised ECDSA: p256-m implements no other, and PSA sends a
 * deterministic (RFC 6979) request past the driver to the built-in code. */
static psa_algorithm_t ecdsa_alg(psa_algorithm_t hash)
{
    return PSA_ALG_ECDSA(hash);
}

tb_status tb_mbedtls_p256_sign(const uint8_t priv[TB_P256_SCALAR], psa_algorithm_t hash, const uint8_t *digest,
                               size_t digest_len, uint8_t *der, size_t der_size, size_t *der_len)
{
    psa_key_attributes_t attr;
    key_attributes(&attr, KEY_PAIR, PSA_KEY_USAGE_SIGN_HASH, ecdsa_alg(hash));
    psa_key_id_t id = PSA_KEY_ID_NULL;
    psa_status_t ps = psa_import_key(&attr, priv, TB_P256_SCALAR, &id);
    if (ps != PSA_SUCCESS) return input_or_error("psa_import_key", ps);
    uint8_t raw[2 * TB_P256_SCALAR];
    size_t raw_len = 0;
    ps = psa_sign_hash(id, ecdsa_alg(hash), digest, digest_len, raw, sizeof(raw), &raw_len);
    tb_status s = ps == PSA_SUCCESS ? TB_OK : failed("psa_sign_hash", ps, TB_ERROR);
    if (s == TB_OK) {
        int ret = mbedtls_ecdsa_raw_to_der(P256_BITS, raw, raw_len, der, der_size, der_len);
        if (ret != 0) s = tb_mbedtls_fail("mbedtls_ecdsa_raw_to_der", ret);
    }
    return destroyed(id, s);
}

tb_status tb_mbedtls_p256_check_public(const uint8_t pub[TB_P256_POINT])
{
    psa_key_attributes_t attr;
    key_attributes(&attr, PUBLIC_KEY, PSA_KEY_USAGE_VERIFY_HASH, ecdsa_alg(PSA_ALG_SHA_256));
    psa_key_id_t id = PSA_KEY_ID_NULL;
    psa_status_t ps = psa_import_key(&attr, pub, TB_P256_POINT, &id);
    if (ps != PSA_SUCCESS) return input_or_error("psa_import_key (pub)", ps);
    return destroyed(id, TB_OK);
}

tb_status tb_mbedtls_p256_verify(const uint8_t pub[TB_P256_POINT], psa_algorithm_t hash, const uint8_t *digest,
                                 size_t digest_len, const uint8_t *der, size_t der_len)
{
    uint8_t raw[2 * TB_P256_SCALAR];
    size_t raw_len = 0;
    int ret = mbedtls_ecdsa_der_to_raw(P256_BITS, der, der_len, raw, sizeof(raw), &raw_len);
    if (ret != 0) return tb_mbedtls_reject("mbedtls_ecdsa_der_to_raw", ret);
    psa_key_attributes_t attr;
    key_attributes(&attr, PUBLIC_KEY, PSA_KEY_USAGE_VERIFY_HASH, ecdsa_alg(hash));
    psa_key_id_t id = PSA_KEY_ID_NULL;
    psa_status_t ps = psa_import_key(&attr, pub, TB_P256_POINT, &id);
    if (ps != PSA_SUCCESS) return input_or_error("psa_import_key (pub)", ps);
    ps = psa_verify_hash(id, ecdsa_alg(hash), digest, digest_len, raw, raw_len);
    tb_status s = TB_OK;
    if (ps == PSA_ERROR_INVALID_SIGNATURE) {
        s = failed("psa_verify_hash", ps, TB_REJECT);
    } else if (ps != PSA_SUCCESS) {
        s = failed("psa_verify_hash", ps, TB_ERROR);
    }
    return destroyed(id, s);
}

#endif
