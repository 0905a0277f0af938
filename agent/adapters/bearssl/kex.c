/* Key exchange with the EC implementation BearSSL's TLS engine selects
 * (tb_bearssl_impl.ec: br_ec_get_default). x25519, p256, p384; BearSSL has
 * no X448 and no finite-field Diffie-Hellman (its TLS offers no DHE).
 *
 * BearSSL's point multiplication works in place on the encoded peer point
 * (decoding and validating it, as its TLS code does with a received key
 * share): derive and exchange first copy the peer value into the output
 * buffer (65 or 97 bytes, part of the timed operation). */
#include "bearssl_adapter.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    int curve;
    size_t priv_len, pub_len; /* pub: 32 (x25519) or 0x04 || X || Y */
} kex_alg;

static const kex_alg kexes[] = {
    {"x25519", BR_EC_curve25519, 32, 32},
    {"p256", BR_EC_secp256r1, 32, 65},
    {"p384", BR_EC_secp384r1, 48, 97},
};

static const char *const op_names[] = {"public", "keygen", "derive", "exchange"};
enum { OP_PUBLIC, OP_KEYGEN, OP_DERIVE, OP_EXCHANGE };

static const kex_alg *kex_find(const char *alg)
{
    int i = TB_NAME_INDEX(kexes, alg);
    return i < 0 ? NULL : &kexes[i];
}

static int op_index(const char *op)
{
    return TB_NAME_INDEX(op_names, op);
}

static int kex_supports(const char *alg, const char *op)
{
    const kex_alg *a = kex_find(alg);
    return a != NULL && op_index(op) >= 0 && tb_bearssl_impl.ec != NULL &&
           ((tb_bearssl_impl.ec->supported_curves >> a->curve) & 1) != 0;
}

typedef struct {
    tb_family_state base;
    const kex_alg *a;
    int op;
    uint8_t priv[BR_EC_KBUF_PRIV_MAX_SIZE];
    size_t priv_len;
    uint8_t peer[BR_EC_KBUF_PUB_MAX_SIZE];
    size_t peer_len;
    uint8_t buf[BR_EC_KBUF_PUB_MAX_SIZE];
} kex_state;

static tb_status kex_prepare(const tb_job *job, tb_family_state **out)
{
    kex_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &tb_bearssl_kex;
    *out = &st->base;
    const kex_alg *a = kex_find(job->alg);
    st->a = a;
    st->op = op_index(job->op);
    st->base.out = st->buf;
    if (st->op == OP_PUBLIC || st->op == OP_DERIVE) {
        if (job->key.len != a->priv_len) {
            tb_set_error("%s private key must be %zu bytes, got %zu", a->name, a->priv_len, job->key.len);
            return TB_BAD_INPUT;
        }
        memcpy(st->priv, job->key.data, job->key.len);
        st->priv_len = job->key.len;
    }
    if (st->op == OP_DERIVE || st->op == OP_EXCHANGE) {
        if (job->peer.len != a->pub_len) {
            tb_set_error("%s peer public value must be %zu bytes, got %zu", a->name, a->pub_len, job->peer.len);
            return TB_BAD_INPUT;
        }
        memcpy(st->peer, job->peer.data, job->peer.len);
        st->peer_len = job->peer.len;
    }
    return TB_OK;
}

/* The shared secret: X of the product (the whole u for x25519). */
static tb_status derive(kex_state *st, const uint8_t *priv, size_t priv_len)
{
    const br_ec_impl *ec = tb_bearssl_impl.ec;
    memcpy(st->buf, st->peer, st->peer_len);
    if (!ec->mul(st->buf, st->peer_len, priv, priv_len, st->a->curve)) return tb_bearssl_fail("br_ec_impl.mul");
    size_t xlen = 0;
    size_t xoff = ec->xoff(st->a->curve, &xlen);
    if (xoff != 0) memmove(st->buf, st->buf + xoff, xlen);
    st->base.out_len = xlen;
    return TB_OK;
}

static tb_status kex_run(tb_family_state *base)
{
    kex_state *st = (kex_state *)base;
    const br_ec_impl *ec = tb_bearssl_impl.ec;
    if (st->op == OP_PUBLIC) {
        st->base.out_len = ec->mulgen(st->buf, st->priv, st->priv_len, st->a->curve);
        return st->base.out_len != 0 ? TB_OK : tb_bearssl_fail("br_ec_impl.mulgen");
    }
    if (st->op == OP_DERIVE) return derive(st, st->priv, st->priv_len);
    br_ec_private_key sk;
    uint8_t kbuf[BR_EC_KBUF_PRIV_MAX_SIZE];
    if (br_ec_keygen(&tb_bearssl_rng.vtable, ec, &sk, kbuf, st->a->curve) == 0) return tb_bearssl_fail("br_ec_keygen");
    if (st->op == OP_EXCHANGE) return derive(st, sk.x, sk.xlen);
    br_ec_public_key pk;
    st->base.out_len = br_ec_compute_pub(ec, &pk, st->buf, &sk);
    return st->base.out_len != 0 ? TB_OK : tb_bearssl_fail("br_ec_compute_pub");
}

static void kex_release(tb_family_state *base)
{
    free(base);
}

const tb_family tb_bearssl_kex = {kex_supports, kex_prepare, kex_run, kex_release};
