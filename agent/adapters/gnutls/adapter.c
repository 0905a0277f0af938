/* GnuTLS adapter: entry points, hashes, HMAC and the AEADs (including the
 * TLS 1.2 CBC MAC-then-encrypt shape), all through GnuTLS's public crypto
 * API (gnutls/crypto.h). Signatures and RSA encryption are in pk.c, key
 * agreement in kex.c. */
#include "gt.h"
#include "tb/catalog.h"

#include <gnutls/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ---------------------------------------------------- */

tb_status gt_fail(const char *fn, int err)
{
    tb_set_error("%s: %s (%d)", fn, gnutls_strerror(err), err);
    return TB_ERROR;
}

tb_status gt_bad(const char *msg)
{
    tb_set_error("%s", msg);
    return TB_BAD_INPUT;
}

static int rng_failed;

void gt_nettle_rnd(void *ctx, size_t len, uint8_t *dst)
{
    (void)ctx;
    if (gnutls_rnd(GNUTLS_RND_RANDOM, dst, len) < 0) rng_failed = 1;
}

int gt_rng_failed(void)
{
    int f = rng_failed;
    rng_failed = 0;
    return f;
}

/* The one place randomness is set up. On the host GnuTLS seeds its own
 * DRBG from the OS (getrandom) and reseeds it itself; here we only check
 * that it answers. A bare-metal port replaces this with a deterministic
 * test generator registered through gnutls_crypto_rnd_register(). */
static tb_status seed_rng(void)
{
    uint8_t probe[16];
    int r = gnutls_rnd(GNUTLS_RND_RANDOM, probe, sizeof(probe));
    if (r < 0) return gt_fail("gnutls_rnd", r);
    return TB_OK;
}

/* ---- algorithm tables ---------------------------------------------------- */

static const struct {
    const char *name;
    gnutls_digest_algorithm_t dig;
} hashes[] = {
    {"md5", GNUTLS_DIG_MD5},           {"sha1", GNUTLS_DIG_SHA1},         {"sha224", GNUTLS_DIG_SHA224},
    {"sha256", GNUTLS_DIG_SHA256},     {"sha384", GNUTLS_DIG_SHA384},     {"sha512", GNUTLS_DIG_SHA512},
    {"sha3-256", GNUTLS_DIG_SHA3_256}, {"sha3-384", GNUTLS_DIG_SHA3_384}, {"sha3-512", GNUTLS_DIG_SHA3_512},
};

enum { AEAD_ONESHOT, AEAD_MTE };

static const struct {
    const char *name;
    int shape;
    gnutls_cipher_algorithm_t cipher;
    size_t key_len;
    gnutls_mac_algorithm_t mac; /* MtE only */
    size_t mac_key_len;         /* MtE only */
} aeads[] = {
    {"aes-128-gcm", AEAD_ONESHOT, GNUTLS_CIPHER_AES_128_GCM, 16, GNUTLS_MAC_UNKNOWN, 0},
    {"aes-256-gcm", AEAD_ONESHOT, GNUTLS_CIPHER_AES_256_GCM, 32, GNUTLS_MAC_UNKNOWN, 0},
    {"aes-128-ccm", AEAD_ONESHOT, GNUTLS_CIPHER_AES_128_CCM, 16, GNUTLS_MAC_UNKNOWN, 0},
    {"chacha20-poly1305", AEAD_ONESHOT, GNUTLS_CIPHER_CHACHA20_POLY1305, 32, GNUTLS_MAC_UNKNOWN, 0},
    {"aes-128-cbc-hmac-sha1", AEAD_MTE, GNUTLS_CIPHER_AES_128_CBC, 16, GNUTLS_MAC_SHA1, 20},
    {"aes-128-cbc-hmac-sha256", AEAD_MTE, GNUTLS_CIPHER_AES_128_CBC, 16, GNUTLS_MAC_SHA256, 32},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define TAG_LEN 16
#define TLS_HEADER_LEN 13
#define CBC_BLOCK 16

/* Probes rather than gnutls_*_list(): those lists only hold what TLS
 * negotiates (SHA-3 is missing from gnutls_digest_list() but hashes fine). */
static int have_digest(gnutls_digest_algorithm_t d)
{
    gnutls_hash_hd_t h;
    if (gnutls_hash_init(&h, d) < 0) return 0;
    gnutls_hash_deinit(h, NULL);
    return 1;
}

static int have_mac(gnutls_mac_algorithm_t m)
{
    gnutls_hmac_hd_t h;
    if (gnutls_hmac_init(&h, m, "k", 1) < 0) return 0;
    gnutls_hmac_deinit(h, NULL);
    return 1;
}

static int have_cipher(gnutls_cipher_algorithm_t c, size_t key_len, int aead)
{
    static const uint8_t zero[32];
    gnutls_datum_t key = {(unsigned char *)zero, (unsigned)key_len};
    gnutls_datum_t iv = {(unsigned char *)zero, 16};
    if (aead) {
        gnutls_aead_cipher_hd_t h;
        if (gnutls_aead_cipher_init(&h, c, &key) < 0) return 0;
        gnutls_aead_cipher_deinit(h);
    } else {
        gnutls_cipher_hd_t h;
        if (gnutls_cipher_init(&h, c, &key, &iv) < 0) return 0;
        gnutls_cipher_deinit(h);
    }
    return 1;
}

static int find_hash(const char *alg)
{
    for (size_t i = 0; i < NELEM(hashes); i++) {
        if (strcmp(hashes[i].name, alg) == 0) return (int)i;
    }
    return -1;
}

static int find_aead(const char *alg)
{
    for (size_t i = 0; i < NELEM(aeads); i++) {
        if (strcmp(aeads[i].name, alg) == 0) return (int)i;
    }
    return -1;
}

/* ---- hash and HMAC: one handle per job, *_output() resets it ----------- */

typedef struct {
    gt_job base;
    gnutls_hash_hd_t hash;
    gnutls_hmac_hd_t hmac;
    uint8_t *msg;
    size_t msg_len;
    uint8_t digest[64];
} digest_job;

static tb_status run_hash(gt_job *j)
{
    digest_job *s = (digest_job *)j;
    int r = gnutls_hash(s->hash, s->msg, s->msg_len);
    if (r < 0) return gt_fail("gnutls_hash", r);
    gnutls_hash_output(s->hash, s->digest);
    return TB_OK;
}

static tb_status run_hmac(gt_job *j)
{
    digest_job *s = (digest_job *)j;
    int r = gnutls_hmac(s->hmac, s->msg, s->msg_len);
    if (r < 0) return gt_fail("gnutls_hmac", r);
    gnutls_hmac_output(s->hmac, s->digest);
    return TB_OK;
}

static void release_digest(gt_job *j)
{
    digest_job *s = (digest_job *)j;
    if (s->hash) gnutls_hash_deinit(s->hash, NULL);
    if (s->hmac) gnutls_hmac_deinit(s->hmac, NULL);
    free(s->msg);
    free(s);
}

static tb_status prepare_digest(const tb_job *job, gt_job **out)
{
    digest_job *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->base.release = release_digest;
    s->base.out = s->digest;
    s->msg_len = job->msg.len;
    s->msg = tb_dup(job->msg);
    if (s->msg == NULL) {
        release_digest(&s->base);
        return TB_ERROR;
    }
    int r;
    if (job->kind == TB_KIND_HASH) {
        gnutls_digest_algorithm_t d = hashes[find_hash(job->alg)].dig;
        s->base.run = run_hash;
        s->base.out_len = gnutls_hash_get_len(d);
        r = gnutls_hash_init(&s->hash, d);
        if (r < 0) {
            release_digest(&s->base);
            return gt_fail("gnutls_hash_init", r);
        }
    } else {
        s->base.run = run_hmac;
        s->base.out_len = gnutls_hmac_get_len(GNUTLS_MAC_SHA256);
        r = gnutls_hmac_init(&s->hmac, GNUTLS_MAC_SHA256, job->key.len ? (const void *)job->key.data : "",
                             job->key.len);
        if (r < 0) {
            release_digest(&s->base);
            return gt_fail("gnutls_hmac_init", r);
        }
    }
    *out = &s->base;
    return TB_OK;
}

/* ---- AEADs ----------------------------------------------------------- */

typedef struct {
    gt_job base;
    int decrypt;
    gnutls_aead_cipher_hd_t aead;
    gnutls_cipher_hd_t cbc; /* MtE */
    gnutls_hmac_hd_t hmac;  /* MtE */
    size_t mac_len;         /* MtE */
    uint8_t nonce[16];
    size_t nonce_len;
    uint8_t *aad, *msg, *buf;
    size_t aad_len, msg_len, buf_len;
} aead_job;

static tb_status run_aead(gt_job *j)
{
    aead_job *s = (aead_job *)j;
    size_t n = s->buf_len;
    int r;
    if (!s->decrypt) {
        r = gnutls_aead_cipher_encrypt(s->aead, s->nonce, s->nonce_len, s->aad, s->aad_len, TAG_LEN, s->msg,
                                       s->msg_len, s->buf, &n);
        if (r < 0) return gt_fail("gnutls_aead_cipher_encrypt", r);
    } else {
        r = gnutls_aead_cipher_decrypt(s->aead, s->nonce, s->nonce_len, s->aad, s->aad_len, TAG_LEN, s->msg,
                                       s->msg_len, s->buf, &n);
        if (r == GNUTLS_E_DECRYPTION_FAILED) {
            tb_set_error("gnutls_aead_cipher_decrypt: %s", gnutls_strerror(r));
            return TB_REJECT;
        }
        if (r < 0) return gt_fail("gnutls_aead_cipher_decrypt", r);
    }
    s->base.out_len = n;
    return TB_OK;
}

/* AES-CBC(IV, msg || HMAC(aad || msg) || padding). The whole blocks of msg
 * are encrypted straight from the input; only the last partial block, the
 * MAC and the padding are assembled in the output buffer first. */
static tb_status run_mte_encrypt(gt_job *j)
{
    aead_job *s = (aead_job *)j;
    size_t whole = s->msg_len - s->msg_len % CBC_BLOCK;
    size_t tail = s->buf_len - whole;
    int r;

    gnutls_cipher_set_iv(s->cbc, s->nonce, CBC_BLOCK);
    if ((r = gnutls_hmac(s->hmac, s->aad, s->aad_len)) < 0 || (r = gnutls_hmac(s->hmac, s->msg, s->msg_len)) < 0) {
        return gt_fail("gnutls_hmac", r);
    }
    uint8_t *t = s->buf + whole;
    size_t part = s->msg_len - whole;
    memcpy(t, s->msg + whole, part);
    gnutls_hmac_output(s->hmac, t + part);
    size_t pad = tail - part - s->mac_len;
    memset(t + part + s->mac_len, (int)(pad - 1), pad);
    if (whole && (r = gnutls_cipher_encrypt2(s->cbc, s->msg, whole, s->buf, whole)) < 0) {
        return gt_fail("gnutls_cipher_encrypt2", r);
    }
    if ((r = gnutls_cipher_encrypt(s->cbc, t, tail)) < 0) return gt_fail("gnutls_cipher_encrypt", r);
    s->base.out_len = s->buf_len;
    return TB_OK;
}

static tb_status run_mte_decrypt(gt_job *j)
{
    aead_job *s = (aead_job *)j;
    size_t n = s->msg_len;
    int r;

    gnutls_cipher_set_iv(s->cbc, s->nonce, CBC_BLOCK);
    if ((r = gnutls_cipher_decrypt2(s->cbc, s->msg, n, s->buf, n)) < 0) return gt_fail("gnutls_cipher_decrypt2", r);

    size_t pad = (size_t)s->buf[n - 1] + 1;
    unsigned bad = pad + s->mac_len > n;
    for (size_t i = 0; !bad && i < pad; i++) bad |= s->buf[n - 1 - i] != s->buf[n - 1];
    if (bad) {
        tb_set_error("aes-cbc: bad TLS padding");
        return TB_REJECT;
    }
    size_t plain = n - pad - s->mac_len;
    uint8_t mac[64];
    if ((r = gnutls_hmac(s->hmac, s->aad, s->aad_len)) < 0 || (r = gnutls_hmac(s->hmac, s->buf, plain)) < 0) {
        return gt_fail("gnutls_hmac", r);
    }
    gnutls_hmac_output(s->hmac, mac);
    unsigned diff = 0;
    for (size_t i = 0; i < s->mac_len; i++) diff |= mac[i] ^ s->buf[plain + i];
    if (diff) {
        tb_set_error("hmac: record MAC does not verify");
        return TB_REJECT;
    }
    s->base.out_len = plain;
    return TB_OK;
}

static void release_aead(gt_job *j)
{
    aead_job *s = (aead_job *)j;
    if (s->aead) gnutls_aead_cipher_deinit(s->aead);
    if (s->cbc) gnutls_cipher_deinit(s->cbc);
    if (s->hmac) gnutls_hmac_deinit(s->hmac, NULL);
    free(s->aad);
    free(s->msg);
    free(s->buf);
    free(s);
}

static tb_status check_aead_input(const tb_job *job, int a, int decrypt)
{
    size_t want_key = aeads[a].key_len + aeads[a].mac_key_len;
    if (job->key.len != want_key) {
        tb_set_error("%s needs a %zu-byte key, got %zu", job->alg, want_key, job->key.len);
        return TB_BAD_INPUT;
    }
    size_t nl = job->nonce.len;
    if (aeads[a].shape == AEAD_MTE) {
        if (nl != CBC_BLOCK) return gt_bad("CBC needs a 16-byte IV");
        if (job->aad.len != TLS_HEADER_LEN) return gt_bad("MAC-then-encrypt needs the 13-byte TLS MAC header as aad");
        size_t min = (aeads[a].mac_key_len + CBC_BLOCK) / CBC_BLOCK * CBC_BLOCK;
        if (decrypt && (job->msg.len % CBC_BLOCK || job->msg.len < min)) {
            return gt_bad("CBC record length is not a multiple of 16 or too short for MAC and padding");
        }
        return TB_OK;
    }
    if (aeads[a].cipher == GNUTLS_CIPHER_AES_128_CCM ? (nl < 7 || nl > 13) : nl != 12) {
        tb_set_error("%s: nonce length %zu not supported", job->alg, nl);
        return TB_BAD_INPUT;
    }
    if (decrypt && job->msg.len < TAG_LEN) return gt_bad("ciphertext shorter than the 16-byte tag");
    return TB_OK;
}

static tb_status prepare_aead(const tb_job *job, gt_job **out)
{
    int a = find_aead(job->alg);
    int decrypt = strcmp(job->op, "decrypt") == 0;
    tb_status st = check_aead_input(job, a, decrypt);
    if (st != TB_OK) return st;

    aead_job *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->base.release = release_aead;
    s->decrypt = decrypt;
    memcpy(s->nonce, job->nonce.data, job->nonce.len);
    s->nonce_len = job->nonce.len;
    s->aad_len = job->aad.len;
    s->msg_len = job->msg.len;
    s->aad = tb_dup(job->aad);
    s->msg = tb_dup(job->msg);
    int mte = aeads[a].shape == AEAD_MTE;
    s->mac_len = aeads[a].mac_key_len; /* HMAC-SHA1/-SHA256: tag length == key length here */
    if (mte) {
        s->buf_len = decrypt ? s->msg_len : (s->msg_len + s->mac_len) / CBC_BLOCK * CBC_BLOCK + CBC_BLOCK;
    } else {
        s->buf_len = decrypt ? s->msg_len - TAG_LEN : s->msg_len + TAG_LEN;
    }
    s->buf = tb_zalloc(s->buf_len);
    if (s->aad == NULL || s->msg == NULL || s->buf == NULL) {
        release_aead(&s->base);
        return TB_ERROR;
    }
    s->base.out = s->buf;

    gnutls_datum_t key = {(unsigned char *)job->key.data, (unsigned)aeads[a].key_len};
    int r;
    if (!mte) {
        s->base.run = run_aead;
        r = gnutls_aead_cipher_init(&s->aead, aeads[a].cipher, &key);
        if (r < 0) {
            release_aead(&s->base);
            return gt_fail("gnutls_aead_cipher_init", r);
        }
    } else {
        s->base.run = decrypt ? run_mte_decrypt : run_mte_encrypt;
        gnutls_datum_t iv = {s->nonce, CBC_BLOCK};
        r = gnutls_cipher_init(&s->cbc, aeads[a].cipher, &key, &iv);
        if (r < 0) {
            release_aead(&s->base);
            return gt_fail("gnutls_cipher_init", r);
        }
        r = gnutls_hmac_init(&s->hmac, aeads[a].mac, job->key.data + aeads[a].key_len, aeads[a].mac_key_len);
        if (r < 0) {
            release_aead(&s->base);
            return gt_fail("gnutls_hmac_init", r);
        }
    }
    *out = &s->base;
    return TB_OK;
}

/* ---- entry points ------------------------------------------------------ */

static char config_text[1024];

static tb_status gt_init(void)
{
    int r = gnutls_global_init();
    if (r < 0) return gt_fail("gnutls_global_init", r);
    tb_status s = seed_rng();
    if (s != TB_OK) return s;
    const char *cpuid = getenv("GNUTLS_CPUID_OVERRIDE");
    snprintf(config_text, sizeof(config_text),
             "%s; built against GnuTLS headers %s; crypto backend nettle/hogweed + GMP (system shared libs): %s; "
             "hardware acceleration as compiled into the distribution library (lib/accelerated x86: "
             "AES-NI/PCLMUL/SSSE3/SHA-NI, chosen by CPUID at run time%s%s); FIPS-140 mode %s; RNG: GnuTLS DRBG "
             "seeded from the OS",
             TB_LIBRARY_CONFIG, GNUTLS_VERSION, gt_kex_config(), cpuid ? ", GNUTLS_CPUID_OVERRIDE=" : "",
             cpuid ? cpuid : "", gnutls_fips140_mode_enabled() ? "on" : "off");
    return TB_OK;
}

static const char *gt_version(void)
{
    return gnutls_check_version(NULL);
}

static const char *gt_config(void)
{
    return config_text;
}

static int gt_supports(tb_kind kind, const char *alg, const char *op)
{
    const tb_catalog_entry *e = tb_catalog_find(kind, alg);
    if (e == NULL || !tb_catalog_has_op(e, op)) return 0;
    switch (kind) {
    case TB_KIND_HASH: {
        int h = find_hash(alg);
        return h >= 0 && have_digest(hashes[h].dig);
    }
    case TB_KIND_MAC:
        return strcmp(alg, "hmac-sha256") == 0 && have_mac(GNUTLS_MAC_SHA256);
    case TB_KIND_AEAD: {
        int a = find_aead(alg);
        if (a < 0) return 0;
        if (aeads[a].shape == AEAD_MTE) return have_cipher(aeads[a].cipher, aeads[a].key_len, 0) && have_mac(aeads[a].mac);
        return have_cipher(aeads[a].cipher, aeads[a].key_len, 1);
    }
    case TB_KIND_KEX:
        return gt_kex_supports(alg);
    case TB_KIND_SIG:
    case TB_KIND_PKE:
        return gt_pk_supports(kind, alg);
    default:
        return 0;
    }
}

static tb_status gt_prepare(const tb_job *job, void **state)
{
    gt_job *j = NULL;
    tb_status s;
    *state = NULL;
    switch (job->kind) {
    case TB_KIND_HASH:
    case TB_KIND_MAC:
        s = prepare_digest(job, &j);
        break;
    case TB_KIND_AEAD:
        s = prepare_aead(job, &j);
        break;
    case TB_KIND_KEX:
        s = gt_kex_prepare(job, &j);
        break;
    case TB_KIND_SIG:
    case TB_KIND_PKE:
        s = gt_pk_prepare(job, &j);
        break;
    default:
        return TB_UNSUPPORTED;
    }
    if (s == TB_OK) *state = j;
    return s;
}

static tb_status gt_run(void *state)
{
    gt_job *j = state;
    return j->run(j);
}

static tb_status gt_result(void *state, tb_bytes *out)
{
    gt_job *j = state;
    out->data = j->out;
    out->len = j->out_len;
    return TB_OK;
}

static void gt_release(void *state)
{
    gt_job *j = state;
    if (j != NULL) j->release(j);
}

const tb_adapter tb_library = {
    "gnutls", gt_init, gt_version, gt_config, gt_supports, gt_prepare, gt_run, gt_result, gt_release,
};
