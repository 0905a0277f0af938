/* GnuTLS adapter: signatures and RSA PKCS#1 v1.5 encryption through the
 * abstract key API (gnutls_privkey_t / gnutls_pubkey_t). */
#include "gnutls_adapter.h"

#include <gnutls/abstract.h>
#include <gnutls/x509.h>
#include <gmp.h>
#include <nettle/bignum.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/eddsa.h>
#include <stdlib.h>
#include <string.h>

enum { K_RSA, K_EC, K_ED25519 };

static const struct {
    const char *name;
    tb_kind kind;
    int key;
    unsigned bits;                /* RSA modulus bits */
    gnutls_ecc_curve_t curve;     /* EC / Ed25519 */
    gnutls_sign_algorithm_t sign; /* SIG only */
} algs[] = {
    {"rsa2048-pkcs1-sha256", TB_KIND_SIG, K_RSA, 2048, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_RSA_SHA256},
    {"rsa3072-pkcs1-sha256", TB_KIND_SIG, K_RSA, 3072, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_RSA_SHA256},
    {"rsa2048-pss-sha256", TB_KIND_SIG, K_RSA, 2048, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_RSA_PSS_RSAE_SHA256},
    {"rsa3072-pss-sha256", TB_KIND_SIG, K_RSA, 3072, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_RSA_PSS_RSAE_SHA256},
    {"ecdsa-p256-sha256", TB_KIND_SIG, K_EC, 0, GNUTLS_ECC_CURVE_SECP256R1, GNUTLS_SIGN_ECDSA_SHA256},
    {"ecdsa-p384-sha384", TB_KIND_SIG, K_EC, 0, GNUTLS_ECC_CURVE_SECP384R1, GNUTLS_SIGN_ECDSA_SHA384},
    {"ed25519", TB_KIND_SIG, K_ED25519, 0, GNUTLS_ECC_CURVE_ED25519, GNUTLS_SIGN_EDDSA_ED25519},
    {"rsa2048-pkcs1v15", TB_KIND_PKE, K_RSA, 2048, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_UNKNOWN},
    {"rsa3072-pkcs1v15", TB_KIND_PKE, K_RSA, 3072, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_UNKNOWN},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int find_alg(tb_kind kind, const char *alg)
{
    for (size_t i = 0; i < NELEM(algs); i++) {
        if (algs[i].kind == kind && strcmp(algs[i].name, alg) == 0) return (int)i;
    }
    return -1;
}

static int pk_supports(tb_kind kind, const char *alg, const char *op)
{
    int a = find_alg(kind, alg);
    if (a < 0 || !tb_gnutls_listed(kind, alg, op)) return 0;
    if (algs[a].kind == TB_KIND_PKE) return 1; /* RSA encryption is always built */
    for (const gnutls_sign_algorithm_t *p = gnutls_sign_list(); *p; p++) {
        if (*p == algs[a].sign) return 1;
    }
    return 0;
}

typedef struct {
    tb_family_state base;
    int alg;
    enum { OP_SIGN, OP_VERIFY, OP_ENCRYPT, OP_DECRYPT } op;
    gnutls_privkey_t priv;
    gnutls_pubkey_t pub;
    gnutls_datum_t msg, sig;
    gnutls_datum_t res; /* allocated by GnuTLS on each run */
} pk_job;

static void drop_result(pk_job *s)
{
    gnutls_free(s->res.data);
    s->res.data = NULL;
    s->res.size = 0;
}

static tb_status run_pk(tb_family_state *j)
{
    pk_job *s = (pk_job *)j;
    gnutls_sign_algorithm_t sa = algs[s->alg].sign;
    int r;
    drop_result(s);
    s->base.out = NULL;
    s->base.out_len = 0;
    switch (s->op) {
    case OP_SIGN:
        r = gnutls_privkey_sign_data2(s->priv, sa, 0, &s->msg, &s->res);
        if (r < 0) return tb_gnutls_fail("gnutls_privkey_sign_data2", r);
        break;
    case OP_VERIFY:
        r = gnutls_pubkey_verify_data2(s->pub, sa, 0, &s->msg, &s->sig);
        if (r == GNUTLS_E_PK_SIG_VERIFY_FAILED) {
            tb_set_error("gnutls_pubkey_verify_data2: %s", gnutls_strerror(r));
            return TB_REJECT;
        }
        if (r < 0) return tb_gnutls_fail("gnutls_pubkey_verify_data2", r);
        return TB_OK;
    case OP_ENCRYPT:
        r = gnutls_pubkey_encrypt_data(s->pub, 0, &s->msg, &s->res);
        if (r < 0) return tb_gnutls_fail("gnutls_pubkey_encrypt_data", r);
        break;
    case OP_DECRYPT:
        r = gnutls_privkey_decrypt_data(s->priv, 0, &s->msg, &s->res);
        if (r == GNUTLS_E_DECRYPTION_FAILED) {
            tb_set_error("gnutls_privkey_decrypt_data: %s", gnutls_strerror(r));
            return TB_REJECT;
        }
        if (r < 0) return tb_gnutls_fail("gnutls_privkey_decrypt_data", r);
        break;
    }
    s->base.out = s->res.data;
    s->base.out_len = s->res.size;
    return TB_OK;
}

static void release_pk(tb_family_state *j)
{
    pk_job *s = (pk_job *)j;
    drop_result(s);
    if (s->priv) gnutls_privkey_deinit(s->priv);
    if (s->pub) gnutls_pubkey_deinit(s->pub);
    free(s->msg.data);
    free(s->sig.data);
    free(s);
}

static tb_status load_rsa(pk_job *s, tb_bytes der)
{
    gnutls_x509_privkey_t x509;
    int r = gnutls_x509_privkey_init(&x509);
    if (r < 0) return tb_gnutls_fail("gnutls_x509_privkey_init", r);
    gnutls_datum_t d = {(unsigned char *)der.data, (unsigned)der.len};
    r = gnutls_x509_privkey_import(x509, &d, GNUTLS_X509_FMT_DER);
    if (r < 0) {
        gnutls_x509_privkey_deinit(x509);
        tb_set_error("gnutls_x509_privkey_import: %s", gnutls_strerror(r));
        return TB_BAD_INPUT;
    }
    unsigned bits = 0;
    int pk = gnutls_x509_privkey_get_pk_algorithm2(x509, &bits);
    if (pk != GNUTLS_PK_RSA || bits != algs[s->alg].bits) {
        gnutls_x509_privkey_deinit(x509);
        tb_set_error("%s needs an RSA-%u key, got %s-%u", algs[s->alg].name, algs[s->alg].bits,
                     pk > 0 ? gnutls_pk_get_name(pk) : "?", bits);
        return TB_BAD_INPUT;
    }
    r = gnutls_privkey_import_x509(s->priv, x509, GNUTLS_PRIVKEY_IMPORT_AUTO_RELEASE);
    if (r < 0) {
        gnutls_x509_privkey_deinit(x509);
        return tb_gnutls_fail("gnutls_privkey_import_x509", r);
    }
    r = gnutls_pubkey_import_privkey(s->pub, s->priv, 0, 0);
    if (r < 0) return tb_gnutls_fail("gnutls_pubkey_import_privkey", r);
    return TB_OK;
}

/* GnuTLS cannot import a bare EC scalar or Ed25519 seed without its public
 * half, and has no public call that computes it; the public half is computed
 * here (untimed) with nettle, the library GnuTLS itself uses for this. */
static int ec_public_from_scalar(gnutls_ecc_curve_t curve, tb_bytes k, uint8_t *x, uint8_t *y, size_t n)
{
    const struct ecc_curve *c = curve == GNUTLS_ECC_CURVE_SECP256R1 ? nettle_get_secp_256r1() : nettle_get_secp_384r1();
    struct ecc_scalar sc;
    struct ecc_point p;
    mpz_t z, py;
    int ok;
    mpz_inits(z, py, NULL);
    nettle_mpz_set_str_256_u(z, k.len, k.data);
    ecc_scalar_init(&sc, c);
    ecc_point_init(&p, c);
    ok = ecc_scalar_set(&sc, z);
    if (ok) {
        ecc_point_mul_g(&p, &sc);
        ecc_point_get(&p, z, py);
        nettle_mpz_get_str_256(n, x, z);
        nettle_mpz_get_str_256(n, y, py);
    }
    ecc_point_clear(&p);
    ecc_scalar_clear(&sc);
    mpz_clears(z, py, NULL);
    return ok;
}

static tb_status load_ec(pk_job *s, const tb_job *job)
{
    gnutls_ecc_curve_t curve = algs[s->alg].curve;
    size_t n = gnutls_ecc_curve_get_size(curve);
    int ed = algs[s->alg].key == K_ED25519;
    uint8_t x[66], y[66];
    int r;

    if (job->pub.len) {
        if (ed ? job->pub.len != n : (job->pub.len != 2 * n + 1 || job->pub.data[0] != 0x04)) {
            return tb_gnutls_bad(ed ? "ed25519 public key must be 32 bytes" : "EC public key must be 0x04 || X || Y");
        }
        memcpy(x, job->pub.data + !ed, n);
        if (!ed) memcpy(y, job->pub.data + 1 + n, n);
    } else if (job->key.len == 0) {
        return tb_gnutls_bad("a private key or a public key is required");
    }
    if (job->key.len) {
        if (ed ? job->key.len != n : job->key.len > n) {
            return tb_gnutls_bad(ed ? "ed25519 private key must be the 32-byte seed" : "EC private scalar too long");
        }
        if (job->pub.len == 0) {
            if (ed) {
                ed25519_sha512_public_key(x, job->key.data);
            } else if (!ec_public_from_scalar(curve, job->key, x, y, n)) {
                return tb_gnutls_bad("EC private scalar out of range");
            }
        }
        gnutls_datum_t dx = {x, (unsigned)n}, dy = {y, (unsigned)n};
        gnutls_datum_t dk = {(unsigned char *)job->key.data, (unsigned)job->key.len};
        r = gnutls_privkey_import_ecc_raw(s->priv, curve, &dx, ed ? NULL : &dy, &dk);
        if (r < 0) {
            tb_set_error("gnutls_privkey_import_ecc_raw: %s", gnutls_strerror(r));
            return TB_BAD_INPUT;
        }
    }
    gnutls_datum_t dx = {x, (unsigned)n}, dy = {y, (unsigned)n};
    r = gnutls_pubkey_import_ecc_raw(s->pub, curve, &dx, ed ? NULL : &dy);
    if (r < 0) {
        tb_set_error("gnutls_pubkey_import_ecc_raw: %s", gnutls_strerror(r));
        return TB_BAD_INPUT;
    }
    return TB_OK;
}

static int copy_datum(gnutls_datum_t *d, tb_bytes b)
{
    d->data = tb_dup(b);
    d->size = (unsigned)b.len;
    return d->data != NULL;
}

static tb_status prepare_pk(const tb_job *job, tb_family_state **out)
{
    pk_job *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->base.fam = job->kind == TB_KIND_SIG ? &tb_gnutls_sig : &tb_gnutls_pke;
    s->alg = find_alg(job->kind, job->alg);
    if (job->kind == TB_KIND_SIG) {
        s->op = strcmp(job->op, "sign") == 0 ? OP_SIGN : OP_VERIFY;
    } else {
        s->op = strcmp(job->op, "encrypt") == 0 ? OP_ENCRYPT : OP_DECRYPT;
    }

    tb_status st = TB_ERROR;
    int r;
    if (!copy_datum(&s->msg, job->msg) || !copy_datum(&s->sig, job->sig)) goto fail;
    if ((r = gnutls_privkey_init(&s->priv)) < 0) {
        st = tb_gnutls_fail("gnutls_privkey_init", r);
        goto fail;
    }
    if ((r = gnutls_pubkey_init(&s->pub)) < 0) {
        st = tb_gnutls_fail("gnutls_pubkey_init", r);
        goto fail;
    }
    if (algs[s->alg].key == K_RSA) {
        st = load_rsa(s, job->key);
    } else {
        st = load_ec(s, job);
    }
    if (st != TB_OK) goto fail;

    size_t k = algs[s->alg].bits / 8;
    st = TB_BAD_INPUT;
    if (s->op == OP_SIGN && job->key.len == 0) {
        tb_set_error("signing needs the private key");
        goto fail;
    }
    if (s->op == OP_ENCRYPT && job->msg.len > k - 11) {
        tb_set_error("PKCS#1 v1.5 message longer than %zu bytes", k - 11);
        goto fail;
    }
    if (s->op == OP_DECRYPT && job->msg.len != k) {
        tb_set_error("RSA ciphertext must be %zu bytes, got %zu", k, job->msg.len);
        goto fail;
    }
    *out = &s->base;
    return TB_OK;
fail:
    release_pk(&s->base);
    return st;
}

static int sig_supports(const char *alg, const char *op)
{
    return pk_supports(TB_KIND_SIG, alg, op);
}

static int pke_supports(const char *alg, const char *op)
{
    return pk_supports(TB_KIND_PKE, alg, op);
}

const tb_family tb_gnutls_sig = {sig_supports, prepare_pk, run_pk, release_pk};
const tb_family tb_gnutls_pke = {pke_supports, prepare_pk, run_pk, release_pk};
