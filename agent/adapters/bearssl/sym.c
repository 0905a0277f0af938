/* Hashes, HMAC, AEADs and the primitives the core composes (AES-CBC,
 * HMAC), with the implementations BearSSL's TLS engine selects by default
 * (tb_bearssl_impl). BearSSL has no SHA-3.
 *
 * BearSSL's AEAD and CBC calls work in place on the caller's buffer, as its
 * record layer uses them. A run starts from the job's input, so it first
 * copies the message into the output buffer (a memcpy of the message, part
 * of the timed operation; BearSSL's own record layer has no such copy). */
#include "bearssl_adapter.h"

#include <stdlib.h>
#include <string.h>

#define TAG_LEN 16

/* ---- hash and mac ---------------------------------------------------- */

static const struct {
    const char *name;
    const br_hash_class *vt;
} hashes[] = {
    {"md5", &br_md5_vtable},       {"sha1", &br_sha1_vtable},     {"sha224", &br_sha224_vtable},
    {"sha256", &br_sha256_vtable}, {"sha384", &br_sha384_vtable}, {"sha512", &br_sha512_vtable},
};

static const br_hash_class *hash_find(const char *alg)
{
    int i = TB_NAME_INDEX(hashes, alg);
    return i < 0 ? NULL : hashes[i].vt;
}

static const br_hash_class *hmac_find(const char *alg)
{
    return strncmp(alg, "hmac-", 5) == 0 ? hash_find(alg + 5) : NULL;
}

static size_t hash_size(const br_hash_class *vt)
{
    return (size_t)((vt->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK);
}

typedef struct {
    tb_family_state base;
    const br_hash_class *vt;
    br_hash_compat_context hash;
    br_hmac_key_context hkey;
    br_hmac_context hmac;
    uint8_t *msg;
    size_t msg_len;
    uint8_t digest[64];
} md_state;

static int hash_supports(const char *alg, const char *op)
{
    return strcmp(op, "hash") == 0 && hash_find(alg) != NULL;
}

static int mac_supports(const char *alg, const char *op)
{
    return strcmp(op, "mac") == 0 && hmac_find(alg) != NULL;
}

static tb_status md_prepare(const tb_job *job, tb_family_state **out, int hmac)
{
    md_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = hmac ? &tb_bearssl_mac : &tb_bearssl_hash;
    *out = &st->base;
    st->vt = hmac ? hmac_find(job->alg) : hash_find(job->alg);
    /* the key schedule (ipad/opad states) once, as the TLS record MAC does */
    if (hmac) br_hmac_key_init(&st->hkey, st->vt, job->key.data, job->key.len);
    st->msg = tb_dup(job->msg);
    if (st->msg == NULL) return TB_ERROR;
    st->msg_len = job->msg.len;
    st->base.out = st->digest;
    st->base.out_len = hash_size(st->vt);
    return TB_OK;
}

static tb_status hash_prepare(const tb_job *job, tb_family_state **out)
{
    return md_prepare(job, out, 0);
}

static tb_status mac_prepare(const tb_job *job, tb_family_state **out)
{
    return md_prepare(job, out, 1);
}

static tb_status hash_run(tb_family_state *base)
{
    md_state *st = (md_state *)base;
    st->vt->init(&st->hash.vtable);
    st->vt->update(&st->hash.vtable, st->msg, st->msg_len);
    st->vt->out(&st->hash.vtable, st->digest);
    return TB_OK;
}

static tb_status mac_run(tb_family_state *base)
{
    md_state *st = (md_state *)base;
    br_hmac_init(&st->hmac, &st->hkey, 0);
    br_hmac_update(&st->hmac, st->msg, st->msg_len);
    br_hmac_out(&st->hmac, st->digest);
    return TB_OK;
}

static void md_release(tb_family_state *base)
{
    md_state *st = (md_state *)base;
    free(st->msg);
    free(st);
}

const tb_family tb_bearssl_hash = {hash_supports, hash_prepare, hash_run, md_release};
const tb_family tb_bearssl_mac = {mac_supports, mac_prepare, mac_run, md_release};

/* ---- aead -------------------------------------------------------------- */

typedef enum { MODE_GCM, MODE_CCM, MODE_CHAPOL } aead_mode;

typedef struct {
    const char *name;
    aead_mode mode;
    size_t key_len, nonce_min, nonce_max;
} aead_alg;

static const aead_alg aeads[] = {
    {"aes-128-gcm", MODE_GCM, 16, 1, 64},
    {"aes-256-gcm", MODE_GCM, 32, 1, 64},
    {"aes-128-ccm", MODE_CCM, 16, 7, 13},
    {"chacha20-poly1305", MODE_CHAPOL, 32, 12, 12},
};

static const aead_alg *aead_find(const char *alg)
{
    int i = TB_NAME_INDEX(aeads, alg);
    return i < 0 ? NULL : &aeads[i];
}

static int aead_supports(const char *alg, const char *op)
{
    return aead_find(alg) != NULL && (strcmp(op, "encrypt") == 0 || strcmp(op, "decrypt") == 0);
}

typedef struct {
    tb_family_state base;
    const aead_alg *a;
    int decrypt;
    br_aes_gen_ctr_keys ctr;
    br_aes_gen_ctrcbc_keys ctrcbc;
    br_gcm_context gcm;
    br_ccm_context ccm;
    uint8_t key[32];
    uint8_t *nonce, *aad, *in;
    size_t nonce_len, aad_len, data_len; /* data_len: plaintext length */
    uint8_t *buf; /* result: ciphertext || tag, or plaintext */
} aead_state;

static tb_status aead_prepare(const tb_job *job, tb_family_state **out)
{
    if (job->rekey) return tb_refuse_rekey();
    aead_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &tb_bearssl_aead;
    *out = &st->base;
    const aead_alg *a = aead_find(job->alg);
    st->a = a;
    st->decrypt = strcmp(job->op, "decrypt") == 0;
    if (job->key.len != a->key_len) {
        tb_set_error("%s key must be %zu bytes, got %zu", a->name, a->key_len, job->key.len);
        return TB_BAD_INPUT;
    }
    if (job->nonce.len < a->nonce_min || job->nonce.len > a->nonce_max) {
        tb_set_error("%s nonce must be %zu..%zu bytes, got %zu", a->name, a->nonce_min, a->nonce_max,
                     job->nonce.len);
        return TB_BAD_INPUT;
    }
    if (st->decrypt && job->msg.len < TAG_LEN) {
        tb_set_error("%s ciphertext shorter than the %d-byte tag", a->name, TAG_LEN);
        return TB_BAD_INPUT;
    }
    st->data_len = job->msg.len - (st->decrypt ? TAG_LEN : 0);
    switch (a->mode) {
    case MODE_GCM:
        tb_bearssl_impl.aes_ctr->init(&st->ctr.vtable, job->key.data, job->key.len);
        br_gcm_init(&st->gcm, &st->ctr.vtable, tb_bearssl_impl.ghash);
        break;
    case MODE_CCM:
        tb_bearssl_impl.aes_ctrcbc->init(&st->ctrcbc.vtable, job->key.data, job->key.len);
        br_ccm_init(&st->ccm, &st->ctrcbc.vtable);
        break;
    case MODE_CHAPOL: memcpy(st->key, job->key.data, 32); break;
    }
    st->nonce = tb_dup(job->nonce);
    st->aad = tb_dup(job->aad);
    st->in = tb_dup(job->msg);
    st->buf = tb_zalloc(job->msg.len + TAG_LEN);
    if (st->nonce == NULL || st->aad == NULL || st->in == NULL || st->buf == NULL) return TB_ERROR;
    st->nonce_len = job->nonce.len;
    st->aad_len = job->aad.len;
    st->base.out = st->buf;
    st->base.out_len = st->decrypt ? st->data_len : st->data_len + TAG_LEN;
    return TB_OK;
}

static tb_status aead_run(tb_family_state *base)
{
    aead_state *st = (aead_state *)base;
    int enc = !st->decrypt;
    size_t n = st->data_len;
    uint8_t *data = st->buf;
    const uint8_t *in_tag = st->in + n;
    memcpy(data, st->in, n); /* in place, see the top of the file */
    uint32_t ok = 1;
    switch (st->a->mode) {
    case MODE_GCM:
        br_gcm_reset(&st->gcm, st->nonce, st->nonce_len);
        br_gcm_aad_inject(&st->gcm, st->aad, st->aad_len);
        br_gcm_flip(&st->gcm);
        br_gcm_run(&st->gcm, enc, data, n);
        if (enc) br_gcm_get_tag(&st->gcm, data + n);
        else ok = br_gcm_check_tag(&st->gcm, in_tag);
        break;
    case MODE_CCM:
        if (!br_ccm_reset(&st->ccm, st->nonce, st->nonce_len, st->aad_len, n, TAG_LEN))
            return tb_bearssl_fail("br_ccm_reset");
        br_ccm_aad_inject(&st->ccm, st->aad, st->aad_len);
        br_ccm_flip(&st->ccm);
        br_ccm_run(&st->ccm, enc, data, n);
        if (enc) br_ccm_get_tag(&st->ccm, data + n);
        else ok = br_ccm_check_tag(&st->ccm, in_tag);
        break;
    case MODE_CHAPOL: {
        uint8_t tag[TAG_LEN];
        tb_bearssl_impl.poly(st->key, st->nonce, data, n, st->aad, st->aad_len, enc ? data + n : tag,
                             tb_bearssl_impl.chacha, enc);
        /* BearSSL's record layer compares the tag itself: the same constant-time loop here */
        if (!enc) {
            uint8_t diff = 0;
            for (size_t i = 0; i < TAG_LEN; i++) diff |= (uint8_t)(tag[i] ^ in_tag[i]);
            ok = diff == 0;
        }
        break;
    }
    }
    if (!ok) {
        tb_set_error("%s: tag mismatch", st->a->name);
        return TB_REJECT;
    }
    return TB_OK;
}

static void aead_release(tb_family_state *base)
{
    aead_state *st = (aead_state *)base;
    free(st->nonce);
    free(st->aad);
    free(st->in);
    free(st->buf);
    free(st);
}

const tb_family tb_bearssl_aead = {aead_supports, aead_prepare, aead_run, aead_release};

/* ---- primitives the core composes (tb_prim_ops) ------------------------ */

static int prim_supports(const char *alg)
{
    return strcmp(alg, "aes-128-cbc") == 0 || hmac_find(alg) != NULL;
}

typedef struct {
    int decrypt;
    br_aes_gen_cbcenc_keys enc;
    br_aes_gen_cbcdec_keys dec;
} cbc_ctx;

static void prim_cipher_free(void *ctx)
{
    free(ctx);
}

static tb_status prim_cipher_new(const char *alg, tb_bytes key, int decrypt, void **out)
{
    if (strcmp(alg, "aes-128-cbc") != 0 || key.len != 16) {
        tb_set_error("%s with a %zu-byte key is not a primitive of this build", alg, key.len);
        return TB_UNSUPPORTED;
    }
    cbc_ctx *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->decrypt = decrypt;
    if (decrypt) tb_bearssl_impl.aes_cbcdec->init(&c->dec.vtable, key.data, key.len);
    else tb_bearssl_impl.aes_cbcenc->init(&c->enc.vtable, key.data, key.len);
    *out = c;
    return TB_OK;
}

/* BearSSL's CBC runs in place and advances the IV it is given: the IV is
 * copied (16 bytes) so the caller's stays unchanged, the data too when the
 * buffers differ. */
static tb_status prim_cipher_run(void *ctx, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
    cbc_ctx *c = ctx;
    uint8_t ivbuf[16];
    memcpy(ivbuf, iv, 16);
    if (in != out) memmove(out, in, len);
    if (c->decrypt) c->dec.vtable->run(&c->dec.vtable, ivbuf, out, len);
    else c->enc.vtable->run(&c->enc.vtable, ivbuf, out, len);
    return TB_OK;
}

static void prim_mac_free(void *ctx)
{
    free(ctx);
}

static tb_status prim_mac_new(const char *alg, tb_bytes key, void **out)
{
    const br_hash_class *vt = hmac_find(alg);
    if (vt == NULL) {
        tb_set_error("%s is not a primitive of this build", alg);
        return TB_UNSUPPORTED;
    }
    br_hmac_key_context *k = tb_zalloc(sizeof(*k));
    if (k == NULL) return TB_ERROR;
    br_hmac_key_init(k, vt, key.data, key.len);
    *out = k;
    return TB_OK;
}

static tb_status prim_mac_run(void *ctx, tb_bytes a, tb_bytes b, uint8_t *tag)
{
    br_hmac_context h;
    br_hmac_init(&h, ctx, 0);
    br_hmac_update(&h, a.data, a.len);
    br_hmac_update(&h, b.data, b.len);
    br_hmac_out(&h, tag);
    return TB_OK;
}

TB_DEFINE_PRIMS();
