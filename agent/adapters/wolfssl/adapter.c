/* wolfSSL adapter: the wolfCrypt primitives (wc_*) behind the tlsbench
 * contract (include/tb/adapter.h). Built with our user_settings.h. */
#define _GNU_SOURCE
#include "tb/adapter.h"

#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/ssl.h>
#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/asn_public.h>
#include <wolfssl/wolfcrypt/chacha20_poly1305.h>
#include <wolfssl/wolfcrypt/cpuid.h>
#include <wolfssl/wolfcrypt/curve25519.h>
#include <wolfssl/wolfcrypt/curve448.h>
#include <wolfssl/wolfcrypt/dh.h>
#include <wolfssl/wolfcrypt/ecc.h>
#include <wolfssl/wolfcrypt/ed25519.h>
#include <wolfssl/wolfcrypt/error-crypt.h>
#include <wolfssl/wolfcrypt/hash.h>
#include <wolfssl/wolfcrypt/hmac.h>
#include <wolfssl/wolfcrypt/random.h>
#include <wolfssl/wolfcrypt/rsa.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* ---- Seeding: the one place the DRBG gets its entropy (user_settings.h
 * routes wolfSSL's wc_GenerateSeed here). Host: the OS; a bare-metal port
 * replaces this function with its deterministic test source. */
int tb_wolfssl_seed(unsigned char *output, unsigned int sz)
{
    size_t done = 0;
    while (done < sz) {
        ssize_t n = getrandom(output + done, sz - done, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

static WC_RNG rng;

/* ---- Algorithm table ---- */

typedef enum {
    F_HASH, F_HMAC, F_GCM, F_CCM, F_CHACHAPOLY, F_CBC_HMAC,
    F_X25519, F_X448, F_ECDH, F_FFDHE,
    F_RSA_PKCS1, F_RSA_PSS, F_ECDSA, F_ED25519, F_RSA_PKE
} family;

typedef enum { OP_HASH, OP_MAC, OP_ENC, OP_DEC, OP_PUBLIC, OP_KEYGEN, OP_DERIVE, OP_EXCHANGE, OP_SIGN, OP_VERIFY } opcode;

typedef struct {
    tb_kind kind;
    const char *name;
    family fam;
    int hash;   /* enum wc_HashType (hash, MAC, signature digest) */
    int size;   /* key bytes (AEAD), element/scalar bytes (kex, ECDSA), modulus bits (RSA) */
    int param;  /* ECC curve id, ffdhe group, MtE MAC key length */
} alg_info;

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
    {TB_KIND_AEAD, "aes-128-cbc-hmac-sha1", F_CBC_HMAC, WC_SHA, 16, WC_SHA_DIGEST_SIZE},
    {TB_KIND_AEAD, "aes-128-cbc-hmac-sha256", F_CBC_HMAC, WC_SHA256, 16, WC_SHA256_DIGEST_SIZE},
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

/* ---- Job state ---- */

typedef struct {
    const alg_info *alg;
    opcode op;
    tb_bytes msg, aad, nonce, sig, peer; /* copies owned by inputs */
    uint8_t *inputs;
    uint8_t *out;
    size_t out_len;
    uint8_t key[64];      /* ChaCha20-Poly1305 key; clamped X25519/X448 scalar */
    uint8_t digest[WC_MAX_DIGEST_SIZE];
    int live;             /* the union member below needs its free function */
    union {
        Hmac hmac;
        Aes aes;
        struct {
            Aes aes;
            Hmac hmac;
            int aes_live, hmac_live;
        } mte;
        struct {
            curve25519_key k, peer;
        } x25519;
        struct {
            curve448_key k, peer;
        } x448;
        struct {
            ecc_key k, peer;
            int peer_live;
        } ecc;
        struct {
            DhKey key;
            uint8_t priv[512], gen[1];
            word32 priv_len;
        } dh;
        RsaKey rsa;
        ed25519_key ed;
    } u;
} state;

static tb_status lib_fail(const char *fn, int ret)
{
    tb_set_error("%s: %s (%d)", fn, wc_GetErrorString(ret), ret);
    return TB_ERROR;
}

/* A verification or decryption that failed on the data, not the library. */
static tb_status check_fail(const char *fn, int ret)
{
    if (ret == MEMORY_E || ret == BAD_FUNC_ARG || ret == MISSING_RNG_E || ret == RNG_FAILURE_E) {
        return lib_fail(fn, ret);
    }
    tb_set_error("%s: %s (%d)", fn, wc_GetErrorString(ret), ret);
    return TB_REJECT;
}

static tb_status bad_len(const char *what, size_t got, const char *want)
{
    tb_set_error("%s is %zu bytes, expected %s", what, got, want);
    return TB_BAD_INPUT;
}

static int hash_size(int type)
{
    return wc_HashGetDigestSize((enum wc_HashType)type);
}

/* Left-pads a big-endian number of len bytes in buf to width bytes. */
static void left_pad(uint8_t *buf, word32 len, word32 width)
{
    if (len < width) {
        memmove(buf + (width - len), buf, len);
        memset(buf, 0, width - len);
    }
}

/* ---- Adapter entry points ---- */

static tb_status wolf_init(void)
{
    int ret = wolfCrypt_Init();
    if (ret != 0) return lib_fail("wolfCrypt_Init", ret);
    ret = wc_InitRng(&rng);
    if (ret != 0) return lib_fail("wc_InitRng", ret);
    return TB_OK;
}

static const char *wolf_version(void)
{
    return wolfSSL_lib_version();
}

static const char *wolf_config(void)
{
    static char buf[1024];
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
             "%s; config header user_settings.h (WOLFSSL_USER_SETTINGS)"
             "; maths sp_int (WOLFSSL_SP_MATH_ALL, SP_INT_BITS %d) + fixed-size SP RSA/DH 2048/3072 and P-256/P-384 in %s"
             "; AES %s"
#ifdef USE_INTEL_SPEEDUP
             "; AVX1/AVX2 asm for SHA-2/SHA-3/ChaCha20/Poly1305/X25519 (USE_INTEL_SPEEDUP)"
#endif
             "; RNG Hash_DRBG seeded by getrandom()"
             "; ffdhe keygen private exponent: 29 bytes (232 bits) for 2048, 34 bytes (272 bits) for 3072"
             " (wolfSSL's table, no q); ffdhe 'public' = wc_DhAgree(priv, g)%s",
             TB_LIBRARY_CONFIG, SP_INT_BITS,
#ifdef WOLFSSL_SP_X86_64_ASM
             "x86-64 asm",
#else
             "C",
#endif
#ifdef WOLFSSL_AESNI
             "AES-NI + PCLMUL asm",
#else
             "C with GCM 4-bit tables",
#endif
             cpu);
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
        case F_CBC_HMAC:
            if (s->u.mte.aes_live) wc_AesFree(&s->u.mte.aes);
            if (s->u.mte.hmac_live) wc_HmacFree(&s->u.mte.hmac);
            break;
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
            if (s->u.ecc.peer_live) wc_ecc_free(&s->u.ecc.peer);
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
 * every copied input gets INPUT_SLACK zero bytes after it. */
#define INPUT_SLACK 16

static tb_status copy_inputs(state *s, const tb_job *job)
{
    const tb_bytes *src[] = {&job->msg, &job->aad, &job->nonce, &job->sig, &job->peer};
    tb_bytes *dst[] = {&s->msg, &s->aad, &s->nonce, &s->sig, &s->peer};
    size_t total = 0;
    for (size_t i = 0; i < 5; i++) total += src[i]->len + INPUT_SLACK;
    s->inputs = calloc(1, total);
    if (s->inputs == NULL) {
        tb_set_error("out of memory");
        return TB_ERROR;
    }
    uint8_t *p = s->inputs;
    for (size_t i = 0; i < 5; i++) {
        if (src[i]->len) memcpy(p, src[i]->data, src[i]->len);
        dst[i]->data = p;
        dst[i]->len = src[i]->len;
        p += src[i]->len + INPUT_SLACK;
    }
    return TB_OK;
}

static tb_status alloc_out(state *s, size_t cap)
{
    s->out = malloc(cap ? cap : 1);
    if (s->out == NULL) {
        tb_set_error("out of memory");
        return TB_ERROR;
    }
    return TB_OK;
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
    size_t mac_len = a->fam == F_CBC_HMAC ? (size_t)a->param : 0;
    size_t n = job->nonce.len, len = job->msg.len;
    int ret;

    if (job->key.len != (size_t)a->size + mac_len) {
        return bad_len("key", job->key.len, a->fam == F_CBC_HMAC ? "enc_key(16) || mac_key" : "the cipher's key size");
    }
    if (a->fam == F_GCM && n == 0) return bad_len("nonce", n, "at least 1");
    if (a->fam == F_CCM && (n < 7 || n > 13)) return bad_len("nonce", n, "7 to 13");
    if (a->fam == F_CHACHAPOLY && n != CHACHA20_POLY1305_AEAD_IV_SIZE) return bad_len("nonce", n, "12");
    if (a->fam == F_CBC_HMAC && n != AES_BLOCK_SIZE) return bad_len("nonce (IV)", n, "16");
    if (s->op == OP_DEC && a->fam == F_CBC_HMAC && (len % AES_BLOCK_SIZE != 0 || len < (mac_len / 16 + 1) * 16)) {
        return bad_len("ciphertext", len, "a multiple of 16 holding the MAC and padding");
    }
    if (s->op == OP_DEC && a->fam != F_CBC_HMAC && len < 16) return bad_len("ciphertext", len, "at least the 16-byte tag");
    if (alloc_out(s, len + mac_len + 2 * AES_BLOCK_SIZE) != TB_OK) return TB_ERROR;

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
    case F_CHACHAPOLY:
        /* wolfCrypt's ChaCha20-Poly1305 is one-shot: the key schedule is a
         * copy of the key, the Poly1305 key is per nonce anyway. */
        memcpy(s->key, job->key.data, CHACHA20_POLY1305_AEAD_KEYSIZE);
        return TB_OK;
    default: /* F_CBC_HMAC */
        s->live = 1;
        ret = wc_AesInit(&s->u.mte.aes, NULL, INVALID_DEVID);
        if (ret != 0) return lib_fail("wc_AesInit", ret);
        s->u.mte.aes_live = 1;
        ret = wc_AesSetKey(&s->u.mte.aes, job->key.data, AES_BLOCK_SIZE, job->nonce.data,
                           s->op == OP_ENC ? AES_ENCRYPTION : AES_DECRYPTION);
        if (ret != 0) return lib_fail("wc_AesSetKey", ret);
        ret = wc_HmacInit(&s->u.mte.hmac, NULL, INVALID_DEVID);
        if (ret != 0) return lib_fail("wc_HmacInit", ret);
        s->u.mte.hmac_live = 1;
        ret = wc_HmacSetKey(&s->u.mte.hmac, a->hash, job->key.data + AES_BLOCK_SIZE, (word32)mac_len);
        return ret == 0 ? TB_OK : lib_fail("wc_HmacSetKey", ret);
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
        if (need_peer) {
            ret = wc_curve25519_import_public_ex(job->peer.data, (word32)n, &s->u.x25519.peer, EC25519_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve25519_import_public_ex", ret);
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
        if (need_peer) {
            ret = wc_curve448_import_public_ex(job->peer.data, (word32)n, &s->u.x448.peer, EC448_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve448_import_public_ex", ret);
        }
        return TB_OK;
    case F_ECDH:
        ret = wc_ecc_init(&s->u.ecc.k);
        if (ret != 0) return lib_fail("wc_ecc_init", ret);
        s->live = 1;
        if (need_peer) {
            ret = wc_ecc_init(&s->u.ecc.peer);
            if (ret != 0) return lib_fail("wc_ecc_init", ret);
            s->u.ecc.peer_live = 1;
            ret = wc_ecc_import_x963_ex(job->peer.data, (word32)pub_len, &s->u.ecc.peer, a->param);
            if (ret != 0) return lib_fail("wc_ecc_import_x963_ex", ret);
        }
        if (need_priv) {
            ret = wc_ecc_import_private_key_ex(job->key.data, (word32)n, NULL, 0, &s->u.ecc.k, a->param);
            if (ret != 0) return lib_fail("wc_ecc_import_private_key_ex", ret);
            ret = wc_ecc_set_rng(&s->u.ecc.k, &rng); /* blinding (ECC_TIMING_RESISTANT) */
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
    ret = wc_RsaSetRNG(&s->u.rsa, &rng); /* blinding (WC_RSA_BLINDING) */
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
        ret = wc_ecc_set_rng(&s->u.ecc.k, &rng);
        if (ret != 0) return lib_fail("wc_ecc_set_rng", ret);
        if (s->op == OP_VERIFY) {
            ret = wc_ecc_make_pub_ex(&s->u.ecc.k, NULL, &rng);
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
    state *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        tb_set_error("out of memory");
        return TB_ERROR;
    }
    s->alg = a;
    s->op = (opcode)op;
    tb_status st = copy_inputs(s, job);
    if (st == TB_OK) {
        switch (a->fam) {
        case F_HASH:
        case F_HMAC: st = prep_hash_mac(s, job); break;
        case F_GCM:
        case F_CCM:
        case F_CHACHAPOLY:
        case F_CBC_HMAC: st = prep_aead(s, job); break;
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

/* ---- run: the measured operation ---- */

/* TLS 1.2 MAC-then-encrypt: AES-CBC(IV, msg || HMAC(aad || msg) || pad). */
static tb_status run_mte(state *s)
{
    Aes *aes = &s->u.mte.aes;
    Hmac *h = &s->u.mte.hmac;
    size_t m = (size_t)s->alg->param, len = s->msg.len;
    uint8_t tail[2 * AES_BLOCK_SIZE + WC_MAX_DIGEST_SIZE], mac[WC_MAX_DIGEST_SIZE];
    int ret = wc_AesSetIV(aes, s->nonce.data);
    if (ret != 0) return lib_fail("wc_AesSetIV", ret);

    if (s->op == OP_ENC) {
        size_t full = len - len % AES_BLOCK_SIZE, rest = len - full;
        if ((ret = wc_HmacUpdate(h, s->aad.data, (word32)s->aad.len)) != 0 ||
            (ret = wc_HmacUpdate(h, s->msg.data, (word32)len)) != 0 || (ret = wc_HmacFinal(h, tail + rest)) != 0) {
            return lib_fail("wc_Hmac", ret);
        }
        memcpy(tail, s->msg.data + full, rest);
        size_t t = rest + m, pad = AES_BLOCK_SIZE - 1 - t % AES_BLOCK_SIZE;
        memset(tail + t, (int)pad, pad + 1);
        t += pad + 1;
        if (full != 0 && (ret = wc_AesCbcEncrypt(aes, s->out, s->msg.data, (word32)full)) != 0) {
            return lib_fail("wc_AesCbcEncrypt", ret);
        }
        ret = wc_AesCbcEncrypt(aes, s->out + full, tail, (word32)t);
        if (ret != 0) return lib_fail("wc_AesCbcEncrypt", ret);
        s->out_len = full + t;
        return TB_OK;
    }

    ret = wc_AesCbcDecrypt(aes, s->out, s->msg.data, (word32)len);
    if (ret != 0) return lib_fail("wc_AesCbcDecrypt", ret);
    size_t pad = s->out[len - 1];
    if (pad + 1 + m > len) {
        tb_set_error("bad TLS padding");
        return TB_REJECT;
    }
    uint8_t diff = 0;
    for (size_t i = 0; i <= pad; i++) diff |= (uint8_t)(s->out[len - 1 - i] ^ pad);
    size_t pt = len - pad - 1 - m;
    if ((ret = wc_HmacUpdate(h, s->aad.data, (word32)s->aad.len)) != 0 ||
        (ret = wc_HmacUpdate(h, s->out, (word32)pt)) != 0 || (ret = wc_HmacFinal(h, mac)) != 0) {
        return lib_fail("wc_Hmac", ret);
    }
    for (size_t i = 0; i < m; i++) diff |= (uint8_t)(mac[i] ^ s->out[pt + i]);
    if (diff != 0) {
        tb_set_error("bad TLS padding or record MAC");
        return TB_REJECT;
    }
    s->out_len = pt;
    return TB_OK;
}

static tb_status run_aead(state *s)
{
    const uint8_t *in = s->msg.data, *n = s->nonce.data, *aad = s->aad.data;
    word32 nl = (word32)s->nonce.len, al = (word32)s->aad.len;
    int ret;
    if (s->alg->fam == F_CBC_HMAC) return run_mte(s);
    if (s->op == OP_ENC) {
        word32 len = (word32)s->msg.len;
        uint8_t *tag = s->out + len;
        switch (s->alg->fam) {
        case F_GCM:
            ret = wc_AesGcmEncrypt(&s->u.aes, s->out, in, len, n, nl, tag, 16, aad, al);
            if (ret != 0) return lib_fail("wc_AesGcmEncrypt", ret);
            break;
        case F_CCM:
            ret = wc_AesCcmEncrypt(&s->u.aes, s->out, in, len, n, nl, tag, 16, aad, al);
            if (ret != 0) return lib_fail("wc_AesCcmEncrypt", ret);
            break;
        default:
            ret = wc_ChaCha20Poly1305_Encrypt(s->key, n, aad, al, in, len, s->out, tag);
            if (ret != 0) return lib_fail("wc_ChaCha20Poly1305_Encrypt", ret);
            break;
        }
        s->out_len = len + 16;
        return TB_OK;
    }
    word32 len = (word32)s->msg.len - 16;
    const uint8_t *tag = in + len;
    switch (s->alg->fam) {
    case F_GCM:
        ret = wc_AesGcmDecrypt(&s->u.aes, s->out, in, len, n, nl, tag, 16, aad, al);
        if (ret == AES_GCM_AUTH_E) return check_fail("wc_AesGcmDecrypt", ret);
        if (ret != 0) return lib_fail("wc_AesGcmDecrypt", ret);
        break;
    case F_CCM:
        ret = wc_AesCcmDecrypt(&s->u.aes, s->out, in, len, n, nl, tag, 16, aad, al);
        if (ret == AES_CCM_AUTH_E) return check_fail("wc_AesCcmDecrypt", ret);
        if (ret != 0) return lib_fail("wc_AesCcmDecrypt", ret);
        break;
    default:
        ret = wc_ChaCha20Poly1305_Decrypt(s->key, n, aad, al, in, len, tag, s->out);
        if (ret == MAC_CMP_FAILED_E) return check_fail("wc_ChaCha20Poly1305_Decrypt", ret);
        if (ret != 0) return lib_fail("wc_ChaCha20Poly1305_Decrypt", ret);
        break;
    }
    s->out_len = len;
    return TB_OK;
}

static tb_status run_x25519(state *s)
{
    curve25519_key *k = &s->u.x25519.k;
    word32 len = CURVE25519_KEYSIZE;
    int ret;
    if (s->op == OP_PUBLIC) {
        ret = wc_curve25519_make_pub(CURVE25519_KEYSIZE, s->out, CURVE25519_KEYSIZE, s->key);
        if (ret != 0) return lib_fail("wc_curve25519_make_pub", ret);
        s->out_len = CURVE25519_KEYSIZE;
        return TB_OK;
    }
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        ret = wc_curve25519_make_key(&rng, CURVE25519_KEYSIZE, k);
        if (ret != 0) return lib_fail("wc_curve25519_make_key", ret);
    }
    if (s->op == OP_KEYGEN) {
        ret = wc_curve25519_export_public_ex(k, s->out, &len, EC25519_LITTLE_ENDIAN);
        if (ret != 0) return lib_fail("wc_curve25519_export_public_ex", ret);
    } else {
        ret = wc_curve25519_shared_secret_ex(k, &s->u.x25519.peer, s->out, &len, EC25519_LITTLE_ENDIAN);
        if (ret != 0) return lib_fail("wc_curve25519_shared_secret_ex", ret);
    }
    s->out_len = len;
    return TB_OK;
}

static tb_status run_x448(state *s)
{
    curve448_key *k = &s->u.x448.k;
    word32 len = CURVE448_KEY_SIZE;
    int ret;
    if (s->op == OP_PUBLIC) {
        ret = wc_curve448_make_pub(CURVE448_PUB_KEY_SIZE, s->out, CURVE448_KEY_SIZE, s->key);
        if (ret != 0) return lib_fail("wc_curve448_make_pub", ret);
        s->out_len = CURVE448_PUB_KEY_SIZE;
        return TB_OK;
    }
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        ret = wc_curve448_make_key(&rng, CURVE448_KEY_SIZE, k);
        if (ret != 0) return lib_fail("wc_curve448_make_key", ret);
    }
    if (s->op == OP_KEYGEN) {
        ret = wc_curve448_export_public_ex(k, s->out, &len, EC448_LITTLE_ENDIAN);
        if (ret != 0) return lib_fail("wc_curve448_export_public_ex", ret);
    } else {
        ret = wc_curve448_shared_secret_ex(k, &s->u.x448.peer, s->out, &len, EC448_LITTLE_ENDIAN);
        if (ret != 0) return lib_fail("wc_curve448_shared_secret_ex", ret);
    }
    s->out_len = len;
    return TB_OK;
}

static tb_status run_ecdh(state *s)
{
    ecc_key *k = &s->u.ecc.k;
    word32 n = (word32)s->alg->size, len = 1 + 2 * n;
    int ret;
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        /* A fresh key object per key pair, as a TLS handshake uses. */
        wc_ecc_free(k);
        if ((ret = wc_ecc_init(k)) != 0) return lib_fail("wc_ecc_init", ret);
        if ((ret = wc_ecc_make_key_ex(&rng, (int)n, k, s->alg->param)) != 0) {
            return lib_fail("wc_ecc_make_key_ex", ret);
        }
        if ((ret = wc_ecc_set_rng(k, &rng)) != 0) return lib_fail("wc_ecc_set_rng", ret);
    } else if (s->op == OP_PUBLIC) {
        if ((ret = wc_ecc_make_pub_ex(k, NULL, &rng)) != 0) return lib_fail("wc_ecc_make_pub_ex", ret);
    }
    if (s->op == OP_KEYGEN || s->op == OP_PUBLIC) {
        if ((ret = wc_ecc_export_x963(k, s->out, &len)) != 0) return lib_fail("wc_ecc_export_x963", ret);
    } else {
        len = n;
        ret = wc_ecc_shared_secret(k, &s->u.ecc.peer, s->out, &len);
        if (ret != 0) return lib_fail("wc_ecc_shared_secret", ret);
    }
    s->out_len = len;
    return TB_OK;
}

static tb_status run_ffdhe(state *s)
{
    DhKey *key = &s->u.dh.key;
    word32 n = (word32)s->alg->size, len = n;
    const uint8_t *peer = s->peer.data;
    word32 peer_len = (word32)s->peer.len;
    int ret;
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        s->u.dh.priv_len = sizeof(s->u.dh.priv);
        ret = wc_DhGenerateKeyPair(key, &rng, s->u.dh.priv, &s->u.dh.priv_len, s->out, &len);
        if (ret != 0) return lib_fail("wc_DhGenerateKeyPair", ret);
        if (s->op == OP_KEYGEN) {
            left_pad(s->out, len, n);
            s->out_len = n;
            return TB_OK;
        }
        len = n;
    } else if (s->op == OP_PUBLIC) {
        /* wolfCrypt has no public-from-private call for DH: g^x mod p is
         * the agreement of x with the generator as the peer value. */
        peer = s->u.dh.gen;
        peer_len = 1;
    }
    ret = wc_DhAgree(key, s->out, &len, s->u.dh.priv, s->u.dh.priv_len, peer, peer_len);
    if (ret != 0) return lib_fail("wc_DhAgree", ret);
    left_pad(s->out, len, n);
    s->out_len = n;
    return TB_OK;
}

static tb_status run_sig(state *s)
{
    const alg_info *a = s->alg;
    word32 hlen = 0, k = (word32)a->size / 8;
    int ret, res = 0;
    if (a->fam != F_ED25519) {
        hlen = (word32)hash_size(a->hash);
        ret = wc_Hash((enum wc_HashType)a->hash, s->msg.data, (word32)s->msg.len, s->digest, hlen);
        if (ret != 0) return lib_fail("wc_Hash", ret);
    }
    s->out_len = 0;
    switch (a->fam) {
    case F_RSA_PKCS1: {
        uint8_t enc[128]; /* DigestInfo: ASN.1 prefix + digest */
        word32 enc_len = wc_EncodeSignature(enc, s->digest, hlen, wc_GetCTC_HashOID(a->hash));
        if (enc_len == 0) return lib_fail("wc_EncodeSignature", BAD_FUNC_ARG);
        if (s->op == OP_SIGN) {
            ret = wc_RsaSSL_Sign(enc, enc_len, s->out, k, &s->u.rsa, &rng);
            if (ret < 0) return lib_fail("wc_RsaSSL_Sign", ret);
            s->out_len = (size_t)ret;
            return TB_OK;
        }
        ret = wc_RsaSSL_Verify(s->sig.data, k, s->out, k, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaSSL_Verify", ret);
        if ((word32)ret != enc_len || memcmp(s->out, enc, enc_len) != 0) {
            tb_set_error("RSA PKCS#1 v1.5 signature does not match the message");
            return TB_REJECT;
        }
        return TB_OK;
    }
    case F_RSA_PSS:
        /* MGF1 with the same hash, salt length = hash length. */
        if (s->op == OP_SIGN) {
            ret = wc_RsaPSS_Sign_ex(s->digest, hlen, s->out, k, (enum wc_HashType)a->hash, WC_MGF1SHA256, (int)hlen,
                                    &s->u.rsa, &rng);
            if (ret < 0) return lib_fail("wc_RsaPSS_Sign_ex", ret);
            s->out_len = (size_t)ret;
            return TB_OK;
        }
        ret = wc_RsaPSS_Verify_ex((byte *)s->sig.data, k, s->out, k, (enum wc_HashType)a->hash, WC_MGF1SHA256,
                                  (int)hlen, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaPSS_Verify_ex", ret);
        ret = wc_RsaPSS_CheckPadding_ex(s->digest, hlen, s->out, (word32)ret, (enum wc_HashType)a->hash, (int)hlen,
                                        a->size);
        return ret == 0 ? TB_OK : check_fail("wc_RsaPSS_CheckPadding_ex", ret);
    case F_ECDSA:
        if (s->op == OP_SIGN) {
            word32 len = 2 * (word32)a->size + 16;
            ret = wc_ecc_sign_hash(s->digest, hlen, s->out, &len, &rng, &s->u.ecc.k);
            if (ret != 0) return lib_fail("wc_ecc_sign_hash", ret);
            s->out_len = len;
            return TB_OK;
        }
        ret = wc_ecc_verify_hash(s->sig.data, (word32)s->sig.len, s->digest, hlen, &res, &s->u.ecc.k);
        if (ret != 0) return check_fail("wc_ecc_verify_hash", ret);
        break;
    default: /* F_ED25519 */
        if (s->op == OP_SIGN) {
            word32 len = ED25519_SIG_SIZE;
            ret = wc_ed25519_sign_msg(s->msg.data, (word32)s->msg.len, s->out, &len, &s->u.ed);
            if (ret != 0) return lib_fail("wc_ed25519_sign_msg", ret);
            s->out_len = len;
            return TB_OK;
        }
        ret = wc_ed25519_verify_msg(s->sig.data, ED25519_SIG_SIZE, s->msg.data, (word32)s->msg.len, &res, &s->u.ed);
        if (ret != 0) return check_fail("wc_ed25519_verify_msg", ret);
        break;
    }
    if (res != 1) {
        tb_set_error("signature does not verify");
        return TB_REJECT;
    }
    return TB_OK;
}

static tb_status run_pke(state *s)
{
    word32 k = (word32)s->alg->size / 8;
    int ret;
    if (s->op == OP_ENC) {
        ret = wc_RsaPublicEncrypt(s->msg.data, (word32)s->msg.len, s->out, k, &s->u.rsa, &rng);
        if (ret < 0) return lib_fail("wc_RsaPublicEncrypt", ret);
    } else {
        ret = wc_RsaPrivateDecrypt(s->msg.data, k, s->out, k, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaPrivateDecrypt", ret);
    }
    s->out_len = (size_t)ret;
    return TB_OK;
}

static tb_status wolf_run(void *p)
{
    state *s = p;
    int ret;
    switch (s->alg->fam) {
    case F_HASH:
        ret = wc_Hash((enum wc_HashType)s->alg->hash, s->msg.data, (word32)s->msg.len, s->out, WC_MAX_DIGEST_SIZE);
        if (ret != 0) return lib_fail("wc_Hash", ret);
        s->out_len = (size_t)hash_size(s->alg->hash);
        return TB_OK;
    case F_HMAC:
        if ((ret = wc_HmacUpdate(&s->u.hmac, s->msg.data, (word32)s->msg.len)) != 0) {
            return lib_fail("wc_HmacUpdate", ret);
        }
        if ((ret = wc_HmacFinal(&s->u.hmac, s->out)) != 0) return lib_fail("wc_HmacFinal", ret);
        s->out_len = WC_SHA256_DIGEST_SIZE;
        return TB_OK;
    case F_GCM:
    case F_CCM:
    case F_CHACHAPOLY:
    case F_CBC_HMAC: return run_aead(s);
    case F_X25519: return run_x25519(s);
    case F_X448: return run_x448(s);
    case F_ECDH: return run_ecdh(s);
    case F_FFDHE: return run_ffdhe(s);
    case F_RSA_PKCS1:
    case F_RSA_PSS:
    case F_ECDSA:
    case F_ED25519: return run_sig(s);
    case F_RSA_PKE: return run_pke(s);
    }
    return TB_ERROR;
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
