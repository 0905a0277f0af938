/*
 * Composite operations, written once for every library from the adapter's
 * primitives (tb_prim_ops): the TLS 1.2 MAC-then-encrypt record of the
 * aes-128-cbc-hmac-sha1 / -sha256 suites.
 *
 *   encrypt  out = msg || HMAC(mac_key, aad || msg) || padding, then
 *            AES-CBC(IV) over out in place (one MAC call, one cipher call);
 *            padding is p+1 bytes of value p, the fewest reaching a block.
 *   decrypt  AES-CBC(IV) decrypt into out (one cipher call), then the
 *            padding and the MAC (one MAC call) are checked without an early
 *            exit on either, and either failure is TB_REJECT.
 *
 * The copy of msg into the record buffer is part of the timed operation for
 * every library alike (a TLS stack builds its record the same way).
 */
#include "tb/composite.h"
#include "tb/util.h"

#include <stdlib.h>
#include <string.h>

/* Adapters without primitives leave this empty: their composites are
 * unsupported. */
__attribute__((weak)) const tb_prim_ops tb_library_prims = {0};

#define CBC_BLOCK 16
#define TLS_MAC_HEADER_LEN 13
#define MAX_MAC_LEN 32
/* TLS padding is at most 256 bytes (p <= 255): the most a check reads. */
#define MAX_PAD 256

typedef struct {
    const char *name;
    const char *cipher, *mac;
    size_t key_len, mac_len;
} cbc_hmac_alg;

static const cbc_hmac_alg cbc_hmac_algs[] = {
    {"aes-128-cbc-hmac-sha1", "aes-128-cbc", "hmac-sha1", 16, 20},
    {"aes-128-cbc-hmac-sha256", "aes-128-cbc", "hmac-sha256", 16, 32},
};

static const cbc_hmac_alg *cbc_hmac_find(tb_kind kind, const char *alg)
{
    if (kind != TB_KIND_AEAD || alg == NULL) return NULL;
    for (size_t i = 0; i < sizeof(cbc_hmac_algs) / sizeof(cbc_hmac_algs[0]); i++) {
        if (strcmp(cbc_hmac_algs[i].name, alg) == 0) return &cbc_hmac_algs[i];
    }
    return NULL;
}

int tb_is_composite(tb_kind kind, const char *alg)
{
    return cbc_hmac_find(kind, alg) != NULL;
}

typedef struct {
    const tb_prim_ops *p;
    const cbc_hmac_alg *a;
    int decrypt;
    void *cipher, *mac;
    uint8_t iv[CBC_BLOCK];
    uint8_t aad[TLS_MAC_HEADER_LEN];
    uint8_t *in, *out;
    size_t in_len, rec_len, out_len; /* rec_len: the encrypted record's length */
} cbc_hmac;

static void cbc_hmac_release(void *state)
{
    cbc_hmac *s = state;
    if (s == NULL) return;
    if (s->cipher != NULL) s->p->cipher_free(s->cipher);
    if (s->mac != NULL) s->p->mac_free(s->mac);
    free(s->in);
    free(s->out);
    free(s);
}

static tb_status cbc_hmac_check(const cbc_hmac_alg *a, const tb_job *job, int decrypt)
{
    size_t n = job->msg.len;
    size_t min_record = (a->mac_len + CBC_BLOCK) / CBC_BLOCK * CBC_BLOCK; /* MAC and >= 1 padding byte */
    if (job->key.len != a->key_len + a->mac_len) {
        tb_set_error("%s key must be enc_key(%zu) || mac_key(%zu), %zu bytes, got %zu", a->name, a->key_len,
                     a->mac_len, a->key_len + a->mac_len, job->key.len);
        return TB_BAD_INPUT;
    }
    if (job->nonce.len != CBC_BLOCK) {
        tb_set_error("%s nonce (IV) must be %d bytes, got %zu", a->name, CBC_BLOCK, job->nonce.len);
        return TB_BAD_INPUT;
    }
    if (job->aad.len != TLS_MAC_HEADER_LEN) {
        tb_set_error("%s aad must be the %d-byte TLS MAC header, got %zu", a->name, TLS_MAC_HEADER_LEN, job->aad.len);
        return TB_BAD_INPUT;
    }
    if (decrypt && (n % CBC_BLOCK != 0 || n < min_record)) {
        tb_set_error("%s record must be a multiple of %d bytes and at least %zu, got %zu", a->name, CBC_BLOCK,
                     min_record, n);
        return TB_BAD_INPUT;
    }
    return TB_OK;
}

tb_status tb_composite_prepare(const tb_prim_ops *prims, const tb_job *job, void **state)
{
    const cbc_hmac_alg *a = cbc_hmac_find(job->kind, job->alg);
    int decrypt = strcmp(job->op, "decrypt") == 0;
    *state = NULL;
    if (a == NULL || prims->supports == NULL) {
        tb_set_error("%s is not composed by this build", job->alg);
        return TB_UNSUPPORTED;
    }
    tb_status st = cbc_hmac_check(a, job, decrypt);
    if (st != TB_OK) return st;
    cbc_hmac *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->p = prims;
    s->a = a;
    s->decrypt = decrypt;
    memcpy(s->iv, job->nonce.data, CBC_BLOCK);
    memcpy(s->aad, job->aad.data, TLS_MAC_HEADER_LEN);
    s->in_len = job->msg.len;
    s->rec_len = decrypt ? s->in_len : (s->in_len + a->mac_len) / CBC_BLOCK * CBC_BLOCK + CBC_BLOCK;
    s->in = tb_dup(job->msg);
    s->out = tb_zalloc(s->rec_len);
    if (s->in == NULL || s->out == NULL) st = TB_ERROR;
    if (st == TB_OK) st = prims->cipher_new(a->cipher, (tb_bytes){job->key.data, a->key_len}, decrypt, &s->cipher);
    if (st == TB_OK) st = prims->mac_new(a->mac, (tb_bytes){job->key.data + a->key_len, a->mac_len}, &s->mac);
    if (st != TB_OK) {
        cbc_hmac_release(s);
        return st;
    }
    *state = s;
    return TB_OK;
}

static tb_status cbc_hmac_prepare(const tb_job *job, void **state)
{
    if (job->rekey) return tb_refuse_rekey();
    return tb_composite_prepare(&tb_library_prims, job, state);
}

static tb_status cbc_hmac_seal(cbc_hmac *s)
{
    size_t n = s->in_len, m = s->a->mac_len;
    memcpy(s->out, s->in, n);
    tb_status st = s->p->mac_run(s->mac, (tb_bytes){s->aad, TLS_MAC_HEADER_LEN}, (tb_bytes){s->in, n}, s->out + n);
    if (st != TB_OK) return st;
    size_t pad = s->rec_len - n - m; /* p + 1, in 1..16 */
    memset(s->out + n + m, (int)(pad - 1), pad);
    st = s->p->cipher_run(s->cipher, s->iv, s->out, s->out, s->rec_len);
    if (st != TB_OK) return st;
    s->out_len = s->rec_len;
    return TB_OK;
}

/* All ones when a < b, else 0, without a branch (a, b are far below
 * SIZE_MAX / 2 here: the sign bit of a - b says it). */
static size_t lt_mask(size_t a, size_t b)
{
    return (size_t)0 - ((a - b) >> (sizeof(size_t) * 8 - 1));
}

static tb_status cbc_hmac_open(cbc_hmac *s)
{
    size_t n = s->rec_len, m = s->a->mac_len;
    uint8_t *rec = s->out;
    tb_status st = s->p->cipher_run(s->cipher, s->iv, s->in, rec, n);
    if (st != TB_OK) return st;
    /* Padding: every byte that could be padding is read (up to 256, as a
     * TLS stack's constant-time check does), each masked by whether it is. */
    size_t p = rec[n - 1];
    size_t room = n - m;                /* what precedes the MAC; >= 16 by prepare's check */
    size_t fits = lt_mask(p, room);     /* the p + 1 padding bytes fit before the MAC */
    size_t scan = room < MAX_PAD ? room : MAX_PAD;
    size_t diff = 0;
    for (size_t i = 1; i <= scan; i++) diff |= (rec[n - i] ^ p) & lt_mask(i - 1, p + 1); /* byte i from the end is padding */
    size_t good = fits & ~((size_t)0 - (size_t)(diff != 0));
    /* A bad padding still runs the MAC, over the record as if it had none. */
    size_t len = room - 1 - (p & good);
    uint8_t tag[MAX_MAC_LEN];
    st = s->p->mac_run(s->mac, (tb_bytes){s->aad, TLS_MAC_HEADER_LEN}, (tb_bytes){rec, len}, tag);
    if (st != TB_OK) return st;
    unsigned mac_diff = 0;
    for (size_t i = 0; i < m; i++) mac_diff |= tag[i] ^ rec[len + i];
    if (!good || mac_diff != 0) {
        tb_set_error("%s: padding or MAC check failed", s->a->name);
        return TB_REJECT;
    }
    s->out_len = len;
    return TB_OK;
}

static tb_status cbc_hmac_run(void *state)
{
    cbc_hmac *s = state;
    return s->decrypt ? cbc_hmac_open(s) : cbc_hmac_seal(s);
}

static tb_status cbc_hmac_result(void *state, tb_bytes *out)
{
    const cbc_hmac *s = state;
    out->data = s->out;
    out->len = s->out_len;
    return TB_OK;
}

static int cbc_hmac_supports(tb_kind kind, const char *alg, const char *op)
{
    const cbc_hmac_alg *a = cbc_hmac_find(kind, alg);
    const tb_prim_ops *p = &tb_library_prims;
    if (a == NULL || (strcmp(op, "encrypt") != 0 && strcmp(op, "decrypt") != 0)) return 0;
    return p->supports != NULL && p->supports(a->cipher) && p->supports(a->mac);
}

static const tb_adapter cbc_hmac_ops = {
    .name = "composite: aes-cbc + hmac (core/composite.c)",
    .supports = cbc_hmac_supports,
    .prepare = cbc_hmac_prepare,
    .run = cbc_hmac_run,
    .result = cbc_hmac_result,
    .release = cbc_hmac_release,
};

const tb_adapter *tb_job_adapter(tb_kind kind, const char *alg)
{
    return cbc_hmac_find(kind, alg) != NULL ? &cbc_hmac_ops : &tb_library;
}
