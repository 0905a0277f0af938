/* tlsbench adapter for BearSSL 0.6: the tb_library object, the RNG, the
 * implementations BearSSL's defaults select, the build summary and the
 * dispatch to one family per kind (sym.c, kex.c, pk.c). */
#include "bearssl_adapter.h"
#include "tb/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

br_hmac_drbg_context tb_bearssl_rng;
tb_bearssl_impls tb_bearssl_impl;

tb_status tb_bearssl_fail(const char *fn)
{
    tb_set_error("%s failed", fn);
    return TB_ERROR;
}

/* The one place the generator is seeded: HMAC-DRBG (SHA-256) from 32 bytes
 * of tb_platform_seed (the OS on the host, the deterministic test stream on
 * firmware). */
static tb_status seed_rng(void)
{
    uint8_t seed[32];
    if (tb_platform_seed(seed, sizeof(seed)) != 0) return tb_bearssl_fail("tb_platform_seed");
    br_hmac_drbg_init(&tb_bearssl_rng, &br_sha256_vtable, seed, sizeof(seed));
    return TB_OK;
}

/* BearSSL's TLS engine picks its AES, GHASH, ChaCha20, Poly1305 and EC code
 * in br_ssl_engine_set_default_* (AES-NI/PCLMUL when the CPU has them, else
 * the constant-time ct64 on 64-bit builds and ct on 32-bit ones; the m62/m31
 * curves). Asking an engine context is the library's own selection, not a
 * copy of it. The context is large and used once: heap, released here. */
static tb_status read_defaults(void)
{
    br_ssl_engine_context *eng = tb_zalloc(sizeof(*eng));
    if (eng == NULL) return TB_ERROR;
    br_ssl_engine_set_default_aes_gcm(eng);
    br_ssl_engine_set_default_aes_ccm(eng);
    br_ssl_engine_set_default_aes_cbc(eng);
    br_ssl_engine_set_default_chapol(eng);
    br_ssl_engine_set_default_ec(eng);
    tb_bearssl_impl.aes_ctr = eng->iaes_ctr;
    tb_bearssl_impl.aes_ctrcbc = eng->iaes_ctrcbc;
    tb_bearssl_impl.aes_cbcenc = eng->iaes_cbcenc;
    tb_bearssl_impl.aes_cbcdec = eng->iaes_cbcdec;
    tb_bearssl_impl.ghash = eng->ighash;
    tb_bearssl_impl.chacha = eng->ichacha;
    tb_bearssl_impl.poly = eng->ipoly;
    tb_bearssl_impl.ec = eng->iec;
    free(eng);
    return TB_OK;
}

static tb_status adapter_init(void)
{
    tb_status st = read_defaults();
    return st == TB_OK ? seed_rng() : st;
}

static tb_status adapter_reseed(void)
{
    return seed_rng();
}

static const char *adapter_version(void)
{
    return "BearSSL 0.6"; /* BearSSL has no run-time version call */
}

/* Names of the implementations the defaults chose (compared by address). */
static const char *aes_name(void)
{
    const br_block_ctr_class *c = tb_bearssl_impl.aes_ctr;
    if (c == &br_aes_ct64_ctr_vtable) return "br_aes_ct64 (constant-time, 64-bit bitsliced)";
    if (c == &br_aes_ct_ctr_vtable) return "br_aes_ct (constant-time, 32-bit bitsliced)";
    if (c == &br_aes_big_ctr_vtable) return "br_aes_big (tables)";
    if (c == &br_aes_small_ctr_vtable) return "br_aes_small (tables)";
    if (c != NULL && c == br_aes_x86ni_ctr_get_vtable()) return "br_aes_x86ni (AES-NI)";
    return "other";
}

static const char *ghash_name(void)
{
    br_ghash g = tb_bearssl_impl.ghash;
    if (g == &br_ghash_ctmul64) return "br_ghash_ctmul64";
    if (g == &br_ghash_ctmul) return "br_ghash_ctmul";
    if (g == &br_ghash_ctmul32) return "br_ghash_ctmul32";
    if (g != NULL && g == br_ghash_pclmul_get()) return "br_ghash_pclmul (PCLMULQDQ)";
    return "other";
}

static const char *chapol_name(void)
{
    if (tb_bearssl_impl.chacha == &br_chacha20_ct_run) return "br_chacha20_ct";
    if (tb_bearssl_impl.chacha != NULL && tb_bearssl_impl.chacha == br_chacha20_sse2_get()) return "br_chacha20_sse2";
    return "other";
}

static const char *poly_name(void)
{
    if (tb_bearssl_impl.poly == &br_poly1305_ctmul_run) return "br_poly1305_ctmul";
    if (tb_bearssl_impl.poly == &br_poly1305_ctmul32_run) return "br_poly1305_ctmul32";
    if (tb_bearssl_impl.poly != NULL && tb_bearssl_impl.poly == br_poly1305_ctmulq_get()) return "br_poly1305_ctmulq";
    return "other";
}

static const char *ec_name(void)
{
    if (tb_bearssl_impl.ec == &br_ec_all_m31) return "br_ec_all_m31 (P-256 m31, Curve25519 m31, P-384 i31)";
    if (tb_bearssl_impl.ec == &br_ec_all_m15) return "br_ec_all_m15";
    return "other than br_ec_all_m31/m15";
}

static const char *rsa_name(void)
{
    if (br_rsa_private_get_default() == &br_rsa_i31_private) return "i31";
    if (br_rsa_private_get_default() == &br_rsa_i15_private) return "i15";
    if (br_rsa_private_get_default() == br_rsa_i62_private_get()) return "i62";
    return "other";
}

static const char *adapter_config(void)
{
    static char text[1536];
    if (text[0] != '\0') return text;
    snprintf(text, sizeof(text),
             "%s; implementations the library's defaults select (br_ssl_engine_set_default_*,"
             " br_*_get_default): AES %s, GHASH %s, ChaCha20 %s, Poly1305 %s, EC %s, RSA %s"
             "; ECDSA %s; no malloc anywhere (contexts are caller-provided: heap figures read 0"
             " allocations, the memory is static or stack)"
             "; RNG HMAC-DRBG (SHA-256) seeded from tb_platform_seed: %s",
             TB_LIBRARY_CONFIG, aes_name(), ghash_name(), chapol_name(), poly_name(), ec_name(), rsa_name(),
             br_ecdsa_sign_asn1_get_default() == &br_ecdsa_i31_sign_asn1 ? "i31" : "other",
             tb_platform_seed_note());
    return text;
}

/* the core makes a decrypt benchmark's ciphertext with this call too */
static tb_status refuse_pke_encrypt(const tb_job *job)
{
    if (job->kind != TB_KIND_PKE || strcmp(job->op, "encrypt") != 0) return TB_OK;
    tb_set_error("BearSSL 0.6 has no public PKCS#1 v1.5 encryption call (its TLS client pads the premaster"
                 " secret inside the handshake code), and the decrypt benchmark's ciphertext is made by it");
    return TB_UNSUPPORTED;
}

static const tb_family *const families[] = {TB_CLASSIC_FAMILIES(bearssl)};

TB_DEFINE_FAMILY_ADAPTER("bearssl", families, refuse_pke_encrypt, " is not in BearSSL 0.6");
