/* wolfSSL adapter: key exchange (X25519, X448, P-256/P-384 ECDH, RFC 7919
 * ffdhe) with wolfCrypt. derive/exchange keep the peer's public value as
 * bytes: run() imports and checks it as wolfSSL's TLS code does. */
#include "wolfssl_adapter.h"
#include "tb/util.h"

#include <stdlib.h>

/* One table per curve type, so the timed call reaches its run with no
 * dispatch of ours (kex_fill points the state at it; tb_wolfssl_kex has no
 * run). */
static const tb_family x25519_kex, x448_kex, ecdh_kex, ffdhe_kex;

static tb_status kex_fill(state *s, const tb_job *job)
{
    const alg_info *a = s->alg;
    size_t n = (size_t)a->size;
    size_t pub_len = a->fam == F_ECDH ? 1 + 2 * n : n;
    int need_priv = s->op == OP_PUBLIC || s->op == OP_DERIVE;
    int need_peer = s->op == OP_DERIVE || s->op == OP_EXCHANGE;
    word32 len;
    int ret;

    if (need_priv && (a->fam == F_FFDHE ? job->key.len == 0 || job->key.len > n : job->key.len != n)) {
        return bad_len("private key", job->key.len, a->fam == F_FFDHE ? "1 to the prime length" : "the scalar size");
    }
    if (need_peer && job->peer.len != pub_len) return bad_len("peer public key", job->peer.len, "the public key size");
    /* The peer value stays bytes (s->peer): run() decodes and checks it as
     * wolfSSL's TLS code does for a received key share (see the *_run functions below). */
    if (tb_wolfssl_alloc_out(s, pub_len) != TB_OK) return TB_ERROR;

    switch (a->fam) {
    case F_X25519:
        s->base.fam = &x25519_kex;
        wc_curve25519_init(&s->u.x25519.k);
        wc_curve25519_init(&s->u.x25519.peer);
        s->live = 1;
        if (need_priv) {
            /* RFC 7748 byte order; wolfSSL clamps the scalar on import. */
            ret = wc_curve25519_import_private_ex(job->key.data, (word32)n, &s->u.x25519.k, EC25519_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve25519_import_private_ex", ret);
            len = sizeof(s->key);
            ret = wc_curve25519_export_private_raw_ex(&s->u.x25519.k, s->key, &len, EC25519_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve25519_export_private_raw_ex", ret);
        }
        return TB_OK;
    case F_X448:
        s->base.fam = &x448_kex;
        wc_curve448_init(&s->u.x448.k);
        wc_curve448_init(&s->u.x448.peer);
        s->live = 1;
        if (need_priv) {
            ret = wc_curve448_import_private_ex(job->key.data, (word32)n, &s->u.x448.k, EC448_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve448_import_private_ex", ret);
            len = sizeof(s->key);
            ret = wc_curve448_export_private_raw_ex(&s->u.x448.k, s->key, &len, EC448_LITTLE_ENDIAN);
            if (ret != 0) return lib_fail("wc_curve448_export_private_raw_ex", ret);
        }
        return TB_OK;
    case F_ECDH:
        s->base.fam = &ecdh_kex;
        ret = TB_WOLFSSL_ECC_INIT(&s->u.ecc.k);
        if (ret != 0) return lib_fail("wc_ecc_init", ret);
        s->live = 1;
        if (need_priv) {
            ret = wc_ecc_import_private_key_ex(job->key.data, (word32)n, NULL, 0, &s->u.ecc.k, a->param);
            if (ret != 0) return lib_fail("wc_ecc_import_private_key_ex", ret);
            ret = wc_ecc_set_rng(&s->u.ecc.k, &tb_wolfssl_rng); /* blinding (ECC_TIMING_RESISTANT) */
            if (ret != 0) return lib_fail("wc_ecc_set_rng", ret);
        }
        return TB_OK;
    default: /* F_FFDHE */
        s->base.fam = &ffdhe_kex;
        ret = wc_InitDhKey(&s->u.dh.key);
        if (ret != 0) return lib_fail("wc_InitDhKey", ret);
        s->live = 1;
        ret = wc_DhSetNamedKey(&s->u.dh.key, a->param);
        if (ret != 0) return lib_fail("wc_DhSetNamedKey", ret);
        if (need_priv) {
            memcpy(s->u.dh.priv, job->key.data, job->key.len);
            s->u.dh.priv_len = (word32)job->key.len;
        }
        s->u.dh.gen[0] = 2; /* the RFC 7919 generator */
        return TB_OK;
    }
}

static tb_status peer_fail(const char *fn, int ret)
{
    if (ret == MEMORY_E || ret == BAD_FUNC_ARG) return lib_fail(fn, ret);
    tb_set_error("peer public key rejected by %s: %s (%d)", fn, wc_GetErrorString(ret), ret);
    return TB_BAD_INPUT;
}

tb_status tb_wolfssl_x25519_run(tb_family_state *base)
{
    state *s = (state *)base;
    curve25519_key *k = &s->u.x25519.k;
    word32 len = CURVE25519_KEYSIZE;
    int ret;
    if (s->op == OP_PUBLIC) {
#ifdef WOLFSSL_CURVE25519_BLINDING
        /* wolfSSL 5.9 blinds the C ladder (settings.h: on where no asm or small
           code is built, e.g. Cortex-M): with our RNG, as wc_curve25519_make_key
           does, not a DRBG instantiated per call as wc_curve25519_make_pub would */
        ret = wc_curve25519_make_pub_blind(CURVE25519_KEYSIZE, out_buf(s), CURVE25519_KEYSIZE, s->key,
                                           &tb_wolfssl_rng);
#else
        ret = wc_curve25519_make_pub(CURVE25519_KEYSIZE, out_buf(s), CURVE25519_KEYSIZE, s->key);
#endif
        if (ret != 0) return lib_fail("wc_curve25519_make_pub", ret);
        s->base.out_len = CURVE25519_KEYSIZE;
        return TB_OK;
    }
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        ret = wc_curve25519_make_key(&tb_wolfssl_rng, CURVE25519_KEYSIZE, k);
        if (ret != 0) return lib_fail("wc_curve25519_make_key", ret);
    }
    if (s->op == OP_KEYGEN) {
        ret = wc_curve25519_export_public_ex(k, out_buf(s), &len, EC25519_LITTLE_ENDIAN);
        if (ret != 0) return lib_fail("wc_curve25519_export_public_ex", ret);
    } else {
        /* Peer share as src/tls.c TLSX_KeyShare_ProcessX25519 takes it: check_public, init, import_public_ex, shared_secret_ex, free. */
        curve25519_key *peer = &s->u.x25519.peer;
        const uint8_t *pub = s->peer.data;
        ret = wc_curve25519_check_public(pub, CURVE25519_KEYSIZE, EC25519_LITTLE_ENDIAN);
        if (ret != 0) return peer_fail("wc_curve25519_check_public", ret);
        if ((ret = wc_curve25519_init(peer)) != 0) return lib_fail("wc_curve25519_init", ret);
        ret = wc_curve25519_import_public_ex(pub, CURVE25519_KEYSIZE, peer, EC25519_LITTLE_ENDIAN);
        if (ret != 0) {
            wc_curve25519_free(peer);
            return peer_fail("wc_curve25519_import_public_ex", ret);
        }
#ifdef WOLFSSL_CURVE25519_BLINDING
        /* the blinded ladder draws from the private key's RNG (src/tls.c sets it the same way) */
        ret = wc_curve25519_set_rng(k, &tb_wolfssl_rng);
        if (ret != 0) {
            wc_curve25519_free(peer);
            return lib_fail("wc_curve25519_set_rng", ret);
        }
#endif
        ret = wc_curve25519_shared_secret_ex(k, peer, out_buf(s), &len, EC25519_LITTLE_ENDIAN);
        wc_curve25519_free(peer);
        if (ret != 0) return lib_fail("wc_curve25519_shared_secret_ex", ret);
    }
    s->base.out_len = len;
    return TB_OK;
}

tb_status tb_wolfssl_x448_run(tb_family_state *base)
{
    state *s = (state *)base;
    curve448_key *k = &s->u.x448.k;
    word32 len = CURVE448_KEY_SIZE;
    int ret;
    if (s->op == OP_PUBLIC) {
        ret = wc_curve448_make_pub(CURVE448_PUB_KEY_SIZE, out_buf(s), CURVE448_KEY_SIZE, s->key);
        if (ret != 0) return lib_fail("wc_curve448_make_pub", ret);
        s->base.out_len = CURVE448_PUB_KEY_SIZE;
        return TB_OK;
    }
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        ret = wc_curve448_make_key(&tb_wolfssl_rng, CURVE448_KEY_SIZE, k);
        if (ret != 0) return lib_fail("wc_curve448_make_key", ret);
    }
    if (s->op == OP_KEYGEN) {
        ret = wc_curve448_export_public_ex(k, out_buf(s), &len, EC448_LITTLE_ENDIAN);
        if (ret != 0) return lib_fail("wc_curve448_export_public_ex", ret);
    } else {
        /* Peer share as src/tls.c TLSX_KeyShare_ProcessX448 takes it: check_public, init, import_public_ex, shared_secret_ex, free. */
        curve448_key *peer = &s->u.x448.peer;
        const uint8_t *pub = s->peer.data;
        ret = wc_curve448_check_public(pub, CURVE448_PUB_KEY_SIZE, EC448_LITTLE_ENDIAN);
        if (ret != 0) return peer_fail("wc_curve448_check_public", ret);
        if ((ret = wc_curve448_init(peer)) != 0) return lib_fail("wc_curve448_init", ret);
        ret = wc_curve448_import_public_ex(pub, CURVE448_PUB_KEY_SIZE, peer, EC448_LITTLE_ENDIAN);
        if (ret != 0) {
            wc_curve448_free(peer);
            return peer_fail("wc_curve448_import_public_ex", ret);
        }
        ret = wc_curve448_shared_secret_ex(k, peer, out_buf(s), &len, EC448_LITTLE_ENDIAN);
        wc_curve448_free(peer);
        if (ret != 0) return lib_fail("wc_curve448_shared_secret_ex", ret);
    }
    s->base.out_len = len;
    return TB_OK;
}

tb_status tb_wolfssl_ecdh_run(tb_family_state *base)
{
    state *s = (state *)base;
    ecc_key *k = &s->u.ecc.k;
    word32 n = (word32)s->alg->size, len = 1 + 2 * n;
    int ret;
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        /* A fresh key object per key pair, as a TLS handshake uses. */
        wc_ecc_free(k);
        if ((ret = TB_WOLFSSL_ECC_INIT(k)) != 0) return lib_fail("wc_ecc_init", ret);
        if ((ret = wc_ecc_make_key_ex(&tb_wolfssl_rng, (int)n, k, s->alg->param)) != 0) {
            return lib_fail("wc_ecc_make_key_ex", ret);
        }
        if ((ret = wc_ecc_set_rng(k, &tb_wolfssl_rng)) != 0) return lib_fail("wc_ecc_set_rng", ret);
    } else if (s->op == OP_PUBLIC) {
        if ((ret = wc_ecc_make_pub_ex(k, NULL, &tb_wolfssl_rng)) != 0) return lib_fail("wc_ecc_make_pub_ex", ret);
    }
    if (s->op == OP_KEYGEN || s->op == OP_PUBLIC) {
        if ((ret = wc_ecc_export_x963(k, out_buf(s), &len)) != 0) return lib_fail("wc_ecc_export_x963", ret);
    } else {
        /* Peer share as src/tls.c TLSX_KeyShare_ProcessEcc takes it: init, import_x963_ex (no wc_ecc_check_key; it validates only with WOLFSSL_VALIDATE_ECC_IMPORT, unset here), then internal.c EccSharedSecret, free. */
        ecc_key *peer = &s->u.ecc.peer;
        if ((ret = wc_ecc_init(peer)) != 0) return lib_fail("wc_ecc_init", ret);
        s->u.ecc.peer_live = 1;
        ret = wc_ecc_import_x963_ex(s->peer.data, (word32)s->peer.len, peer, s->alg->param);
        if (ret == 0) {
            len = n;
            ret = wc_ecc_shared_secret(k, peer, out_buf(s), &len);
            wc_ecc_free(peer);
            s->u.ecc.peer_live = 0;
            if (ret != 0) return lib_fail("wc_ecc_shared_secret", ret);
        } else {
            wc_ecc_free(peer);
            s->u.ecc.peer_live = 0;
            return peer_fail("wc_ecc_import_x963_ex", ret);
        }
    }
    s->base.out_len = len;
    return TB_OK;
}

tb_status tb_wolfssl_ffdhe_run(tb_family_state *base)
{
    state *s = (state *)base;
    DhKey *key = &s->u.dh.key;
    word32 n = (word32)s->alg->size, len = n;
    const uint8_t *peer = s->peer.data;
    word32 peer_len = (word32)s->peer.len;
    int ret;
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        s->u.dh.priv_len = sizeof(s->u.dh.priv);
        ret = wc_DhGenerateKeyPair(key, &tb_wolfssl_rng, s->u.dh.priv, &s->u.dh.priv_len, out_buf(s), &len);
        if (ret != 0) return lib_fail("wc_DhGenerateKeyPair", ret);
        if (s->op == OP_KEYGEN) {
            left_pad(out_buf(s), len, n);
            s->base.out_len = n;
            return TB_OK;
        }
        len = n;
    } else if (s->op == OP_PUBLIC) {
        /* wolfCrypt has no public-from-private call for DH: g^x mod p is
         * the agreement of x with the generator as the peer value. */
        peer = s->u.dh.gen;
        peer_len = 1;
    }
    if (s->op != OP_PUBLIC) {
        /* As src/tls.c TLSX_KeyShare_ProcessDh -> internal.c DhAgree (no prime given): wc_DhCheckPubKey, then wc_DhAgree. */
        ret = wc_DhCheckPubKey(key, peer, peer_len);
        if (ret != 0) return peer_fail("wc_DhCheckPubKey", ret);
    }
    ret = wc_DhAgree(key, out_buf(s), &len, s->u.dh.priv, s->u.dh.priv_len, peer, peer_len);
    if (ret != 0) return lib_fail("wc_DhAgree", ret);
    left_pad(out_buf(s), len, n);
    s->base.out_len = n;
    return TB_OK;
}

static void kex_release(tb_family_state *base)
{
    state *s = (state *)base;
    if (s->live) {
        switch (s->alg->fam) {
        case F_X25519:
            wc_curve25519_free(&s->u.x25519.k);
            wc_curve25519_free(&s->u.x25519.peer);
            break;
        case F_X448:
            wc_curve448_free(&s->u.x448.k);
            wc_curve448_free(&s->u.x448.peer);
            break;
        case F_ECDH:
            wc_ecc_free(&s->u.ecc.k);
            if (s->u.ecc.peer_live) wc_ecc_free(&s->u.ecc.peer); /* run() frees it; a guard */
            break;
        default: wc_FreeDhKey(&s->u.dh.key); break;
        }
    }
    tb_wolfssl_free(s);
}

TB_WOLFSSL_FAMILY(kex, TB_KIND_KEX, kex_fill, NULL, kex_release);
static const tb_family x25519_kex = {kex_supports, kex_prepare, tb_wolfssl_x25519_run, kex_release};
static const tb_family x448_kex = {kex_supports, kex_prepare, tb_wolfssl_x448_run, kex_release};
static const tb_family ecdh_kex = {kex_supports, kex_prepare, tb_wolfssl_ecdh_run, kex_release};
static const tb_family ffdhe_kex = {kex_supports, kex_prepare, tb_wolfssl_ffdhe_run, kex_release};
