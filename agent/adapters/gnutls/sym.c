/* GnuTLS adapter: hashes, HMAC, the AEADs and the primitives the core
 * composes (AES-CBC, HMAC), all through GnuTLS's public crypto API
 * (gnutls/crypto.h). */
#include "gnutls_adapter.h"

#include <gnutls/crypto.h>
#include <stdlib.h>
#include <string.h>

/* ---- algorithm tables ---------------------------------------------------- */

static const struct {
    const char *name;
    gnutls_digest_algorithm_t dig;
} hashes[] = {
    {"md5", GNUTLS_DIG_MD5},           {"sha1", GNUTLS_DIG_SHA1},         {"sha224", GNUTLS_DIG_SHA224},
    {"sha256", GNUTLS_DIG_SHA256},     {"sha384", GNUTLS_DIG_SHA384},     {"sha512", GNUTLS_DIG_SHA512},
    {"sha3-256", GNUTLS_DIG_SHA3_256}, {"sha3-384", GNUTLS_DIG_SHA3_384}, {"sha3-512", GNUTLS_DIG_SHA3_512},
};

static const struct {
    const char *name;
    gnutls_cipher_algorithm_t cipher;
    size_t key_len;
} aeads[] = {
    {"aes-128-gcm", GNUTLS_CIPHER_AES_128_GCM, 16},
    {"aes-256-gcm", GNUTLS_CIPHER_AES_256_GCM, 32},
    {"aes-128-ccm", GNUTLS_CIPHER_AES_128_CCM, 16},
    {"chacha20-poly1305", GNUTLS_CIPHER_CHACHA20_POLY1305, 32},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define TAG_LEN 16
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
    tb_family_state base;
    gnutls_hash_hd_t hash;
    gnutls_hmac_hd_t hmac;
    uint8_t *msg;
    size_t msg_len;
    uint8_t digest[64];
} digest_job;

static tb_status run_hash(tb_family_state *j)
{
    digest_job *s = (digest_job *)j;
    int r = gnutls_hash(s->hash, s->msg, s->msg_len);
    if (r < 0) return tb_gnutls_fail("gnutls_hash", r);
    gnutls_hash_output(s->hash, s->digest);
    return TB_OK;
}

static tb_status run_hmac(tb_family_state *j)
{
    digest_job *s = (digest_job *)j;
    int r = gnutls_hmac(s->hmac, s->msg, s->msg_len);
    if (r < 0) return tb_gnutls_fail("gnutls_hmac", r);
    gnutls_hmac_output(s->hmac, s->digest);
    return TB_OK;
}

static void release_digest(tb_family_state *j)
{
    digest_job *s = (digest_job *)j;
    if (s->hash) gnutls_hash_deinit(s->hash, NULL);
    if (s->hmac) gnutls_hmac_deinit(s->hmac, NULL);
    free(s->msg);
    free(s);
}

static tb_status prepare_digest(const tb_job *job, tb_family_state **out)
{
    digest_job *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->base.fam = job->kind == TB_KIND_HASH ? &tb_gnutls_hash : &tb_gnutls_mac;
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
        s->base.out_len = gnutls_hash_get_len(d);
        r = gnutls_hash_init(&s->hash, d);
        if (r < 0) {
            release_digest(&s->base);
            return tb_gnutls_fail("gnutls_hash_init", r);
        }
    } else {
        s->base.out_len = gnutls_hmac_get_len(GNUTLS_MAC_SHA256);
        r = gnutls_hmac_init(&s->hmac, GNUTLS_MAC_SHA256, job->key.len ? (const void *)job->key.data : "",
                             job->key.len);
        if (r < 0) {
            release_digest(&s->base);
            return tb_gnutls_fail("gnutls_hmac_init", r);
        }
    }
    *out = &s->base;
    return TB_OK;
}

/* ---- AEADs ----------------------------------------------------------- */

typedef struct {
    tb_family_state base;
    int decrypt;
    gnutls_aead_cipher_hd_t aead;
    uint8_t nonce[16];
    size_t nonce_len;
    uint8_t *aad, *msg, *buf;
    size_t aad_len, msg_len, buf_len;
} aead_job;

static tb_status run_aead(tb_family_state *j)
{
    aead_job *s = (aead_job *)j;
    size_t n = s->buf_len;
    int r;
    if (!s->decrypt) {
        r = gnutls_aead_cipher_encrypt(s->aead, s->nonce, s->nonce_len, s->aad, s->aad_len, TAG_LEN, s->msg,
                                       s->msg_len, s->buf, &n);
        if (r < 0) return tb_gnutls_fail("gnutls_aead_cipher_encrypt", r);
    } else {
        r = gnutls_aead_cipher_decrypt(s->aead, s->nonce, s->nonce_len, s->aad, s->aad_len, TAG_LEN, s->msg,
                                       s->msg_len, s->buf, &n);
        if (r == GNUTLS_E_DECRYPTION_FAILED) {
            tb_set_error("gnutls_aead_cipher_decrypt: %s", gnutls_strerror(r));
            return TB_REJECT;
        }
        if (r < 0) return tb_gnutls_fail("gnutls_aead_cipher_decrypt", r);
    }
    s->base.out_len = n;
    return TB_OK;
}

static void release_aead(tb_family_state *j)
{
    aead_job *s = (aead_job *)j;
    if (s->aead) gnutls_aead_cipher_deinit(s->aead);
    free(s->aad);
    free(s->msg);
    free(s->buf);
    free(s);
}

static tb_status check_aead_input(const tb_job *job, int a, int decrypt)
{
    size_t want_key = aeads[a].key_len;
    if (job->key.len != want_key) {
        tb_set_error("%s needs a %zu-byte key, got %zu", job->alg, want_key, job->key.len);
        return TB_BAD_INPUT;
    }
    size_t nl = job->nonce.len;
    if (aeads[a].cipher == GNUTLS_CIPHER_AES_128_CCM ? (nl < 7 || nl > 13) : nl != 12) {
        tb_set_error("%s: nonce length %zu not supported", job->alg, nl);
        return TB_BAD_INPUT;
    }
    if (decrypt && job->msg.len < TAG_LEN) return tb_gnutls_bad("ciphertext shorter than the 16-byte tag");
    return TB_OK;
}

static tb_status prepare_aead(const tb_job *job, tb_family_state **out)
{
    if (job->rekey) return tb_refuse_rekey();
    int a = find_aead(job->alg);
    int decrypt = strcmp(job->op, "decrypt") == 0;
    tb_status st = check_aead_input(job, a, decrypt);
    if (st != TB_OK) return st;

    aead_job *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->base.fam = &tb_gnutls_aead;
    s->decrypt = decrypt;
    memcpy(s->nonce, job->nonce.data, job->nonce.len);
    s->nonce_len = job->nonce.len;
    s->aad_len = job->aad.len;
    s->msg_len = job->msg.len;
    s->aad = tb_dup(job->aad);
    s->msg = tb_dup(job->msg);
    s->buf_len = decrypt ? s->msg_len - TAG_LEN : s->msg_len + TAG_LEN;
    s->buf = tb_zalloc(s->buf_len);
    if (s->aad == NULL || s->msg == NULL || s->buf == NULL) {
        release_aead(&s->base);
        return TB_ERROR;
    }
    s->base.out = s->buf;

    gnutls_datum_t key = {(unsigned char *)job->key.data, (unsigned)aeads[a].key_len};
    int r = gnutls_aead_cipher_init(&s->aead, aeads[a].cipher, &key);
    if (r < 0) {
        release_aead(&s->base);
        return tb_gnutls_fail("gnutls_aead_cipher_init", r);
    }
    *out = &s->base;
    return TB_OK;
}


/* The probes allocate, and the core asks supports again inside prepare's
 * heap window (tb_family_prepare): each algorithm is probed once, when the
 * core first asks (before the job), and the answer kept (1 yes, -1 no). */
static signed char hash_probed[NELEM(hashes)], hmac_probed, aead_probed[NELEM(aeads)];

static int keep(signed char *probed, int yes)
{
    *probed = yes ? 1 : -1;
    return yes;
}

static int hash_supports(const char *alg, const char *op)
{
    int h = find_hash(alg);
    if (!tb_gnutls_listed(TB_KIND_HASH, alg, op) || h < 0) return 0;
    return hash_probed[h] ? hash_probed[h] > 0 : keep(&hash_probed[h], have_digest(hashes[h].dig));
}

static int mac_supports(const char *alg, const char *op)
{
    if (!tb_gnutls_listed(TB_KIND_MAC, alg, op) || strcmp(alg, "hmac-sha256") != 0) return 0;
    return hmac_probed ? hmac_probed > 0 : keep(&hmac_probed, have_mac(GNUTLS_MAC_SHA256));
}

static int aead_supports(const char *alg, const char *op)
{
    int a = find_aead(alg);
    if (!tb_gnutls_listed(TB_KIND_AEAD, alg, op) || a < 0) return 0;
    return aead_probed[a] ? aead_probed[a] > 0 : keep(&aead_probed[a], have_cipher(aeads[a].cipher, aeads[a].key_len, 1));
}

const tb_family tb_gnutls_hash = {hash_supports, prepare_digest, run_hash, release_digest};
const tb_family tb_gnutls_mac = {mac_supports, prepare_digest, run_hmac, release_digest};
const tb_family tb_gnutls_aead = {aead_supports, prepare_aead, run_aead, release_aead};

/* ---- primitives the core composes (tb_prim_ops) ------------------------ */

static gnutls_mac_algorithm_t prim_mac_alg(const char *alg)
{
    if (strcmp(alg, "hmac-sha1") == 0) return GNUTLS_MAC_SHA1;
    if (strcmp(alg, "hmac-sha256") == 0) return GNUTLS_MAC_SHA256;
    return GNUTLS_MAC_UNKNOWN;
}

static int prim_supports(const char *alg)
{
    if (strcmp(alg, "aes-128-cbc") == 0) return have_cipher(GNUTLS_CIPHER_AES_128_CBC, 16, 0);
    gnutls_mac_algorithm_t m = prim_mac_alg(alg);
    return m != GNUTLS_MAC_UNKNOWN && have_mac(m);
}

typedef struct {
    gnutls_cipher_hd_t h;
    int decrypt;
} cipher_t;

static void prim_cipher_free(void *ctx)
{
    cipher_t *c = ctx;
    if (c == NULL) return;
    if (c->h) gnutls_cipher_deinit(c->h);
    free(c);
}

static tb_status prim_cipher_new(const char *alg, tb_bytes key, int decrypt, void **out)
{
    static const uint8_t zero_iv[CBC_BLOCK];
    if (strcmp(alg, "aes-128-cbc") != 0 || key.len != 16) return tb_gnutls_bad("aes-128-cbc needs a 16-byte key");
    cipher_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->decrypt = decrypt;
    gnutls_datum_t k = {(unsigned char *)key.data, 16}, iv = {(unsigned char *)zero_iv, CBC_BLOCK};
    int r = gnutls_cipher_init(&c->h, GNUTLS_CIPHER_AES_128_CBC, &k, &iv);
    if (r < 0) {
        c->h = NULL;
        prim_cipher_free(c);
        return tb_gnutls_fail("gnutls_cipher_init", r);
    }
    *out = c;
    return TB_OK;
}

static tb_status prim_cipher_run(void *ctx, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    cipher_t *c = ctx;
    int r;
    gnutls_cipher_set_iv(c->h, (void *)iv, CBC_BLOCK);
    if (c->decrypt) {
        r = in == out ? gnutls_cipher_decrypt(c->h, out, len) : gnutls_cipher_decrypt2(c->h, in, len, out, len);
    } else {
        r = in == out ? gnutls_cipher_encrypt(c->h, out, len) : gnutls_cipher_encrypt2(c->h, in, len, out, len);
    }
    return r < 0 ? tb_gnutls_fail(c->decrypt ? "gnutls_cipher_decrypt" : "gnutls_cipher_encrypt", r) : TB_OK;
}

static void prim_mac_free(void *ctx)
{
    if (ctx != NULL) gnutls_hmac_deinit(ctx, NULL);
}

static tb_status prim_mac_new(const char *alg, tb_bytes key, void **out)
{
    gnutls_mac_algorithm_t m = prim_mac_alg(alg);
    if (m == GNUTLS_MAC_UNKNOWN) return tb_gnutls_bad("the HMACs here are hmac-sha1 and hmac-sha256");
    gnutls_hmac_hd_t h;
    int r = gnutls_hmac_init(&h, m, key.data, key.len);
    if (r < 0) return tb_gnutls_fail("gnutls_hmac_init", r);
    *out = h;
    return TB_OK;
}

/* gnutls_hmac_output() resets the handle to its keyed state. */
static tb_status prim_mac_run(void *ctx, tb_bytes a, tb_bytes b, uint8_t *tag)
{
    int r;
    if ((r = gnutls_hmac(ctx, a.data, a.len)) < 0 || (r = gnutls_hmac(ctx, b.data, b.len)) < 0) {
        return tb_gnutls_fail("gnutls_hmac", r);
    }
    gnutls_hmac_output(ctx, tag);
    return TB_OK;
}

TB_DEFINE_PRIMS();
