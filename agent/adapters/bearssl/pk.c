/* Signatures and RSA decryption with the implementations BearSSL's
 * defaults select (br_*_get_default: RSA i62 on 64-bit builds with 128-bit
 * multiplication, i31 otherwise; ECDSA i31 over tb_bearssl_impl.ec).
 * BearSSL 0.6 has no RSA-PSS, no Ed25519, and no public PKCS#1 v1.5
 * encryption call (its TLS client pads the premaster secret inside the
 * handshake code): those are unsupported. ECDSA signing is deterministic
 * (RFC 6979), the only kind BearSSL has. */
#include "bearssl_adapter.h"

#include <stdlib.h>
#include <string.h>

typedef enum { SIG_RSA, SIG_ECDSA } sig_scheme;

typedef struct {
    const char *name;
    sig_scheme scheme;
    size_t bits; /* RSA modulus / curve size */
    int curve;
    const br_hash_class *hash;
    const unsigned char *oid;
} sig_alg;

static const sig_alg sigs[] = {
    {"rsa2048-pkcs1-sha256", SIG_RSA, 2048, 0, &br_sha256_vtable, BR_HASH_OID_SHA256},
    {"rsa3072-pkcs1-sha256", SIG_RSA, 3072, 0, &br_sha256_vtable, BR_HASH_OID_SHA256},
    {"ecdsa-p256-sha256", SIG_ECDSA, 256, BR_EC_secp256r1, &br_sha256_vtable, NULL},
    {"ecdsa-p384-sha384", SIG_ECDSA, 384, BR_EC_secp384r1, &br_sha384_vtable, NULL},
};

static const sig_alg *sig_find(const char *alg)
{
    int i = TB_NAME_INDEX(sigs, alg);
    return i < 0 ? NULL : &sigs[i];
}

static int sig_supports(const char *alg, const char *op)
{
    return sig_find(alg) != NULL && (strcmp(op, "sign") == 0 || strcmp(op, "verify") == 0);
}

/* An RSA private key from PKCS#1 RSAPrivateKey DER, and its public half
 * (n, e) read from the same DER. */
typedef struct {
    br_skey_decoder_context dec;
    const br_rsa_private_key *sk;
    br_rsa_public_key pk;
    uint8_t n[512], e[8];
} rsa_key;

/* One DER element at *p (short or long length form): its tag, content and
 * the next element; 0 when malformed. */
static int der_next(const uint8_t **p, const uint8_t *end, uint8_t tag, const uint8_t **content, size_t *len)
{
    const uint8_t *q = *p;
    if (end - q < 2 || q[0] != tag) return 0;
    size_t n = q[1];
    q += 2;
    if (n & 0x80) {
        size_t k = n & 0x7F;
        if (k == 0 || k > 3 || (size_t)(end - q) < k) return 0;
        n = 0;
        while (k--) n = (n << 8) | *q++;
    }
    if ((size_t)(end - q) < n) return 0;
    *content = q;
    *len = n;
    *p = q + n;
    return 1;
}

/* RSAPrivateKey ::= SEQUENCE { version, modulus n, publicExponent e, ... } */
static tb_status rsa_public_from_der(tb_bytes der, rsa_key *k)
{
    const uint8_t *p = der.data, *end = der.data + der.len, *c, *seq;
    size_t len;
    if (!der_next(&p, end, 0x30, &seq, &len)) return TB_BAD_INPUT;
    p = seq;
    end = seq + len;
    if (!der_next(&p, end, 0x02, &c, &len)) return TB_BAD_INPUT; /* version */
    const uint8_t *n, *e;
    size_t nlen, elen;
    if (!der_next(&p, end, 0x02, &n, &nlen) || !der_next(&p, end, 0x02, &e, &elen)) return TB_BAD_INPUT;
    while (nlen > 0 && *n == 0) n++, nlen--;
    while (elen > 0 && *e == 0) e++, elen--;
    if (nlen == 0 || nlen > sizeof(k->n) || elen == 0 || elen > sizeof(k->e)) return TB_BAD_INPUT;
    memcpy(k->n, n, nlen);
    memcpy(k->e, e, elen);
    k->pk.n = k->n;
    k->pk.nlen = nlen;
    k->pk.e = k->e;
    k->pk.elen = elen;
    return TB_OK;
}

static tb_status rsa_load(rsa_key *k, tb_bytes der, size_t bits, const char *alg)
{
    if (der.len == 0) {
        tb_set_error("%s needs key = PKCS#1 RSAPrivateKey DER", alg);
        return TB_BAD_INPUT;
    }
    br_skey_decoder_init(&k->dec);
    br_skey_decoder_push(&k->dec, der.data, der.len);
    int err = br_skey_decoder_last_error(&k->dec);
    if (err != 0 || br_skey_decoder_key_type(&k->dec) != BR_KEYTYPE_RSA) {
        tb_set_error("%s: key is not an RSA private key BearSSL decodes (error %d)", alg, err);
        return TB_BAD_INPUT;
    }
    k->sk = br_skey_decoder_get_rsa(&k->dec);
    if (k->sk->n_bitlen != bits) {
        tb_set_error("%s: key is %u bits, expected %zu", alg, (unsigned)k->sk->n_bitlen, bits);
        return TB_BAD_INPUT;
    }
    /* n and e are read from the DER: BearSSL's decoder keeps only the CRT
     * half, and its br_rsa_compute_pubexp works only for primes = 3 mod 4
     * (as its own keygen makes), which the 3072-bit test key's are not */
    if (rsa_public_from_der(der, k) != TB_OK) {
        tb_set_error("%s: cannot read n and e from the RSAPrivateKey DER", alg);
        return TB_BAD_INPUT;
    }
    return TB_OK;
}

typedef struct {
    tb_family_state base;
    const sig_alg *a;
    int verify;
    rsa_key rsa;
    uint8_t ec_x[BR_EC_KBUF_PRIV_MAX_SIZE];
    br_ec_private_key ec_sk;
    uint8_t ec_q[BR_EC_KBUF_PUB_MAX_SIZE];
    br_ec_public_key ec_pk;
    uint8_t *msg, *sig;
    size_t msg_len, sig_len;
    uint8_t hash[64];
    uint8_t buf[512];
} sig_state;

static tb_status ecdsa_load(sig_state *st, const tb_job *job)
{
    const sig_alg *a = st->a;
    size_t len = a->bits / 8;
    if (job->key.len > len || (job->key.len == 0 && (!st->verify || job->pub.len == 0))) {
        tb_set_error("%s needs key = big-endian scalar of 1..%zu bytes%s", a->name, len, st->verify ? " or pub" : "");
        return TB_BAD_INPUT;
    }
    if (job->key.len) {
        /* left-padded to the curve's length */
        memcpy(st->ec_x + len - job->key.len, job->key.data, job->key.len);
        st->ec_sk.curve = a->curve;
        st->ec_sk.x = st->ec_x;
        st->ec_sk.xlen = len;
    }
    if (!st->verify) return TB_OK;
    if (job->pub.len == 0) {
        if (br_ec_compute_pub(tb_bearssl_impl.ec, &st->ec_pk, st->ec_q, &st->ec_sk) == 0)
            return tb_bearssl_fail("br_ec_compute_pub");
        return TB_OK;
    }
    if (job->pub.len != 1 + 2 * len || job->pub.data[0] != 0x04) {
        tb_set_error("%s pub must be 0x04 || X || Y (%zu bytes)", a->name, 1 + 2 * len);
        return TB_BAD_INPUT;
    }
    memcpy(st->ec_q, job->pub.data, job->pub.len);
    st->ec_pk.curve = a->curve;
    st->ec_pk.q = st->ec_q;
    st->ec_pk.qlen = job->pub.len;
    return TB_OK;
}

static tb_status sig_prepare(const tb_job *job, tb_family_state **out)
{
    sig_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &tb_bearssl_sig;
    st->base.out = st->buf;
    *out = &st->base;
    const sig_alg *a = sig_find(job->alg);
    st->a = a;
    st->verify = strcmp(job->op, "verify") == 0;
    st->msg = tb_dup(job->msg);
    st->sig = tb_dup(job->sig);
    if (st->msg == NULL || st->sig == NULL) return TB_ERROR;
    st->msg_len = job->msg.len;
    st->sig_len = job->sig.len;
    if (a->scheme == SIG_ECDSA) return ecdsa_load(st, job);
    return rsa_load(&st->rsa, job->key, a->bits, a->name);
}

static tb_status sig_run(tb_family_state *base)
{
    sig_state *st = (sig_state *)base;
    const sig_alg *a = st->a;
    br_hash_compat_context h;
    a->hash->init(&h.vtable);
    a->hash->update(&h.vtable, st->msg, st->msg_len);
    a->hash->out(&h.vtable, st->hash);
    size_t hlen = (a->hash->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK;
    st->base.out_len = 0;
    if (a->scheme == SIG_ECDSA) {
        if (st->verify) {
            if (!br_ecdsa_vrfy_asn1_get_default()(tb_bearssl_impl.ec, st->hash, hlen, &st->ec_pk, st->sig, st->sig_len)) {
                tb_set_error("%s: signature does not verify", a->name);
                return TB_REJECT;
            }
            return TB_OK;
        }
        size_t n = br_ecdsa_sign_asn1_get_default()(tb_bearssl_impl.ec, a->hash, st->hash, &st->ec_sk, st->buf);
        if (n == 0) return tb_bearssl_fail("br_ecdsa_sign_asn1");
        st->base.out_len = n;
        return TB_OK;
    }
    size_t k = st->rsa.pk.nlen;
    if (st->verify) {
        /* BearSSL recovers the hash from the signature; the caller compares
         * it (its X.509 and TLS code do the same) */
        uint8_t got[64];
        if (st->sig_len != k ||
            !br_rsa_pkcs1_vrfy_get_default()(st->sig, st->sig_len, a->oid, hlen, &st->rsa.pk, got) ||
            memcmp(got, st->hash, hlen) != 0) {
            tb_set_error("%s: signature does not verify", a->name);
            return TB_REJECT;
        }
        return TB_OK;
    }
    if (!br_rsa_pkcs1_sign_get_default()(a->oid, st->hash, hlen, st->rsa.sk, st->buf))
        return tb_bearssl_fail("br_rsa_pkcs1_sign");
    st->base.out_len = k;
    return TB_OK;
}

static void sig_release(tb_family_state *base)
{
    sig_state *st = (sig_state *)base;
    free(st->msg);
    free(st->sig);
    free(st);
}

const tb_family tb_bearssl_sig = {sig_supports, sig_prepare, sig_run, sig_release};

/* ---- pke: the TLS 1.2 RSA key exchange's server side ------------------ */

static int pke_supports(const char *alg, const char *op)
{
    return (strcmp(alg, "rsa2048-pkcs1v15") == 0 || strcmp(alg, "rsa3072-pkcs1v15") == 0) &&
           strcmp(op, "decrypt") == 0;
}

typedef struct {
    tb_family_state base;
    rsa_key rsa;
    uint8_t *in;
    size_t in_len;
    uint8_t buf[512];
} pke_state;

static tb_status pke_prepare(const tb_job *job, tb_family_state **out)
{
    pke_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &tb_bearssl_pke;
    st->base.out = st->buf;
    *out = &st->base;
    size_t bits = strncmp(job->alg, "rsa2048", 7) == 0 ? 2048 : 3072;
    tb_status s = rsa_load(&st->rsa, job->key, bits, job->alg);
    if (s != TB_OK) return s;
    if (job->msg.len != st->rsa.pk.nlen) {
        tb_set_error("%s ciphertext must be %zu bytes, got %zu", job->alg, st->rsa.pk.nlen, job->msg.len);
        return TB_BAD_INPUT;
    }
    st->in = tb_dup(job->msg);
    if (st->in == NULL) return TB_ERROR;
    st->in_len = job->msg.len;
    return TB_OK;
}

/* br_rsa_ssl_decrypt is BearSSL's only PKCS#1 v1.5 decryption: it decrypts
 * in place (the ciphertext is copied first, part of the timed operation)
 * and accepts only a 48-byte result, the TLS premaster secret, which is
 * exactly this catalog's message. */
static tb_status pke_run(tb_family_state *base)
{
    pke_state *st = (pke_state *)base;
    memcpy(st->buf, st->in, st->in_len);
    if (!br_rsa_ssl_decrypt(br_rsa_private_get_default(), st->rsa.sk, st->buf, st->in_len)) {
        st->base.out_len = 0;
        tb_set_error("br_rsa_ssl_decrypt: bad padding or not a 48-byte premaster secret");
        return TB_REJECT;
    }
    st->base.out_len = 48;
    return TB_OK;
}

static void pke_release(tb_family_state *base)
{
    pke_state *st = (pke_state *)base;
    free(st->in);
    free(st);
}

const tb_family tb_bearssl_pke = {pke_supports, pke_prepare, pke_run, pke_release};
