/* wolfSSL adapter: the primitives the core composes (tb_prim_ops): AES-CBC
 * and HMAC from wolfCrypt, as wolfSSL's own TLS 1.2 record code calls them. */
#include "wolfssl_adapter.h"
#include "tb/util.h"

#include <stdlib.h>

static int hmac_type(const char *alg)
{
#ifndef NO_SHA
    if (strcmp(alg, "hmac-sha1") == 0) return WC_SHA;
#endif
    if (strcmp(alg, "hmac-sha256") == 0) return WC_SHA256;
    return -1;
}

static int prim_supports(const char *alg)
{
#ifdef HAVE_AES_CBC
    if (strcmp(alg, "aes-128-cbc") == 0) return 1;
#endif
    return hmac_type(alg) >= 0;
}

typedef struct {
    Aes aes;
    int decrypt, live;
} cipher_t;

static void prim_cipher_free(void *ctx)
{
    cipher_t *c = ctx;
    if (c == NULL) return;
    if (c->live) wc_AesFree(&c->aes);
    free(c);
}

static tb_status prim_cipher_new(const char *alg, tb_bytes key, int decrypt, void **out)
{
    if (!prim_supports(alg) || strcmp(alg, "aes-128-cbc") != 0 || key.len != AES_BLOCK_SIZE) {
        return bad_len("aes-128-cbc key", key.len, "16 (and a build with AES-CBC)");
    }
    cipher_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->decrypt = decrypt;
    int ret = wc_AesInit(&c->aes, NULL, INVALID_DEVID);
    if (ret == 0) {
        c->live = 1;
        ret = wc_AesSetKey(&c->aes, key.data, AES_BLOCK_SIZE, NULL, decrypt ? AES_DECRYPTION : AES_ENCRYPTION);
    }
    if (ret != 0) {
        prim_cipher_free(c);
        return lib_fail("wc_AesInit/wc_AesSetKey", ret);
    }
    *out = c;
    return TB_OK;
}

static tb_status prim_cipher_run(void *ctx, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
#ifdef HAVE_AES_CBC
    cipher_t *c = ctx;
    int ret = wc_AesSetIV(&c->aes, iv);
    if (ret != 0) return lib_fail("wc_AesSetIV", ret);
    ret = c->decrypt ? wc_AesCbcDecrypt(&c->aes, out, in, (word32)len) : wc_AesCbcEncrypt(&c->aes, out, in, (word32)len);
    return ret == 0 ? TB_OK : lib_fail(c->decrypt ? "wc_AesCbcDecrypt" : "wc_AesCbcEncrypt", ret);
#else
    (void)ctx, (void)iv, (void)in, (void)out, (void)len;
    return TB_UNSUPPORTED;
#endif
}

typedef struct {
    Hmac hmac;
    int live;
} mac_t;

static void prim_mac_free(void *ctx)
{
    mac_t *m = ctx;
    if (m == NULL) return;
    if (m->live) wc_HmacFree(&m->hmac);
    free(m);
}

static tb_status prim_mac_new(const char *alg, tb_bytes key, void **out)
{
    int type = hmac_type(alg);
    if (type < 0) {
        tb_set_error("%s is not a primitive of this build", alg);
        return TB_UNSUPPORTED;
    }
    mac_t *m = tb_zalloc(sizeof(*m));
    if (m == NULL) return TB_ERROR;
    int ret = wc_HmacInit(&m->hmac, NULL, INVALID_DEVID);
    if (ret == 0) {
        m->live = 1;
        ret = wc_HmacSetKey(&m->hmac, type, key.data, (word32)key.len);
    }
    if (ret != 0) {
        prim_mac_free(m);
        return lib_fail("wc_HmacInit/wc_HmacSetKey", ret);
    }
    *out = m;
    return TB_OK;
}

/* wc_HmacFinal leaves the context keyed for the next message. */
static tb_status prim_mac_run(void *ctx, tb_bytes a, tb_bytes b, uint8_t *tag)
{
    mac_t *m = ctx;
    int ret;
    if ((ret = wc_HmacUpdate(&m->hmac, a.data, (word32)a.len)) != 0 ||
        (ret = wc_HmacUpdate(&m->hmac, b.data, (word32)b.len)) != 0 || (ret = wc_HmacFinal(&m->hmac, tag)) != 0) {
        return lib_fail("wc_Hmac", ret);
    }
    return TB_OK;
}

const tb_prim_ops tb_library_prims = {
    .supports = prim_supports,
    .cipher_new = prim_cipher_new,
    .cipher_run = prim_cipher_run,
    .cipher_free = prim_cipher_free,
    .mac_new = prim_mac_new,
    .mac_run = prim_mac_run,
    .mac_free = prim_mac_free,
};
