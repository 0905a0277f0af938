/* wolfSSL adapter, timed part: run() for every family. Everything here
 * repeats on one prepared state (IVs and nonces are set on every call). */
#include "wolfssl_adapter.h"

static tb_status run_aead(state *s)
{
    const uint8_t *in = s->msg.data, *n = s->nonce.data, *aad = s->aad.data;
    word32 nl = (word32)s->nonce.len, al = (word32)s->aad.len;
    int ret;
    if (s->op == OP_ENC) {
        word32 len = (word32)s->msg.len;
        uint8_t *tag = s->out + len;
        switch (s->alg->fam) {
        case F_GCM:
            ret = wc_AesGcmEncrypt(&s->u.aes, s->out, in, len, n, nl, tag, 16, aad, al);
            if (ret != 0) return lib_fail("wc_AesGcmEncrypt", ret);
            break;
        case F_CCM:
            ret = wc_AesCcmEncrypt(&s->u.aes, s->out, in, len, n, nl, tag, 16, aad, al);
            if (ret != 0) return lib_fail("wc_AesCcmEncrypt", ret);
            break;
        default:
            ret = wc_ChaCha20Poly1305_Encrypt(s->key, n, aad, al, in, len, s->out, tag);
            if (ret != 0) return lib_fail("wc_ChaCha20Poly1305_Encrypt", ret);
            break;
        }
        s->out_len = len + 16;
        return TB_OK;
    }
    word32 len = (word32)s->msg.len - 16;
    const uint8_t *tag = in + len;
    switch (s->alg->fam) {
    case F_GCM:
        ret = wc_AesGcmDecrypt(&s->u.aes, s->out, in, len, n, nl, tag, 16, aad, al);
        if (ret == AES_GCM_AUTH_E) return check_fail("wc_AesGcmDecrypt", ret);
        if (ret != 0) return lib_fail("wc_AesGcmDecrypt", ret);
        break;
    case F_CCM:
        ret = wc_AesCcmDecrypt(&s->u.aes, s->out, in, len, n, nl, tag, 16, aad, al);
        if (ret == AES_CCM_AUTH_E) return check_fail("wc_AesCcmDecrypt", ret);
        if (ret != 0) return lib_fail("wc_AesCcmDecrypt", ret);
        break;
    default:
        ret = wc_ChaCha20Poly1305_Decrypt(s->key, n, aad, al, in, len, tag, s->out);
        if (ret == MAC_CMP_FAILED_E) return check_fail("wc_ChaCha20Poly1305_Decrypt", ret);
        if (ret != 0) return lib_fail("wc_ChaCha20Poly1305_Decrypt", ret);
        break;
    }
    s->out_len = len;
    return TB_OK;
}

/* A received key share the TLS code would refuse (it answers with
 * ECC_PEERKEY_ERROR / PEER_KEY_ERROR): the job's peer value is bad. */
static tb_status peer_fail(const char *fn, int ret)
{
    if (ret == MEMORY_E || ret == BAD_FUNC_ARG) return lib_fail(fn, ret);
    tb_set_error("peer public key rejected by %s: %s (%d)", fn, wc_GetErrorString(ret), ret);
    return TB_BAD_INPUT;
}

static tb_status run_x25519(state *s)
{
    curve25519_key *k = &s->u.x25519.k;
    word32 len = CURVE25519_KEYSIZE;
    int ret;
    if (s->op == OP_PUBLIC) {
        ret = wc_curve25519_make_pub(CURVE25519_KEYSIZE, s->out, CURVE25519_KEYSIZE, s->key);
        if (ret != 0) return lib_fail("wc_curve25519_make_pub", ret);
        s->out_len = CURVE25519_KEYSIZE;
        return TB_OK;
    }
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        ret = wc_curve25519_make_key(&wolf_rng, CURVE25519_KEYSIZE, k);
        if (ret != 0) return lib_fail("wc_curve25519_make_key", ret);
    }
    if (s->op == OP_KEYGEN) {
        ret = wc_curve25519_export_public_ex(k, s->out, &len, EC25519_LITTLE_ENDIAN);
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
        ret = wc_curve25519_shared_secret_ex(k, peer, s->out, &len, EC25519_LITTLE_ENDIAN);
        wc_curve25519_free(peer);
        if (ret != 0) return lib_fail("wc_curve25519_shared_secret_ex", ret);
    }
    s->out_len = len;
    return TB_OK;
}

static tb_status run_x448(state *s)
{
    curve448_key *k = &s->u.x448.k;
    word32 len = CURVE448_KEY_SIZE;
    int ret;
    if (s->op == OP_PUBLIC) {
        ret = wc_curve448_make_pub(CURVE448_PUB_KEY_SIZE, s->out, CURVE448_KEY_SIZE, s->key);
        if (ret != 0) return lib_fail("wc_curve448_make_pub", ret);
        s->out_len = CURVE448_PUB_KEY_SIZE;
        return TB_OK;
    }
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        ret = wc_curve448_make_key(&wolf_rng, CURVE448_KEY_SIZE, k);
        if (ret != 0) return lib_fail("wc_curve448_make_key", ret);
    }
    if (s->op == OP_KEYGEN) {
        ret = wc_curve448_export_public_ex(k, s->out, &len, EC448_LITTLE_ENDIAN);
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
        ret = wc_curve448_shared_secret_ex(k, peer, s->out, &len, EC448_LITTLE_ENDIAN);
        wc_curve448_free(peer);
        if (ret != 0) return lib_fail("wc_curve448_shared_secret_ex", ret);
    }
    s->out_len = len;
    return TB_OK;
}

static tb_status run_ecdh(state *s)
{
    ecc_key *k = &s->u.ecc.k;
    word32 n = (word32)s->alg->size, len = 1 + 2 * n;
    int ret;
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        /* A fresh key object per key pair, as a TLS handshake uses. */
        wc_ecc_free(k);
        if ((ret = wc_ecc_init(k)) != 0) return lib_fail("wc_ecc_init", ret);
        if ((ret = wc_ecc_make_key_ex(&wolf_rng, (int)n, k, s->alg->param)) != 0) {
            return lib_fail("wc_ecc_make_key_ex", ret);
        }
        if ((ret = wc_ecc_set_rng(k, &wolf_rng)) != 0) return lib_fail("wc_ecc_set_rng", ret);
    } else if (s->op == OP_PUBLIC) {
        if ((ret = wc_ecc_make_pub_ex(k, NULL, &wolf_rng)) != 0) return lib_fail("wc_ecc_make_pub_ex", ret);
    }
    if (s->op == OP_KEYGEN || s->op == OP_PUBLIC) {
        if ((ret = wc_ecc_export_x963(k, s->out, &len)) != 0) return lib_fail("wc_ecc_export_x963", ret);
    } else {
        /* Peer share as src/tls.c TLSX_KeyShare_ProcessEcc takes it: init, import_x963_ex (no wc_ecc_check_key; it validates only with WOLFSSL_VALIDATE_ECC_IMPORT, unset here), then internal.c EccSharedSecret, free. */
        ecc_key *peer = &s->u.ecc.peer;
        if ((ret = wc_ecc_init(peer)) != 0) return lib_fail("wc_ecc_init", ret);
        s->u.ecc.peer_live = 1;
        ret = wc_ecc_import_x963_ex(s->peer.data, (word32)s->peer.len, peer, s->alg->param);
        if (ret == 0) {
            len = n;
            ret = wc_ecc_shared_secret(k, peer, s->out, &len);
            wc_ecc_free(peer);
            s->u.ecc.peer_live = 0;
            if (ret != 0) return lib_fail("wc_ecc_shared_secret", ret);
        } else {
            wc_ecc_free(peer);
            s->u.ecc.peer_live = 0;
            return peer_fail("wc_ecc_import_x963_ex", ret);
        }
    }
    s->out_len = len;
    return TB_OK;
}

static tb_status run_ffdhe(state *s)
{
    DhKey *key = &s->u.dh.key;
    word32 n = (word32)s->alg->size, len = n;
    const uint8_t *peer = s->peer.data;
    word32 peer_len = (word32)s->peer.len;
    int ret;
    if (s->op == OP_KEYGEN || s->op == OP_EXCHANGE) {
        s->u.dh.priv_len = sizeof(s->u.dh.priv);
        ret = wc_DhGenerateKeyPair(key, &wolf_rng, s->u.dh.priv, &s->u.dh.priv_len, s->out, &len);
        if (ret != 0) return lib_fail("wc_DhGenerateKeyPair", ret);
        if (s->op == OP_KEYGEN) {
            left_pad(s->out, len, n);
            s->out_len = n;
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
    ret = wc_DhAgree(key, s->out, &len, s->u.dh.priv, s->u.dh.priv_len, peer, peer_len);
    if (ret != 0) return lib_fail("wc_DhAgree", ret);
    left_pad(s->out, len, n);
    s->out_len = n;
    return TB_OK;
}

static tb_status run_sig(state *s)
{
    const alg_info *a = s->alg;
    word32 hlen = 0, k = (word32)a->size / 8;
    int ret, res = 0;
    if (a->fam != F_ED25519) {
        hlen = (word32)hash_size(a->hash);
        ret = wc_Hash((enum wc_HashType)a->hash, s->msg.data, (word32)s->msg.len, s->digest, hlen);
        if (ret != 0) return lib_fail("wc_Hash", ret);
    }
    s->out_len = 0;
    switch (a->fam) {
    case F_RSA_PKCS1: {
        uint8_t enc[128]; /* DigestInfo: ASN.1 prefix + digest */
        word32 enc_len = wc_EncodeSignature(enc, s->digest, hlen, wc_GetCTC_HashOID(a->hash));
        if (enc_len == 0) return lib_fail("wc_EncodeSignature", BAD_FUNC_ARG);
        if (s->op == OP_SIGN) {
            ret = wc_RsaSSL_Sign(enc, enc_len, s->out, k, &s->u.rsa, &wolf_rng);
            if (ret < 0) return lib_fail("wc_RsaSSL_Sign", ret);
            s->out_len = (size_t)ret;
            return TB_OK;
        }
        ret = wc_RsaSSL_Verify(s->sig.data, k, s->out, k, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaSSL_Verify", ret);
        if ((word32)ret != enc_len || memcmp(s->out, enc, enc_len) != 0) {
            tb_set_error("RSA PKCS#1 v1.5 signature does not match the message");
            return TB_REJECT;
        }
        return TB_OK;
    }
    case F_RSA_PSS:
        /* MGF1 with the same hash, salt length = hash length. */
        if (s->op == OP_SIGN) {
            ret = wc_RsaPSS_Sign_ex(s->digest, hlen, s->out, k, (enum wc_HashType)a->hash, WC_MGF1SHA256, (int)hlen,
                                    &s->u.rsa, &wolf_rng);
            if (ret < 0) return lib_fail("wc_RsaPSS_Sign_ex", ret);
            s->out_len = (size_t)ret;
            return TB_OK;
        }
        ret = wc_RsaPSS_Verify_ex((byte *)s->sig.data, k, s->out, k, (enum wc_HashType)a->hash, WC_MGF1SHA256,
                                  (int)hlen, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaPSS_Verify_ex", ret);
        ret = wc_RsaPSS_CheckPadding_ex(s->digest, hlen, s->out, (word32)ret, (enum wc_HashType)a->hash, (int)hlen,
                                        a->size);
        return ret == 0 ? TB_OK : check_fail("wc_RsaPSS_CheckPadding_ex", ret);
    case F_ECDSA:
        if (s->op == OP_SIGN) {
            word32 len = 2 * (word32)a->size + 16;
            ret = wc_ecc_sign_hash(s->digest, hlen, s->out, &len, &wolf_rng, &s->u.ecc.k);
            if (ret != 0) return lib_fail("wc_ecc_sign_hash", ret);
            s->out_len = len;
            return TB_OK;
        }
        ret = wc_ecc_verify_hash(s->sig.data, (word32)s->sig.len, s->digest, hlen, &res, &s->u.ecc.k);
        if (ret != 0) return check_fail("wc_ecc_verify_hash", ret);
        break;
    default: /* F_ED25519 */
        if (s->op == OP_SIGN) {
            word32 len = ED25519_SIG_SIZE;
            ret = wc_ed25519_sign_msg(s->msg.data, (word32)s->msg.len, s->out, &len, &s->u.ed);
            if (ret != 0) return lib_fail("wc_ed25519_sign_msg", ret);
            s->out_len = len;
            return TB_OK;
        }
        ret = wc_ed25519_verify_msg(s->sig.data, ED25519_SIG_SIZE, s->msg.data, (word32)s->msg.len, &res, &s->u.ed);
        if (ret != 0) return check_fail("wc_ed25519_verify_msg", ret);
        break;
    }
    if (res != 1) {
        tb_set_error("signature does not verify");
        return TB_REJECT;
    }
    return TB_OK;
}

static tb_status run_pke(state *s)
{
    word32 k = (word32)s->alg->size / 8;
    int ret;
    if (s->op == OP_ENC) {
        ret = wc_RsaPublicEncrypt(s->msg.data, (word32)s->msg.len, s->out, k, &s->u.rsa, &wolf_rng);
        if (ret < 0) return lib_fail("wc_RsaPublicEncrypt", ret);
    } else {
        ret = wc_RsaPrivateDecrypt(s->msg.data, k, s->out, k, &s->u.rsa);
        if (ret < 0) return check_fail("wc_RsaPrivateDecrypt", ret);
    }
    s->out_len = (size_t)ret;
    return TB_OK;
}

tb_status wolf_run(void *p)
{
    state *s = p;
    int ret;
    switch (s->alg->fam) {
    case F_HASH:
        ret = wc_Hash((enum wc_HashType)s->alg->hash, s->msg.data, (word32)s->msg.len, s->out, WC_MAX_DIGEST_SIZE);
        if (ret != 0) return lib_fail("wc_Hash", ret);
        s->out_len = (size_t)hash_size(s->alg->hash);
        return TB_OK;
    case F_HMAC:
        if ((ret = wc_HmacUpdate(&s->u.hmac, s->msg.data, (word32)s->msg.len)) != 0) {
            return lib_fail("wc_HmacUpdate", ret);
        }
        if ((ret = wc_HmacFinal(&s->u.hmac, s->out)) != 0) return lib_fail("wc_HmacFinal", ret);
        s->out_len = WC_SHA256_DIGEST_SIZE;
        return TB_OK;
    case F_GCM:
    case F_CCM:
    case F_CHACHAPOLY: return run_aead(s);
    case F_X25519: return run_x25519(s);
    case F_X448: return run_x448(s);
    case F_ECDH: return run_ecdh(s);
    case F_FFDHE: return run_ffdhe(s);
    case F_RSA_PKCS1:
    case F_RSA_PSS:
    case F_ECDSA:
    case F_ED25519: return run_sig(s);
    case F_RSA_PKE: return run_pke(s);
    }
    return TB_ERROR;
}
