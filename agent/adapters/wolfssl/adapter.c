/* wolfSSL adapter: the tb_library entry points (init, version, config), the
 * algorithm table, the state every family fills and the table of the
 * families, one per kind (the dispatch is the core's, tb/family.h): sym.c
 * (hash, mac, aead, primitives), kex.c, pk.c (sig, pke), pq.c (kem, pqsig);
 * TLS in tls.c. The wolfCrypt primitives (wc_*), built with our
 * user_settings.h. */
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

WC_RNG tb_wolfssl_rng;

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
#if TB_WOLFSSL_CHACHAPOLY
    {TB_KIND_AEAD, "chacha20-poly1305", F_CHACHAPOLY, 0, 32, 0},
#endif
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
#ifdef TB_WOLFSSL_PQ
    {TB_KIND_KEM, "ml-kem-512", F_MLKEM, 0, 0, WC_ML_KEM_512},
    {TB_KIND_KEM, "ml-kem-768", F_MLKEM, 0, 0, WC_ML_KEM_768},
    {TB_KIND_KEM, "ml-kem-1024", F_MLKEM, 0, 0, WC_ML_KEM_1024},
    {TB_KIND_PQSIG, "ml-dsa-44", F_MLDSA, 0, 0, WC_ML_DSA_44},
    {TB_KIND_PQSIG, "ml-dsa-65", F_MLDSA, 0, 0, WC_ML_DSA_65},
    {TB_KIND_PQSIG, "ml-dsa-87", F_MLDSA, 0, 0, WC_ML_DSA_87},
#endif
#ifdef TB_WOLFSSL_SLHDSA
    {TB_KIND_PQSIG, "slh-dsa-sha2-128s", F_SLHDSA, 0, 16, SLHDSA_SHA2_128S},
    {TB_KIND_PQSIG, "slh-dsa-sha2-128f", F_SLHDSA, 0, 16, SLHDSA_SHA2_128F},
#endif
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
#ifdef TB_WOLFSSL_PQ
        {TB_KIND_KEM, "keygen", OP_KEYGEN},   {TB_KIND_KEM, "encaps", OP_ENCAPS},
        {TB_KIND_KEM, "decaps", OP_DECAPS},   {TB_KIND_PQSIG, "keygen", OP_KEYGEN},
        {TB_KIND_PQSIG, "sign", OP_SIGN},     {TB_KIND_PQSIG, "verify", OP_VERIFY},
#endif
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (ops[i].kind == kind && strcmp(ops[i].name, op) == 0) return (int)ops[i].op;
    }
    return -1;
}

/* ---- Adapter entry points ---- */

static tb_status adapter_init(void)
{
    int ret = wolfCrypt_Init();
    if (ret != 0) return lib_fail("wolfCrypt_Init", ret);
#if TB_WOLFSSL_HW
    ret = tb_wolfssl_hw_register();
    if (ret != 0) return lib_fail("wc_CryptoCb_RegisterDevice", ret);
#endif
    ret = wc_InitRng(&tb_wolfssl_rng);
    if (ret != 0) return lib_fail("wc_InitRng", ret);
    return TB_OK;
}

/* After the platform's deterministic stream restarted (tb_rng_restart): the
 * shared generator rebuilt in place (prepared keys keep pointing at it), so
 * every repeat draws the same numbers. A connection's own generator is seeded
 * from the same stream when the connection is made. */
static tb_status adapter_reseed(void)
{
    wc_FreeRng(&tb_wolfssl_rng);
    int ret = wc_InitRng(&tb_wolfssl_rng);
    return ret == 0 ? TB_OK : lib_fail("wc_InitRng", ret);
}

static const char *adapter_version(void)
{
    return wolfSSL_lib_version();
}

static const char *adapter_config(void)
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

int tb_wolfssl_supports(tb_kind kind, const char *alg, const char *op)
{
    return find_alg(kind, alg) != NULL && find_op(kind, op) >= 0;
}

void tb_wolfssl_free(state *s)
{
    free((void *)s->msg.data); /* the block of every input (copy_inputs) */
    free((void *)s->base.out);
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
    uint8_t *p = tb_zalloc(total); /* msg first: it starts on a cache line */
    if (p == NULL) return TB_ERROR;
    for (size_t i = 0; i < 5; i++) {
        if (src[i]->len) memcpy(p, src[i]->data, src[i]->len);
        dst[i]->data = p;
        dst[i]->len = src[i]->len;
        p += src[i]->len + TB_SLACK;
    }
    return TB_OK;
}

tb_status tb_wolfssl_alloc_out(state *s, size_t cap)
{
    s->base.out = tb_zalloc(cap);
    return s->base.out == NULL ? TB_ERROR : TB_OK;
}

tb_status tb_wolfssl_prepare(const tb_family *fam, const tb_job *job, tb_status (*fill)(state *s, const tb_job *job),
                             tb_family_state **out)
{
    state *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->base.fam = fam;
    s->alg = find_alg(job->kind, job->alg);
    s->op = (opcode)find_op(job->kind, job->op);
    *out = &s->base;
    tb_status st = copy_inputs(s, job);
    return st == TB_OK ? fill(s, job) : st;
}

/* ---- the contract ---- */

static const tb_family *const families[] = {
    TB_CLASSIC_FAMILIES(wolfssl),
#ifdef TB_WOLFSSL_PQ
    [TB_KIND_KEM] = &tb_wolfssl_kem, [TB_KIND_PQSIG] = &tb_wolfssl_pqsig,
#endif
};

TB_DEFINE_FAMILY_ADAPTER("wolfssl", families, NULL, " is not in this wolfSSL build");
