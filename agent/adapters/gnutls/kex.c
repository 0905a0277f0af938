/* GnuTLS adapter: key agreement.
 *
 * GnuTLS 3.7 has no public key-agreement API (its ECDH/DH code is internal
 * to the TLS handshake). This file therefore drives the same backend
 * GnuTLS's TLS stack calls (lib/nettle/pk.c): nettle's curve25519_mul /
 * curve448_mul, ecdsa_generate_keypair + ecc_point_mul for P-256/P-384, and
 * GMP modular exponentiation over the RFC 7919 groups GnuTLS exports
 * (gnutls_ffdhe_*_group_*), with GnuTLS's RNG (gnutls_rnd) for key
 * generation and the same peer checks GnuTLS applies in TLS. */
#include "gnutls_adapter.h"

#include <gmp.h>
#include <gnutls/crypto.h>
#include <nettle/bignum.h>
#include <nettle/curve25519.h>
#include <nettle/curve448.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <nettle/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Modular exponentiation for FFDHE: what GnuTLS's own DH code
 * (wrap_nettle_mpi_powm) calls, so the figure is GnuTLS's TLS cost. */
#define GT_POWM_SECRET mpz_powm
#ifdef TB_GNUTLS_OWN_PREFIX
#define GT_POWM_SECRET_NAME "mpz_powm (as GnuTLS 3.8 lib/nettle/mpi.c)"
#define GT_KEX_API_NOTE "the same calls as for GnuTLS 3.7, whose lack of a key-agreement API set them; 3.8's " \
    "gnutls_privkey_derive_secret is not used, so both versions run one code path"
#else
#define GT_POWM_SECRET_NAME "mpz_powm (as GnuTLS 3.7 lib/nettle/pk.c)"
#define GT_KEX_API_NOTE "GnuTLS 3.7 has no public key-agreement API"
#endif

enum { X25519, X448, NIST, FFDHE };
enum { OP_PUBLIC, OP_KEYGEN, OP_DERIVE, OP_EXCHANGE };

static const struct {
    const char *name;
    int type;
    size_t len; /* private (x25519/x448), field or prime length in bytes */
} algs[] = {
    {"x25519", X25519, CURVE25519_SIZE}, {"x448", X448, CURVE448_SIZE}, {"p256", NIST, 32},
    {"p384", NIST, 48},                  {"ffdhe2048", FFDHE, 256},     {"ffdhe3072", FFDHE, 384},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_LEN 384

typedef struct {
    tb_family_state base;
    int type, op;
    size_t len;
    uint8_t priv[MAX_LEN]; /* X25519 / X448 */
    /* The peer's public value exactly as received (all types): run() decodes
     * and checks it on every derive, as a handshake does per key share. */
    uint8_t peer[1 + 2 * MAX_LEN];
    size_t peer_len;
    /* NIST curves */
    const struct ecc_curve *curve;
    struct ecc_scalar k;
    struct ecc_point peer_pt, pt;
    /* FFDHE: p, q = (p-1)/2, g, p-1, secret x, public y, peer r, scratch t
     * (x and y also serve as scratch for the NIST curves) */
    mpz_t p, q, g, pm1, x, y, r, t;
    mpz_t peer_x, peer_y; /* NIST peer point, decoded in run() */
    /* all types */
    uint8_t my_pub[1 + 2 * MAX_LEN]; /* our public value on exchange */
    uint8_t out[1 + 2 * MAX_LEN];
} kex_job;

static int find_alg(const char *alg)
{
    for (size_t i = 0; i < NELEM(algs); i++) {
        if (strcmp(algs[i].name, alg) == 0) return (int)i;
    }
    return -1;
}

static int kex_supports(const char *alg, const char *op)
{
    return tb_gnutls_listed(TB_KIND_KEX, alg, op) && find_alg(alg) >= 0;
}

const char *tb_gnutls_kex_config(void)
{
    static char text[512];
    snprintf(text, sizeof(text),
             "kex via nettle %d.%d / GMP %s (" GT_KEX_API_NOTE "; GnuTLS's TLS stack uses "
             "the same backend): X25519/X448 curve*_mul, P-256/P-384 nettle ecc, FFDHE GMP %s with an exponent "
             "uniform in [1,q-2] (full q size) as GnuTLS's TLS key_share draws it, peer check 1<y<p-1 and "
             "y^q=1 per derive as GnuTLS does",
             nettle_version_major(), nettle_version_minor(), gmp_version, GT_POWM_SECRET_NAME);
    return text;
}

/* ---- X25519 / X448 -------------------------------------------------- */

static void mont_mul_g(const kex_job *s, uint8_t *out, const uint8_t *n)
{
    if (s->type == X25519) {
        curve25519_mul_g(out, n);
    } else {
        curve448_mul_g(out, n);
    }
}

static tb_status mont_derive(kex_job *s, uint8_t *out)
{
    /* Mirrors GnuTLS 3.7 _wrap_nettle_pk_derive (ECDH_X25519/X448): the raw
     * peer bytes go straight to curve*_mul, then the all-zero check. */
    if (s->type == X25519) {
        curve25519_mul(out, s->priv, s->peer);
    } else {
        curve448_mul(out, s->priv, s->peer);
    }
    uint8_t acc = 0;
    for (size_t i = 0; i < s->len; i++) acc |= out[i];
    if (acc == 0) {
        tb_set_error("%s: all-zero shared secret (low-order peer point)", s->type == X25519 ? "x25519" : "x448");
        return TB_BAD_INPUT;
    }
    return TB_OK;
}

static tb_status run_mont(tb_family_state *j)
{
    kex_job *s = (kex_job *)j;
    int r;
    switch (s->op) {
    case OP_PUBLIC:
        mont_mul_g(s, s->out, s->priv);
        return TB_OK;
    case OP_KEYGEN:
    case OP_EXCHANGE:
        if ((r = gnutls_rnd(GNUTLS_RND_RANDOM, s->priv, s->len)) < 0) return tb_gnutls_fail("gnutls_rnd", r);
        mont_mul_g(s, s->op == OP_KEYGEN ? s->out : s->my_pub, s->priv);
        return s->op == OP_KEYGEN ? TB_OK : mont_derive(s, s->out);
    default:
        return mont_derive(s, s->out);
    }
}

/* ---- P-256 / P-384 ------------------------------------------------- */

static void nist_put_public(kex_job *s, uint8_t *out)
{
    ecc_point_get(&s->pt, s->x, s->y);
    out[0] = 0x04;
    nettle_mpz_get_str_256(s->len, out + 1, s->x);
    nettle_mpz_get_str_256(s->len, out + 1 + s->len, s->y);
}

static tb_status run_nist(tb_family_state *j)
{
    kex_job *s = (kex_job *)j;
    switch (s->op) {
    case OP_PUBLIC:
        ecc_point_mul_g(&s->pt, &s->k);
        nist_put_public(s, s->out);
        return TB_OK;
    case OP_KEYGEN:
    case OP_EXCHANGE:
        ecdsa_generate_keypair(&s->pt, &s->k, NULL, tb_gnutls_nettle_rnd);
        if (tb_gnutls_rng_failed()) {
            tb_set_error("gnutls_rnd failed during ecdsa_generate_keypair");
            return TB_ERROR;
        }
        nist_put_public(s, s->op == OP_KEYGEN ? s->out : s->my_pub);
        if (s->op == OP_KEYGEN) return TB_OK;
        break;
    default:
        break;
    }
    /* Mirrors GnuTLS 3.7 key_share.c _gnutls_ecc_ansi_x962_import + lib/nettle/pk.c
     * _wrap_nettle_pk_derive (GNUTLS_PK_EC, non-FIPS): decode 0x04||X||Y, ecc_point_set
     * (range + on-curve check), ecc_shared_secret (mul, get X and Y, identity check). */
    if (s->peer_len != 1 + 2 * s->len || s->peer[0] != 0x04) return tb_gnutls_bad("EC peer public key must be 0x04 || X || Y");
    nettle_mpz_set_str_256_u(s->peer_x, s->len, s->peer + 1);
    nettle_mpz_set_str_256_u(s->peer_y, s->len, s->peer + 1 + s->len);
    if (!ecc_point_set(&s->peer_pt, s->peer_x, s->peer_y)) return tb_gnutls_bad("EC peer public key is not on the curve");
    ecc_point_mul(&s->pt, &s->k, &s->peer_pt);
    ecc_point_get(&s->pt, s->x, s->y);
    if (mpz_sgn(s->x) == 0 && mpz_sgn(s->y) == 0) return tb_gnutls_bad("EC shared point is the identity");
    nettle_mpz_get_str_256(s->len, s->out, s->x);
    return TB_OK;
}

/* ---- FFDHE ----------------------------------------------------------- */

static void ff_keygen(kex_job *s)
{
    /* As GnuTLS's TLS key_share (q known): x = 1 + uniform[0, q-2), retry
     * while g^x = 1. */
    mpz_sub_ui(s->t, s->q, 2);
    do {
        nettle_mpz_random(s->x, NULL, tb_gnutls_nettle_rnd, s->t);
        mpz_add_ui(s->x, s->x, 1);
        GT_POWM_SECRET(s->y, s->g, s->x, s->p);
    } while (mpz_cmp_ui(s->y, 1) == 0);
}

static tb_status ff_derive(kex_job *s)
{
    /* Mirrors GnuTLS 3.7 key_share.c (_gnutls_mpi_init_scan_nz of the share) + lib/nettle/pk.c
     * _wrap_nettle_pk_derive (GNUTLS_PK_DH): p-1, 1 < y < p-1, y^q = 1 (q known), y^x, k not 0/1/p-1. */
    nettle_mpz_set_str_256_u(s->r, s->peer_len, s->peer);
    if (mpz_sgn(s->r) == 0) return tb_gnutls_bad("ffdhe: peer public value is zero");
    mpz_sub_ui(s->pm1, s->p, 1);
    if (mpz_cmp_ui(s->r, 1) <= 0 || mpz_cmp(s->r, s->pm1) >= 0) {
        return tb_gnutls_bad("ffdhe: peer public value out of range (1 < y < p-1)");
    }
    mpz_powm(s->t, s->r, s->q, s->p);
    if (mpz_cmp_ui(s->t, 1) != 0) return tb_gnutls_bad("ffdhe: peer public value not in the prime-order subgroup");
    GT_POWM_SECRET(s->t, s->r, s->x, s->p);
    if (mpz_cmp_ui(s->t, 1) <= 0 || mpz_cmp(s->t, s->pm1) == 0) return tb_gnutls_bad("ffdhe: degenerate shared secret");
    nettle_mpz_get_str_256(s->len, s->out, s->t);
    return TB_OK;
}

static tb_status run_ffdhe(tb_family_state *j)
{
    kex_job *s = (kex_job *)j;
    switch (s->op) {
    case OP_PUBLIC:
        GT_POWM_SECRET(s->y, s->g, s->x, s->p);
        nettle_mpz_get_str_256(s->len, s->out, s->y);
        return TB_OK;
    case OP_KEYGEN:
    case OP_EXCHANGE:
        ff_keygen(s);
        if (tb_gnutls_rng_failed()) {
            tb_set_error("gnutls_rnd failed during ffdhe key generation");
            return TB_ERROR;
        }
        nettle_mpz_get_str_256(s->len, s->op == OP_KEYGEN ? s->out : s->my_pub, s->y);
        return s->op == OP_KEYGEN ? TB_OK : ff_derive(s);
    default:
        return ff_derive(s);
    }
}

/* ---- prepare / release ------------------------------------------------ */

static void release_kex(tb_family_state *j)
{
    kex_job *s = (kex_job *)j;
    if (s->curve != NULL) {
        ecc_scalar_clear(&s->k);
        ecc_point_clear(&s->pt);
        ecc_point_clear(&s->peer_pt);
    }
    mpz_clears(s->p, s->q, s->g, s->pm1, s->x, s->y, s->r, s->t, s->peer_x, s->peer_y, NULL);
    free(s);
}

/* Where prepare points the state: one table per type, so the timed call
 * reaches its run with no dispatch of ours (tb_gnutls_kex has no run). */
static tb_status kex_prepare(const tb_job *job, tb_family_state **out);
static const tb_family mont_kex = {kex_supports, kex_prepare, run_mont, release_kex};
static const tb_family nist_kex = {kex_supports, kex_prepare, run_nist, release_kex};
static const tb_family ffdhe_kex = {kex_supports, kex_prepare, run_ffdhe, release_kex};

static void set_mpz(mpz_t z, const gnutls_datum_t *d)
{
    nettle_mpz_set_str_256_u(z, d->size, d->data);
}

static tb_status prepare_mont(kex_job *s, const tb_job *job)
{
    if (s->op == OP_PUBLIC || s->op == OP_DERIVE) {
        if (job->key.len != s->len) return tb_gnutls_bad("private key has the wrong length");
        memcpy(s->priv, job->key.data, s->len);
    }
    if (s->op == OP_DERIVE || s->op == OP_EXCHANGE) {
        if (job->peer.len != s->len) return tb_gnutls_bad("peer public key has the wrong length");
        memcpy(s->peer, job->peer.data, s->len);
        s->peer_len = s->len;
    }
    s->base.out_len = s->len;
    s->base.fam = &mont_kex;
    return TB_OK;
}

static tb_status prepare_nist(kex_job *s, const tb_job *job)
{
    s->curve = s->len == 32 ? nettle_get_secp_256r1() : nettle_get_secp_384r1();
    ecc_scalar_init(&s->k, s->curve);
    ecc_point_init(&s->pt, s->curve);
    ecc_point_init(&s->peer_pt, s->curve);
    if (s->op == OP_PUBLIC || s->op == OP_DERIVE) {
        if (job->key.len == 0 || job->key.len > s->len) return tb_gnutls_bad("EC private scalar has the wrong length");
        nettle_mpz_set_str_256_u(s->x, job->key.len, job->key.data);
        if (!ecc_scalar_set(&s->k, s->x)) return tb_gnutls_bad("EC private scalar out of range [1, n-1]");
    }
    if (s->op == OP_DERIVE || s->op == OP_EXCHANGE) {
        /* Bytes only: decoding and the point check are timed, in run(). */
        if (job->peer.len != 1 + 2 * s->len) return tb_gnutls_bad("EC peer public key must be 0x04 || X || Y");
        memcpy(s->peer, job->peer.data, job->peer.len);
        s->peer_len = job->peer.len;
    }
    s->base.out_len = s->op == OP_PUBLIC || s->op == OP_KEYGEN ? 1 + 2 * s->len : s->len;
    s->base.fam = &nist_kex;
    return TB_OK;
}

static tb_status prepare_ffdhe(kex_job *s, const tb_job *job)
{
    int big = s->len == 384;
    set_mpz(s->p, big ? &gnutls_ffdhe_3072_group_prime : &gnutls_ffdhe_2048_group_prime);
    set_mpz(s->q, big ? &gnutls_ffdhe_3072_group_q : &gnutls_ffdhe_2048_group_q);
    set_mpz(s->g, big ? &gnutls_ffdhe_3072_group_generator : &gnutls_ffdhe_2048_group_generator);
    mpz_sub_ui(s->pm1, s->p, 1);
    if (s->op == OP_PUBLIC || s->op == OP_DERIVE) {
        if (job->key.len == 0 || job->key.len > s->len) return tb_gnutls_bad("ffdhe private exponent has the wrong length");
        nettle_mpz_set_str_256_u(s->x, job->key.len, job->key.data);
        if (mpz_cmp_ui(s->x, 1) < 0 || mpz_cmp(s->x, s->pm1) >= 0) {
            return tb_gnutls_bad("ffdhe private exponent out of range [1, p-2]");
        }
    }
    if (s->op == OP_DERIVE || s->op == OP_EXCHANGE) {
        if (job->peer.len == 0 || job->peer.len > s->len) return tb_gnutls_bad("ffdhe peer public value has the wrong length");
        /* Bytes only: the import and the range/subgroup checks are timed, in run(). */
        memcpy(s->peer, job->peer.data, job->peer.len);
        s->peer_len = job->peer.len;
    }
    s->base.out_len = s->len;
    s->base.fam = &ffdhe_kex;
    return TB_OK;
}

static tb_status kex_prepare(const tb_job *job, tb_family_state **out)
{
    kex_job *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    mpz_inits(s->p, s->q, s->g, s->pm1, s->x, s->y, s->r, s->t, s->peer_x, s->peer_y, NULL);
    s->base.fam = &tb_gnutls_kex;
    s->base.out = s->out;
    int a = find_alg(job->alg);
    s->type = algs[a].type;
    s->len = algs[a].len;
    static const char *const ops[] = {"public", "keygen", "derive", "exchange"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(job->op, ops[i]) == 0) s->op = i;
    }
    tb_status st;
    switch (s->type) {
    case X25519:
    case X448:
        st = prepare_mont(s, job);
        break;
    case NIST:
        st = prepare_nist(s, job);
        break;
    default:
        st = prepare_ffdhe(s, job);
        break;
    }
    if (st != TB_OK) {
        release_kex(&s->base);
        return st;
    }
    *out = &s->base;
    return TB_OK;
}

const tb_family tb_gnutls_kex = {kex_supports, kex_prepare, NULL, release_kex};
