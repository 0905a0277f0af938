/* wolfSSL adapter: the wolfCrypt primitives (wc_*) behind the tlsbench
 * contract (include/tb/adapter.h). Built with our user_settings.h. */
#include "wolfssl_adapter.h"
#include "tb/platform.h"
#include "tb/util.h"

#include <wolfssl/ssl.h>
#include <wolfssl/wolfcrypt/cpuid.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Seeding: the one place the DRBG gets its seed (user_settings.h
 * routes wolfSSL's wc_GenerateSeed here): the platform's seed, the OS on
 * the host, a deterministic test stream on firmware (tb_platform_seed_note
 * says which, in config()). */
int tb_wolfssl_seed(unsigned char *output, unsigned int sz)
{
    return tb_platform_seed(output, sz) == 0 ? 0 : -1;
}

WC_RNG wolf_rng;

/* ---- Algorithm table: every catalog entry wolfCrypt can do as built ---- */

static const alg_info algs[] = {
    {TB_KIND_HASH, "md5", F_HASH, WC_HASH_TYPE_MD5, 0, 0},
    {TB_KIND_HASH, "sha1", F_HASH, WC_HASH_TYPE_SHA, 0, 0},
    {TB_KIND_HASH, "sha224", F_HASH, WC_HASH_TYPE_SHA224, 0, 0},
    {TB_KIND_HASH, "sha256", F_HASH, WC_HASH_TYPE_SHA256, 0, 0},
    {TB_KIND_HASH, "sha384", F_HASH, WC_HASH_TYPE_SHA384, 0, 0},
    {TB_KIND_HASH, "sha512", F_HASH, WC_HASH_TYPE_SHA512, 0, 0},
    {TB_KIND_HASH, "sha3-256", F_HASH, WC_HASH_TYPE_SHA3_256, 0, 0},
    {TB_KIND_HASH, "sha3-384", F_HASH, WC_HASH_TYPE_SHA3_384, 0, 0},
    {TB_KIND_HASH, "sha3-512", F_HASH, WC_HASH_TYPE_SHA3_512, 0, 0},
    {TB_KIND_MAC, "hmac-sha256", F_HMAC, WC_SHA256, 0, 0},
    {TB_KIND_AEAD, "aes-128-gcm", F_GCM, 0, 16, 0},
    {TB_KIND_AEAD, "aes-256-gcm", F_GCM, 0, 32, 0},
    {TB_KIND_AEAD, "aes-128-ccm", F_CCM, 0, 16, 0},
    {TB_KIND_AEAD, "chacha20-poly1305", F_CHACHAPOLY, 0, 32, 0},
    {TB_KIND_KEX, "x25519", F_X25519, 0, CURVE25519_KEYSIZE, 0},
    {TB_KIND_KEX, "x448", F_X448, 0, CURVE448_KEY_SIZE, 0},
    {TB_KIND_KEX, "p256", F_ECDH, 0, 32, ECC_SECP256R1},
    {TB_KIND_KEX, "p384", F_ECDH, 0, 48, ECC_SECP384R1},
    {TB_KIND_KEX, "ffdhe2048", F_FFDHE, 0, 256, WC_FFDHE_2048},
    {TB_KIND_KEX, "ffdhe3072", F_FFDHE, 0, 384, WC_FFDHE_3072},
    {TB_KIND_SIG, "rsa2048-pkcs1-sha256", F_RSA_PKCS1, WC_HASH_TYPE_SHA256, 2048, 0},
    {TB_KIND_SIG, "rsa3072-pkcs1-sha256", F_RSA_PKCS1, WC_HASH_TYPE_SHA256, 3072, 0},
    {TB_KIND_SIG, "rsa2048-pss-sha256", F_RSA_PSS, WC_HASH_TYPE_SHA256, 2048, 0},
    {TB_KIND_SIG, "rsa3072-pss-sha256", F_RSA_PSS, WC_HASH_TYPE_SHA256, 3072, 0},
    {TB_KIND_SIG, "ecdsa-p256-sha256", F_ECDSA, WC_HASH_TYPE_SHA256, 32, ECC_SECP256R1},
    {TB_KIND_SIG, "ecdsa-p384-sha384", F_ECDSA, WC_HASH_TYPE_SHA384, 48, ECC_SECP384R1},
    {TB_KIND_SIG, "ed25519", F_ED25519, 0, 32, 0},
    {TB_KIND_PKE, "rsa2048-pkcs1v15", F_RSA_PKE, 0, 2048, 0},
    {TB_KIND_PKE, "rsa3072-pkcs1v15", F_RSA_PKE, 0, 3072, 0},
};

static const alg_info *find_alg(tb_kind kind, const char *name)
{
    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
        if (algs[i].kind == kind && strcmp(algs[i].name, name) == 0) return &algs[i];
    }
    return NULL;
}

/* The operation's code when kind allows it, else -1. */
static int find_op(tb_kind kind, const char *op)
{
    static const struct {
        tb_kind kind;
        const char *name;
        opcode op;
    } ops[] = {
        {TB_KIND_HASH, "hash", OP_HASH},      {TB_KIND_MAC, "mac", OP_MAC},
        {TB_KIND_AEAD, "encrypt", OP_ENC},    {TB_KIND_AEAD, "decrypt", OP_DEC},
        {TB_KIND_KEX, "public", OP_PUBLIC},   {TB_KIND_KEX, "keygen", OP_KEYGEN},
        {TB_KIND_KEX, "derive", OP_DERIVE},   {TB_KIND_KEX, "exchange", OP_EXCHANGE},
        {TB_KIND_SIG, "sign", OP_SIGN},       {TB_KIND_SIG, "verify", OP_VERIFY},
        {TB_KIND_PKE, "encrypt", OP_ENC},     {TB_KIND_PKE, "decrypt", OP_DEC},
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (ops[i].kind == kind && strcmp(ops[i].name, op) == 0) return (int)ops[i].op;
    }
    return -1;
}

/* ---- Adapter entry points ---- */

static tb_status wolf_init(void)
{
    int ret = wolfCrypt_Init();
    if (ret != 0) return lib_fail("wolfCrypt_Init", ret);
    ret = wc_InitRng(&wolf_rng);
    if (ret != 0) return lib_fail("wc_InitRng", ret);
    return TB_OK;
}

static const char *wolf_version(void)
{
    return wolfSSL_lib_version();
}

static const char *wolf_config(void)
{
    static char buf[2048];
    if (buf[0] != '\0') return buf;
    const char *cpu = "";
#ifdef HAVE_CPUID_INTEL
    static char feats[128];
    word32 f = cpuid_get_flags();
    snprintf(feats, sizeof(feats), "; CPU features used at run time:%s%s%s%s%s%s", IS_INTEL_AESNI(f) ? " aesni" : "",
             IS_INTEL_AVX1(f) ? " avx" : "", IS_INTEL_AVX2(f) ? " avx2" : "", IS_INTEL_BMI2(f) ? " bmi2" : "",
             IS_INTEL_ADX(f) ? " adx" : "", IS_INTEL_MOVBE(f) ? " movbe" : "");
    cpu = feats;
#endif
    snprintf(buf, sizeof(buf),
             "%s; config header user_settings.h (WOLFSSL_USER_SETTINGS) + profile '%s'"
             "; maths sp_int (WOLFSSL_SP_MATH_ALL, SP_INT_BITS %d) + fixed-size SP RSA/DH 2048/3072 and P-256/P-384 in %s"
             "; AES %s"
#ifdef USE_INTEL_SPEEDUP
             "; AVX1/AVX2 asm for SHA-2/SHA-3/ChaCha20/Poly1305/X25519 (USE_INTEL_SPEEDUP)"
#endif
             "; RNG Hash_DRBG seeded by tb_platform_seed: %s"
             "; ffdhe keygen private exponent: 29 bytes (232 bits) for 2048, 34 bytes (272 bits) for 3072"
             " (wolfSSL's table, no q); ffdhe 'public' = wc_DhAgree(priv, g)%s",
             TB_LIBRARY_CONFIG, TB_WOLFSSL_PROFILE_NAME, SP_INT_BITS,
#if defined(WOLFSSL_SP_X86_64_ASM)
             "x86-64 asm",
#elif defined(WOLFSSL_SP_ARM_CORTEX_M_ASM) && defined(WOLFSSL_SP_NO_UMAAL)
             "Cortex-M Thumb-2 asm (UMULL/UMLAL, no UMAAL)",
#elif defined(WOLFSSL_SP_ARM_CORTEX_M_ASM)
             "Cortex-M Thumb-2 asm (UMAAL)",
#elif defined(WOLFSSL_SP_SMALL)
             "C (WOLFSSL_SP_SMALL)",
#else
             "C",
#endif
#if defined(WOLFSSL_AESNI)
             "AES-NI + PCLMUL asm",
#elif defined(WOLFSSL_ARMASM)
             "Thumb-2 asm",
#else
             "C with GCM 4-bit tables",
#endif
             tb_platform_seed_note(), cpu);
    return buf;
}

static int wolf_supports(tb_kind kind, const char *alg, const char *op)
{
    return find_alg(kind, alg) != NULL && find_op(kind, op) >= 0;
}

static void wolf_release(void *p)
{
    state *s = p;
    if (s == NULL) return;
    if (s->live) {
        switch (s->alg->fam) {
        case F_HMAC: wc_HmacFree(&s->u.hmac); break;
        case F_GCM:
        case F_CCM: wc_AesFree(&s->u.aes); break;
        case F_X25519:
            wc_curve25519_free(&s->u.x25519.k);
            wc_curve25519_free(&s->u.x25519.peer);
            break;
        case F_X448:
            wc_curve448_free(&s->u.x448.k);
            wc_curve448_free(&s->u.x448.peer);
            break;
        case F_ECDH:
        case F_ECDSA:
            wc_ecc_free(&s->u.ecc.k);
            if (s->u.ecc.peer_live) wc_ecc_free(&s->u.ecc.peer); /* run() frees it; a guard */
            break;
        case F_FFDHE: wc_FreeDhKey(&s->u.dh.key); break;
        case F_RSA_PKCS1:
        case F_RSA_PSS:
        case F_RSA_PKE: wc_FreeRsaKey(&s->u.rsa); break;
        case F_ED25519: wc_ed25519_free(&s->u.ed); break;
        default: break;
        }
    }
    free(s->inputs);
    free(s->out);
    free(s);
}

/* wolfSSL's AVX2 AES-GCM code loads the 12-byte IV with a 16-byte read, so
 * every copied input gets TB_SLACK zero bytes after it. */

static tb_status copy_inputs(state *s, const tb_job *job)
{
    const tb_bytes *src[] = {&job->msg, &job->aad, &job->nonce, &job->sig, &job->peer};
    tb_bytes *dst[] = {&s->msg, &s->aad, &s->nonce, &s->sig, &s->peer};
    size_t total = 0;
    for (size_t i = 0; i < 5; i++) total += src[i]->len + TB_SLACK;
    s->inputs = tb_zalloc(total); /* msg first: it starts on a cache line */
    if (s->inputs == NULL) return TB_ERROR;
    uint8_t *p = s->inputs;
    for (size_t i = 0; i < 5; i++) {
        if (src[i]->len) memcpy(p, src[i]->data, src[i]->len);
        dst[i]->data = p;
        dst[i]->len = src[i]->len;
        p += src[i]->len + TB_SLACK;
    }
    return TB_OK;
}

static tb_status alloc_out(state *s, size_t cap)
{
    s->out = tb_zalloc(cap);
    return s->out == NULL ? TB_ERROR : TB_OK;
}

/* ---- prepare: key parsing, key schedules, contexts (untimed) ---- */

static tb_status prep_hash_mac(state *s, const tb_job *job)
{
    if (alloc_out(s, WC_MAX_DIGEST_SIZE) != TB_OK) return TB_ERROR;
    if (s->alg->fam == F_HASH) return TB_OK;
    int ret = wc_HmacInit(&s->u.hmac, NULL, INVALID_DEVID);
    if (ret != 0) return lib_fail("wc_HmacInit", ret);
    s->live = 1;
    ret = wc_HmacSetKey(&s->u.hmac, s->alg->hash, job->key.data, (word32)job->key.len);
    return ret == 0 ? TB_OK : lib_fail("wc_HmacSetKey", ret);
}

static tb_status prep_aead(state *s, const tb_job *job)
{
    const alg_info *a = s->alg;
    size_t n = job->nonce.len, len = job->msg.len;
    int ret;

    if (job->key.len != (size_t)a->size) return bad_len("key", job->key.len, "the cipher's key size");
    if (a->fam == F_GCM && n == 0) return bad_len("nonce", n, "at least 1");
    if (a->fam == F_CCM && (n < 7 || n > 13)) return bad_len("nonce", n, "7 to 13");
    if (a->fam == F_CHACHAPOLY && n != CHACHA20_POLY1305_AEAD_IV_SIZE) return bad_len("nonce", n, "12");
    if (s->op == OP_DEC && len < 16) return bad_len("ciphertext", len, "at least the 16-byte tag");
    if (alloc_out(s, len + 2 * AES_BLOCK_SIZE) != TB_OK) return TB_ERROR;

    switch (a->fam) {
    case F_GCM:
    case F_CCM:
        ret = wc_AesInit(&s->u.aes, NULL, INVALID_DEVID);
        if (ret != 0) return lib_fail("wc_AesInit", ret);
        s->live = 1;
        if (a->fam == F_GCM) {
            ret = wc_AesGcmSetKey(&s->u.aes, job->key.data, (word32)job->key.len);
            return ret == 0 ? TB_OK : lib_fail("wc_AesGcmSetKey", ret);
        }
        ret = wc_AesCcmSetKey(&s->u.aes, job->key.data, (word32)job->key.len);
        return ret == 0 ? TB_OK : lib_fail("wc_AesCcmSetKey", ret);
    default: /* F_CHACHAPOLY */
        /* wolfCrypt's ChaCha20-Poly1305 is one-shot: the key schedule is a
         * copy of the key, the Poly1305 key is per nonce anyway. */
        memcpy(s->key, job->key.data, CHACHA20_POLY1305_AEAD_KEYSIZE);
        return TB_OK;
    }
}

static tb_status prep_kex(state *s, const tb_job *job)
{
    const alg_info *a = s->alg;
    size_t n = (size_t)a->size;
    size_t pub_len = a->fam == F_ECDH ? 1 + 2 * n : n;
    int need_priv = s->op == OP_PUBLIC || s->op == OP_DERIVE;
    int need_peer = s->op == OP_DERIVE || s->op == OP_EXCHANGE;
    word32 len;
    int ret;

    if (need_priv && (a->fam == F_FFDHE ? job->key.len == 0 || job->key.len > n : job->key.len != n)) {
        return bad_len("private key", job->key.len, a->fam == F_FFDHE ? "1 to the prime length" : "the scalar size");
    }
    if (need_peer && job->peer.len != pub_len) return bad_len("peer public key", job->peer.len, "the public key size");
    /* The peer value stays bytes (s->peer): run() decodes and checks it as
     * wolfSSL's TLS code does for a received key share (see run.c). */
    if (alloc_out(s, pub_len) != TB_OK) return TB_ERROR;

    switch (a->fam) {
    case F_X25519:
        wc_curve25519_init(&s->u.x25519.k);
        wc_curve25519_init(&s->u.x25519.peer);
        s->live = 1;
        if (need_priv) {
            /* RFC 7748 byte order; wolfSSL clamps the scalar on import. */
            ret = wc_curve25519_import_private_ex(job->key.data, (word32)n, &s->u.x25519.k, EC25519_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve25519_import_private_ex", ret);
            len = sizeof(s->key);
            ret = wc_curve25519_export_private_raw_ex(&s->u.x25519.k, s->key, &len, EC25519_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve25519_export_private_raw_ex", ret);
        }
        return TB_OK;
    case F_X448:
        wc_curve448_init(&s->u.x448.k);
        wc_curve448_init(&s->u.x448.peer);
        s->live = 1;
        if (need_priv) {
            ret = wc_curve448_import_private_ex(job->key.data, (word32)n, &s->u.x448.k, EC448_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve448_import_private_ex", ret);
            len = sizeof(s->key);
            ret = wc_curve448_export_private_raw_ex(&s->u.x448.k, s->key, &len, EC448_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve448_export_private_raw_ex", ret);
        }
        return TB_OK;
    case F_ECDH:
        ret = wc_ecc_init(&s->u.ecc.k);
        if (ret != 0) return lib_fail("wc_ecc_init", ret);
        s->live = 1;
        if (need_priv) {
            ret = wc_ecc_import_private_key_ex(job->key.data, (word32)n, NULL, 0, &s->u.ecc.k, a->param);
            if (ret != 0) return lib_fail("wc_ecc_import_private_key_ex", ret);
            ret = wc_ecc_set_rng(&s->u.ecc.k, &wolf_rng); /* blinding (ECC_TIMING_RESISTANT) */
            if (ret != 0) return lib_fail("wc_ecc_set_rng", ret);
        }
        return TB_OK;
    default: /* F_FFDHE */
        ret = wc_InitDhKey(&s->u.dh.key);
        if (ret != 0) return lib_fail("wc_InitDhKey", ret);
        s->live = 1;
        ret = wc_DhSetNamedKey(&s->u.dh.key, a->param);
        if (ret != 0) return lib_fail("wc_DhSetNamedKey", ret);
        if (need_priv) {
            memcpy(s->u.dh.priv, job->key.data, job->key.len);
            s->u.dh.priv_len = (word32)job->key.len;
        }
        s->u.dh.gen[0] = 2; /* the RFC 7919 generator */
        return TB_OK;
    }
}

static tb_status prep_rsa(state *s, const tb_job *job)
{
    word32 idx = 0;
    int ret = wc_InitRsaKey(&s->u.rsa, NULL);
    if (ret != 0) return lib_fail("wc_InitRsaKey", ret);
    s->live = 1;
    ret = wc_RsaPrivateKeyDecode(job->key.data, &idx, &s->u.rsa, (word32)job->key.len);
    if (ret != 0) {
        tb_set_error("wc_RsaPrivateKeyDecode: %s (%d)", wc_GetErrorString(ret), ret);
        return TB_BAD_INPUT;
    }
    size_t k = (size_t)wc_RsaEncryptSize(&s->u.rsa);
    if (k * 8 != (size_t)s->alg->size) {
        tb_set_error("RSA key has a %zu-bit modulus, expected %d", k * 8, s->alg->size);
        return TB_BAD_INPUT;
    }
    ret = wc_RsaSetRNG(&s->u.rsa, &wolf_rng); /* blinding (WC_RSA_BLINDING) */
    if (ret != 0) return lib_fail("wc_RsaSetRNG", ret);
    if (s->alg->fam == F_RSA_PKE) {
        if (s->op == OP_ENC && job->msg.len > k - 11) return bad_len("message", job->msg.len, "at most modulus - 11");
        if (s->op == OP_ENC && job->msg.len == 0) {
            tb_set_error("wc_RsaPublicEncrypt refuses an empty message");
            return TB_BAD_INPUT;
        }
        if (s->op == OP_DEC && job->msg.len != k) return bad_len("ciphertext", job->msg.len, "the modulus size");
    } else if (s->op == OP_VERIFY && job->sig.len != k) {
        return bad_len("signature", job->sig.len, "the modulus size");
    }
    return alloc_out(s, k);
}

static tb_status prep_ecdsa(state *s, const tb_job *job)
{
    const alg_info *a = s->alg;
    size_t n = (size_t)a->size;
    int ret = wc_ecc_init(&s->u.ecc.k);
    if (ret != 0) return lib_fail("wc_ecc_init", ret);
    s->live = 1;
    if (s->op == OP_VERIFY && job->pub.len != 0) {
        if (job->pub.len != 1 + 2 * n) return bad_len("public key", job->pub.len, "0x04 || X || Y");
        ret = wc_ecc_import_x963_ex(job->pub.data, (word32)job->pub.len, &s->u.ecc.k, a->param);
        if (ret != 0) return lib_fail("wc_ecc_import_x963_ex", ret);
    } else {
        if (job->key.len != n) return bad_len("private key", job->key.len, "the scalar size");
        ret = wc_ecc_import_private_key_ex(job->key.data, (word32)n, NULL, 0, &s->u.ecc.k, a->param);
        if (ret != 0) return lib_fail("wc_ecc_import_private_key_ex", ret);
        ret = wc_ecc_set_rng(&s->u.ecc.k, &wolf_rng);
        if (ret != 0) return lib_fail("wc_ecc_set_rng", ret);
        if (s->op == OP_VERIFY) {
            ret = wc_ecc_make_pub_ex(&s->u.ecc.k, NULL, &wolf_rng);
            if (ret != 0) return lib_fail("wc_ecc_make_pub_ex", ret);
        }
    }
    return alloc_out(s, 2 * n + 16);
}

static tb_status prep_ed25519(state *s, const tb_job *job)
{
    uint8_t pub[ED25519_PUB_KEY_SIZE];
    int ret = wc_ed25519_init(&s->u.ed);
    if (ret != 0) return lib_fail("wc_ed25519_init", ret);
    s->live = 1;
    if (s->op == OP_VERIFY && job->sig.len != ED25519_SIG_SIZE) return bad_len("signature", job->sig.len, "64");
    if (s->op == OP_VERIFY && job->pub.len != 0) {
        if (job->pub.len != ED25519_PUB_KEY_SIZE) return bad_len("public key", job->pub.len, "32");
        ret = wc_ed25519_import_public(job->pub.data, ED25519_PUB_KEY_SIZE, &s->u.ed);
        if (ret != 0) return lib_fail("wc_ed25519_import_public", ret);
    } else {
        if (job->key.len != ED25519_KEY_SIZE) return bad_len("private key (seed)", job->key.len, "32");
        ret = wc_ed25519_import_private_only(job->key.data, ED25519_KEY_SIZE, &s->u.ed);
        if (ret != 0) return lib_fail("wc_ed25519_import_private_only", ret);
        ret = wc_ed25519_make_public(&s->u.ed, pub, sizeof(pub));
        if (ret != 0) return lib_fail("wc_ed25519_make_public", ret);
        ret = wc_ed25519_import_private_key(job->key.data, ED25519_KEY_SIZE, pub, sizeof(pub), &s->u.ed);
        if (ret != 0) return lib_fail("wc_ed25519_import_private_key", ret);
    }
    return alloc_out(s, ED25519_SIG_SIZE);
}

static tb_status wolf_prepare(const tb_job *job, void **out)
{
    *out = NULL;
    const alg_info *a = find_alg(job->kind, job->alg);
    int op = find_op(job->kind, job->op);
    if (a == NULL || op < 0) {
        tb_set_error("wolfssl: no %s/%s", job->alg, job->op);
        return TB_UNSUPPORTED;
    }
    state *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->alg = a;
    s->op = (opcode)op;
    tb_status st = copy_inputs(s, job);
    if (st == TB_OK) {
        switch (a->fam) {
        case F_HASH:
        case F_HMAC: st = prep_hash_mac(s, job); break;
        case F_GCM:
        case F_CCM:
        case F_CHACHAPOLY: st = prep_aead(s, job); break;
        case F_X25519:
        case F_X448:
        case F_ECDH:
        case F_FFDHE: st = prep_kex(s, job); break;
        case F_RSA_PKCS1:
        case F_RSA_PSS:
        case F_RSA_PKE: st = prep_rsa(s, job); break;
        case F_ECDSA: st = prep_ecdsa(s, job); break;
        case F_ED25519: st = prep_ed25519(s, job); break;
        }
    }
    if (st != TB_OK) {
        wolf_release(s);
        return st;
    }
    *out = s;
    return TB_OK;
}

static tb_status wolf_result(void *p, tb_bytes *out)
{
    state *s = p;
    out->data = s->out;
    out->len = s->out_len;
    return TB_OK;
}

const tb_adapter tb_library = {
    .name = "wolfssl",
    .init = wolf_init,
    .version = wolf_version,
    .config = wolf_config,
    .supports = wolf_supports,
    .prepare = wolf_prepare,
    .run = wolf_run,
    .result = wolf_result,
    .release = wolf_release,
};
