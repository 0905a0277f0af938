/* Key exchange: X25519/X448 and P-256/P-384 through mbedtls_ecp and
 * mbedtls_ecdh_compute_shared (the calls Mbed TLS's TLS 1.2 ECDHE makes),
 * except P-256 where a PSA driver serves it (TB_MBEDTLS_P256_PSA, the
 * p256-m profile): there through PSA as TLS 1.3 does it (psa_p256.c).
 * RFC 7919 ffdhe2048/3072 through mbedtls_dhm with the primes dhm.h ships.
 * derive/exchange keep the peer's public value as bytes: run() decodes and
 * validates it as the TLS code does for a received key share, then computes. */
#include "mbedtls_adapter.h"

#include <mbedtls/bignum.h>
#include <mbedtls/dhm.h>
#include <mbedtls/ecdh.h>
#include <mbedtls/ecp.h>

#include <stdlib.h>
#include <string.h>

enum { OP_PUBLIC, OP_KEYGEN, OP_DERIVE, OP_EXCHANGE };
static const char *const op_names[] = {"public", "keygen", "derive", "exchange"};

static const unsigned char ffdhe2048_p[] = MBEDTLS_DHM_RFC7919_FFDHE2048_P_BIN;
static const unsigned char ffdhe2048_g[] = MBEDTLS_DHM_RFC7919_FFDHE2048_G_BIN;
static const unsigned char ffdhe3072_p[] = MBEDTLS_DHM_RFC7919_FFDHE3072_P_BIN;
static const unsigned char ffdhe3072_g[] = MBEDTLS_DHM_RFC7919_FFDHE3072_G_BIN;

typedef struct {
    const char *name;
    mbedtls_ecp_group_id curve; /* MBEDTLS_ECP_DP_NONE: finite field */
    int montgomery;             /* RFC 7748 little-endian encodings */
    size_t len;                 /* field element / prime length in bytes */
    const unsigned char *p, *g;
    size_t g_len;
} kex_alg;

static const kex_alg kexes[] = {
    {"x25519", MBEDTLS_ECP_DP_CURVE25519, 1, 32, NULL, NULL, 0},
    {"x448", MBEDTLS_ECP_DP_CURVE448, 1, 56, NULL, NULL, 0},
    {"p256", MBEDTLS_ECP_DP_SECP256R1, 0, 32, NULL, NULL, 0},
    {"p384", MBEDTLS_ECP_DP_SECP384R1, 0, 48, NULL, NULL, 0},
    {"ffdhe2048", MBEDTLS_ECP_DP_NONE, 0, sizeof(ffdhe2048_p), ffdhe2048_p, ffdhe2048_g,
     sizeof(ffdhe2048_g)},
    {"ffdhe3072", MBEDTLS_ECP_DP_NONE, 0, sizeof(ffdhe3072_p), ffdhe3072_p, ffdhe3072_g,
     sizeof(ffdhe3072_g)},
};

#define KEX_OUT_MAX sizeof(ffdhe3072_p) /* > MBEDTLS_ECP_MAX_PT_LEN here */

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
    if (a == NULL || op_index(op) < 0) return 0;
    if (a->curve == MBEDTLS_ECP_DP_NONE) {
#if defined(MBEDTLS_DHM_C)
        return 1;
#else
        return 0;
#endif
    }
    return mbedtls_ecp_curve_info_from_grp_id(a->curve) != NULL;
}

typedef struct {
    tb_family_state base;
    const kex_alg *a;
    int op;
    /* elliptic curves */
    mbedtls_ecp_group grp;
    mbedtls_mpi d;
    mbedtls_ecp_point Q, peer;
    /* finite field: P, G, own X, peer GY, result, cached R^2 mod P */
    mbedtls_mpi P, G, X, GY, R;
    mbedtls_dhm_context dhm;
    /* derive/exchange: the peer's public value as received */
    uint8_t *peer_bytes;
    size_t peer_len;
    mbedtls_mpi z; /* ECDH shared secret */
    int psa;       /* P-256 through PSA (TB_MBEDTLS_P256_PSA) */
#if defined(TB_MBEDTLS_P256_PSA)
    uint8_t priv[TB_P256_SCALAR]; /* the private key as PSA imports it */
#endif
    uint8_t buf[KEX_OUT_MAX];
    uint8_t scratch[KEX_OUT_MAX];
} kex_state;

/* ---- elliptic curves ------------------------------------------------- */

static tb_status ec_load_key(kex_state *st, tb_bytes key)
{
    mbedtls_ecp_keypair kp;
    mbedtls_ecp_keypair_init(&kp);
    int ret = mbedtls_ecp_read_key(st->a->curve, &kp, key.data, key.len);
    if (ret == 0) ret = mbedtls_ecp_export(&kp, &st->grp, &st->d, &st->Q);
    mbedtls_ecp_keypair_free(&kp);
    return ret == 0 ? TB_OK : tb_mbedtls_bad_input("mbedtls_ecp_read_key", ret);
}

/* The scalar left-padded as PSA imports it; importing it once (untimed)
 * checks it as mbedtls_ecp_read_key does. */
static tb_status load_key_via_psa(kex_state *st, tb_bytes key)
{
#if defined(TB_MBEDTLS_P256_PSA)
    memcpy(st->priv + sizeof(st->priv) - key.len, key.data, key.len);
    return tb_mbedtls_p256_public(st->priv, st->buf);
#else
    (void)st;
    (void)key;
    return TB_ERROR; /* st->psa is never set */
#endif
}

static tb_status ec_prepare(kex_state *st, const tb_job *job)
{
    const kex_alg *a = st->a;
    if (st->op == OP_PUBLIC || st->op == OP_DERIVE) {
        /* Montgomery: exactly the RFC 7748 scalar string (Mbed TLS reads it
         * little-endian and clamps it); Weierstrass: big-endian, 1..len. */
        if (a->montgomery ? job->key.len != a->len : job->key.len == 0 || job->key.len > a->len) {
            tb_set_error("%s private key must be %s%zu bytes, got %zu", a->name,
                         a->montgomery ? "" : "1..", a->len, job->key.len);
            return TB_BAD_INPUT;
        }
        tb_status s = st->psa ? load_key_via_psa(st, job->key) : ec_load_key(st, job->key);
        if (s != TB_OK) return s;
    } else if (!st->psa) {
        int ret = mbedtls_ecp_group_load(&st->grp, a->curve);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_ecp_group_load", ret);
    }
    if (st->op == OP_DERIVE || st->op == OP_EXCHANGE) {
        size_t want = a->montgomery ? a->len : 1 + 2 * a->len;
        if (job->peer.len != want || (!a->montgomery && job->peer.data[0] != 0x04)) {
            tb_set_error("%s peer public key must be %zu bytes%s", a->name, want,
                         a->montgomery ? "" : " (0x04 || X || Y)");
            return TB_BAD_INPUT;
        }
        /* Kept as bytes: decoding and validating it is part of run(). */
        st->peer_bytes = tb_dup(job->peer);
        if (st->peer_bytes == NULL) return TB_ERROR;
        st->peer_len = job->peer.len;
    }
    return TB_OK;
}

/* The peer's key share as TLS 1.3 takes it (psa_raw_key_agreement ->
 * mbedtls_psa_ecp_load_representation, psa_crypto_ecp.c): read + check. */
static tb_status ec_read_peer(kex_state *st)
{
    int ret = mbedtls_ecp_point_read_binary(&st->grp, &st->peer, st->peer_bytes, st->peer_len);
    if (ret != 0) return tb_mbedtls_bad_input("mbedtls_ecp_point_read_binary (peer)", ret);
    ret = mbedtls_ecp_check_pubkey(&st->grp, &st->peer);
    if (ret != 0) return tb_mbedtls_bad_input("mbedtls_ecp_check_pubkey (peer)", ret);
    return TB_OK;
}

static tb_status ec_write_public(kex_state *st)
{
    size_t olen = 0;
    int ret = mbedtls_ecp_point_write_binary(&st->grp, &st->Q, MBEDTLS_ECP_PF_UNCOMPRESSED, &olen,
                                             st->buf, sizeof(st->buf));
    if (ret != 0) return tb_mbedtls_fail("mbedtls_ecp_point_write_binary", ret);
    st->base.out_len = olen;
    return TB_OK;
}

/* Shared secret = X coordinate: little-endian u for X25519/X448 (RFC 7748),
 * big-endian and left-padded for the NIST curves (as ecdh_calc_secret). */
static tb_status ec_shared(kex_state *st)
{
    tb_status s = ec_read_peer(st);
    if (s != TB_OK) return s;
    int ret = mbedtls_ecdh_compute_shared(&st->grp, &st->z, &st->peer, &st->d, tb_mbedtls_rng, NULL);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_ecdh_compute_shared", ret);
    ret = st->a->montgomery ? mbedtls_mpi_write_binary_le(&st->z, st->buf, st->a->len)
                            : mbedtls_mpi_write_binary(&st->z, st->buf, st->a->len);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_mpi_write_binary", ret);
    st->base.out_len = st->a->len;
    return TB_OK;
}

#if defined(TB_MBEDTLS_P256_PSA)
/* The peer's key share goes to PSA as bytes: psa_raw_key_agreement decodes
 * and checks it (p256-m: p256_ecdh_shared_secret). */
static tb_status run_via_psa(kex_state *st)
{
    tb_status s;
    switch (st->op) {
    case OP_PUBLIC: s = tb_mbedtls_p256_public(st->priv, st->buf); break;
    case OP_KEYGEN: s = tb_mbedtls_p256_keygen(st->buf); break;
    case OP_DERIVE: s = tb_mbedtls_p256_derive(st->priv, st->peer_bytes, st->peer_len, st->buf); break;
    default: /* OP_EXCHANGE */ s = tb_mbedtls_p256_exchange(st->peer_bytes, st->peer_len, st->buf); break;
    }
    if (s == TB_OK) st->base.out_len = st->op == OP_PUBLIC || st->op == OP_KEYGEN ? TB_P256_POINT : TB_P256_SCALAR;
    return s;
}
#endif

static tb_status ec_run(kex_state *st)
{
    int ret;
#if defined(TB_MBEDTLS_P256_PSA)
    if (st->psa) return run_via_psa(st);
#endif
    switch (st->op) {
    case OP_PUBLIC:
        ret = mbedtls_ecp_mul(&st->grp, &st->Q, &st->d, &st->grp.G, tb_mbedtls_rng, NULL);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_ecp_mul", ret);
        return ec_write_public(st);
    case OP_KEYGEN:
        ret = mbedtls_ecp_gen_keypair(&st->grp, &st->d, &st->Q, tb_mbedtls_rng, NULL);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_ecp_gen_keypair", ret);
        return ec_write_public(st);
    case OP_DERIVE:
        return ec_shared(st);
    default: /* OP_EXCHANGE */
        ret = mbedtls_ecp_gen_keypair(&st->grp, &st->d, &st->Q, tb_mbedtls_rng, NULL);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_ecp_gen_keypair", ret);
        return ec_shared(st);
    }
}

/* ---- finite field ---------------------------------------------------- */

/* 2 <= v <= P - 2, the range mbedtls_dhm enforces on public values. */
static int ff_in_range(const mbedtls_mpi *v, const mbedtls_mpi *P)
{
    mbedtls_mpi top;
    mbedtls_mpi_init(&top);
    int ok = mbedtls_mpi_sub_int(&top, P, 2) == 0 && mbedtls_mpi_cmp_int(v, 2) >= 0 &&
             mbedtls_mpi_cmp_mpi(v, &top) <= 0;
    mbedtls_mpi_free(&top);
    return ok;
}

static tb_status ff_prepare(kex_state *st, const tb_job *job)
{
    const kex_alg *a = st->a;
    int ret = mbedtls_mpi_read_binary(&st->P, a->p, a->len);
    if (ret == 0) ret = mbedtls_mpi_read_binary(&st->G, a->g, a->g_len);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_mpi_read_binary", ret);

    if (st->op == OP_PUBLIC || st->op == OP_DERIVE) {
        /* mbedtls_dhm has no way to import a private exponent: these two
         * ops use the same modular exponentiation dhm.c runs. */
        if (job->key.len == 0 || job->key.len > a->len) {
            tb_set_error("%s private exponent must be 1..%zu bytes, got %zu", a->name, a->len,
                         job->key.len);
            return TB_BAD_INPUT;
        }
        ret = mbedtls_mpi_read_binary(&st->X, job->key.data, job->key.len);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_mpi_read_binary", ret);
        if (!ff_in_range(&st->X, &st->P)) {
            tb_set_error("%s private exponent out of range [2, p-2]", a->name);
            return TB_BAD_INPUT;
        }
    }
    if (st->op == OP_DERIVE || st->op == OP_EXCHANGE) {
        if (job->peer.len != a->len) {
            tb_set_error("%s peer public value must be %zu bytes, got %zu", a->name, a->len,
                         job->peer.len);
            return TB_BAD_INPUT;
        }
        /* Kept as bytes: decoding and validating it is part of run(). */
        st->peer_bytes = tb_dup(job->peer);
        if (st->peer_bytes == NULL) return TB_ERROR;
        st->peer_len = job->peer.len;
    }
    if (st->op == OP_KEYGEN || st->op == OP_EXCHANGE) {
        ret = mbedtls_dhm_set_group(&st->dhm, &st->P, &st->G);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_dhm_set_group", ret);
    }
    return TB_OK;
}

/* The peer's key share as TLS 1.3 takes it (psa_raw_key_agreement ->
 * mbedtls_psa_ffdh_key_agreement, psa_crypto_ffdh.c): read, 1 < GY < P-1. */
static tb_status ff_read_peer(kex_state *st)
{
    int ret = mbedtls_mpi_read_binary(&st->GY, st->peer_bytes, st->peer_len);
    if (ret != 0) return tb_mbedtls_fail("mbedtls_mpi_read_binary", ret);
    if (!ff_in_range(&st->GY, &st->P)) {
        tb_set_error("%s peer public value out of range [2, p-2]", st->a->name);
        return TB_BAD_INPUT;
    }
    return TB_OK;
}

static tb_status ff_run(kex_state *st)
{
    size_t plen = st->a->len, olen = 0;
    int ret;
    switch (st->op) {
    case OP_PUBLIC:
    case OP_DERIVE:
        if (st->op == OP_DERIVE) {
            tb_status s = ff_read_peer(st);
            if (s != TB_OK) return s;
        }
        /* No cached R^2 mod P: the TLS 1.3 path (psa_crypto_ffdh.c) passes
         * NULL too, so it is recomputed on every handshake. */
        ret = mbedtls_mpi_exp_mod(&st->R, st->op == OP_PUBLIC ? &st->G : &st->GY, &st->X, &st->P, NULL);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_mpi_exp_mod", ret);
        ret = mbedtls_mpi_write_binary(&st->R, st->buf, plen);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_mpi_write_binary", ret);
        break;
    case OP_KEYGEN:
        /* x_size = prime length: X uniform in [2, p-2], as TLS 1.2 does. */
        ret = mbedtls_dhm_make_public(&st->dhm, (int)plen, st->buf, plen, tb_mbedtls_rng, NULL);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_dhm_make_public", ret);
        break;
    default: /* OP_EXCHANGE */
        ret = mbedtls_dhm_make_public(&st->dhm, (int)plen, st->scratch, plen, tb_mbedtls_rng, NULL);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_dhm_make_public", ret);
        /* As TLS 1.2 DHE (ssl_tls12_server.c ssl_parse_client_dh_public):
         * dhm_read_public reads GY, dhm_calc_secret range-checks it. */
        ret = mbedtls_dhm_read_public(&st->dhm, st->peer_bytes, st->peer_len);
        if (ret != 0) return tb_mbedtls_bad_input("mbedtls_dhm_read_public", ret);
        ret = mbedtls_dhm_calc_secret(&st->dhm, st->buf, plen, &olen, tb_mbedtls_rng, NULL);
        if (ret == MBEDTLS_ERR_DHM_BAD_INPUT_DATA) /* GY outside [2, p-2] */
            return tb_mbedtls_bad_input("mbedtls_dhm_calc_secret (peer)", ret);
        if (ret != 0) return tb_mbedtls_fail("mbedtls_dhm_calc_secret", ret);
        /* dhm strips leading zeros (TLS 1.2); RFC 8446 pads to the prime. */
        memmove(st->buf + (plen - olen), st->buf, olen);
        memset(st->buf, 0, plen - olen);
        break;
    }
    st->base.out_len = plen;
    return TB_OK;
}

/* ---- family ---------------------------------------------------------- */

static tb_status kex_prepare(const tb_job *job, tb_family_state **out)
{
    kex_state *st = tb_zalloc(sizeof(*st));
    if (st == NULL) return TB_ERROR;
    st->base.fam = &tb_mbedtls_kex;
    st->base.out = st->buf;
    mbedtls_ecp_group_init(&st->grp);
    mbedtls_mpi_init(&st->d);
    mbedtls_ecp_point_init(&st->Q);
    mbedtls_ecp_point_init(&st->peer);
    mbedtls_mpi_init(&st->z);
    mbedtls_mpi_init(&st->P);
    mbedtls_mpi_init(&st->G);
    mbedtls_mpi_init(&st->X);
    mbedtls_mpi_init(&st->GY);
    mbedtls_mpi_init(&st->R);
    mbedtls_dhm_init(&st->dhm);
    *out = &st->base;

    st->a = kex_find(job->alg);
    st->op = op_index(job->op);
#if defined(TB_MBEDTLS_P256_PSA)
    if (st->a->curve == MBEDTLS_ECP_DP_SECP256R1) {
        st->psa = 1;
        tb_status s = tb_mbedtls_psa_start();
        if (s != TB_OK) return s;
    }
#endif
    return st->a->curve == MBEDTLS_ECP_DP_NONE ? ff_prepare(st, job) : ec_prepare(st, job);
}

static tb_status kex_run(tb_family_state *base)
{
    kex_state *st = (kex_state *)base;
    return st->a->curve == MBEDTLS_ECP_DP_NONE ? ff_run(st) : ec_run(st);
}

static void kex_release(tb_family_state *base)
{
    kex_state *st = (kex_state *)base;
    mbedtls_ecp_group_free(&st->grp);
    mbedtls_mpi_free(&st->d);
    mbedtls_ecp_point_free(&st->Q);
    mbedtls_ecp_point_free(&st->peer);
    mbedtls_mpi_free(&st->z);
    mbedtls_mpi_free(&st->P);
    mbedtls_mpi_free(&st->G);
    mbedtls_mpi_free(&st->X);
    mbedtls_mpi_free(&st->GY);
    mbedtls_mpi_free(&st->R);
    mbedtls_dhm_free(&st->dhm);
    free(st->peer_bytes);
    free(st);
}

const tb_family tb_mbedtls_kex = {kex_supports, kex_prepare, kex_run, kex_release};
