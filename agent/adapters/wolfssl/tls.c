/* wolfSSL TLS endpoints over the core's in-memory transport (wolfSSL's
 * custom I/O callbacks). Mirrors adapters/openssl/tls.c: version pinned,
 * exactly one suite (by IANA name), exactly one group (or wolfSSL's
 * default), server chain + PKCS#8 key, client trust root + SNI + host name
 * check. Everything else is wolfSSL's default. */
#include "tb/tls.h"
#include "tb/util.h"

#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/ssl.h>
#include <wolfssl/wolfcrypt/error-crypt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    WOLFSSL_CTX *ctx;
    tb_side side;
    char name[256];
} endpoint_t;

typedef struct {
    WOLFSSL *ssl;
    tb_transport tr;
    int verify_error; /* the certificate verification failure, 0 if none */
    int verify_depth;
} conn_t;

static int wolf_ready;

static tb_status ensure_init(void)
{
    if (!wolf_ready) {
        int ret = wolfSSL_Init();
        if (ret != WOLFSSL_SUCCESS) {
            tb_set_error("wolfSSL_Init: %s (%d)", wc_GetErrorString(ret), ret);
            return TB_ERROR;
        }
        wolf_ready = 1;
    }
    return TB_OK;
}

/* wolfSSL's text for a (TLS or wolfCrypt) error code. */
static void error_text(int err, char *buf, size_t len)
{
    wolfSSL_ERR_error_string_n((unsigned long)(long)err, buf, (unsigned long)len);
}

static const char *alert_name(int code)
{
    switch (code) {
    case 0: return "close_notify";
    case 10: return "unexpected_message";
    case 20: return "bad_record_mac";
    case 22: return "record_overflow";
    case 40: return "handshake_failure";
    case 42: return "bad_certificate";
    case 43: return "unsupported_certificate";
    case 44: return "certificate_revoked";
    case 45: return "certificate_expired";
    case 46: return "certificate_unknown";
    case 47: return "illegal_parameter";
    case 48: return "unknown_ca";
    case 49: return "access_denied";
    case 50: return "decode_error";
    case 51: return "decrypt_error";
    case 70: return "protocol_version";
    case 71: return "insufficient_security";
    case 80: return "internal_error";
    case 86: return "inappropriate_fallback";
    case 90: return "user_canceled";
    case 109: return "missing_extension";
    case 110: return "unsupported_extension";
    case 112: return "unrecognized_name";
    case 116: return "certificate_required";
    case 120: return "no_application_protocol";
    default: return "alert";
    }
}

/* ---- the transport ---- */

static int io_send(WOLFSSL *ssl, char *buf, int sz, void *ctx)
{
    const tb_transport *tr = ctx;
    (void)ssl;
    long n = tr->send(tr->t, (const uint8_t *)buf, (size_t)sz);
    return n < 0 ? WOLFSSL_CBIO_ERR_GENERAL : (int)n;
}

static int io_recv(WOLFSSL *ssl, char *buf, int sz, void *ctx)
{
    const tb_transport *tr = ctx;
    (void)ssl;
    long n = tr->recv(tr->t, (uint8_t *)buf, (size_t)sz);
    if (n < 0) return WOLFSSL_CBIO_ERR_GENERAL;
    return n == 0 ? WOLFSSL_CBIO_ERR_WANT_READ : (int)n;
}

/* Called by wolfSSL when the peer's chain fails verification: keep the
 * reason, keep the failure. */
static int verify_cb(int preverify, WOLFSSL_X509_STORE_CTX *store)
{
    conn_t *c = store != NULL ? store->userCtx : NULL;
    if (!preverify && c != NULL && c->verify_error == 0) {
        c->verify_error = store->error;
        c->verify_depth = store->error_depth;
    }
    return preverify;
}

/* ---- configuration ---- */

static int group_id(const char *g)
{
    static const struct {
        const char *name;
        int id;
    } map[] = {{"x25519", WOLFSSL_ECC_X25519},   {"x448", WOLFSSL_ECC_X448},
               {"p256", WOLFSSL_ECC_SECP256R1},  {"p384", WOLFSSL_ECC_SECP384R1},
               {"ffdhe2048", WOLFSSL_FFDHE_2048}, {"ffdhe3072", WOLFSSL_FFDHE_3072}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(map[i].name, g) == 0) return map[i].id;
    }
    return -1;
}

static tb_status ctx_fail(const char *what, int ret)
{
    char buf[160] = "";
    error_text(ret, buf, sizeof(buf));
    tb_set_error("%s: %s (%d)", what, buf, ret);
    return TB_ERROR;
}

static tb_status load_server(WOLFSSL_CTX *ctx, const tb_tls_config *cfg)
{
    int ret = wolfSSL_CTX_use_certificate_chain_buffer_format(ctx, cfg->server_chain.data,
                                                              (long)cfg->server_chain.len, WOLFSSL_FILETYPE_PEM);
    if (ret != WOLFSSL_SUCCESS) return ctx_fail("server certificate chain", ret);
    ret = wolfSSL_CTX_use_PrivateKey_buffer(ctx, cfg->server_key.data, (long)cfg->server_key.len,
                                            WOLFSSL_FILETYPE_PEM);
    if (ret != WOLFSSL_SUCCESS) return ctx_fail("server key", ret);
    ret = wolfSSL_CTX_check_private_key(ctx);
    if (ret != WOLFSSL_SUCCESS) return ctx_fail("server key does not match the certificate", ret);
    return TB_OK;
}

static tb_status load_trust(WOLFSSL_CTX *ctx, const tb_tls_config *cfg)
{
    int ret = wolfSSL_CTX_load_verify_buffer(ctx, cfg->trust.data, (long)cfg->trust.len, WOLFSSL_FILETYPE_PEM);
    if (ret != WOLFSSL_SUCCESS) return ctx_fail("trust anchor", ret);
    wolfSSL_CTX_set_verify(ctx, WOLFSSL_VERIFY_PEER, verify_cb);
    return TB_OK;
}

static void free_endpoint(void *p)
{
    endpoint_t *e = p;
    if (e == NULL) return;
    wolfSSL_CTX_free(e->ctx);
    free(e);
}

/* The one suite, by IANA name, if this build has it for this version. */
static tb_status set_suite(WOLFSSL_CTX *ctx, const tb_tls_config *cfg)
{
    byte b0 = 0, b1 = 0;
    int flags = 0;
    if (wolfSSL_get_cipher_suite_from_name(cfg->suite, &b0, &b1, &flags) != 0) {
        tb_set_error("wolfSSL (as configured) has no suite %s", cfg->suite);
        return TB_UNSUPPORTED;
    }
    const char *iana = wolfSSL_get_cipher_name_iana_from_suite(b0, b1);
    if (iana == NULL || strcmp(iana, cfg->suite) != 0) {
        tb_set_error("wolfSSL (as configured) has no suite %s (not an IANA name)", cfg->suite);
        return TB_UNSUPPORTED;
    }
    int is13 = b0 == 0x13; /* TLS13_BYTE */
    if (is13 != (cfg->version == 13)) {
        tb_set_error("suite %s is not a TLS 1.%d suite", cfg->suite, cfg->version == 13 ? 3 : 2);
        return TB_UNSUPPORTED;
    }
    if (wolfSSL_CTX_set_cipher_list(ctx, cfg->suite) != WOLFSSL_SUCCESS) {
        tb_set_error("wolfSSL (as configured) has no TLS 1.%d suite %s", cfg->version == 13 ? 3 : 2, cfg->suite);
        return TB_UNSUPPORTED;
    }
    return TB_OK;
}

static tb_status endpoint_new(tb_side side, const tb_tls_config *cfg, void **out)
{
    tb_status st = ensure_init();
    if (st != TB_OK) return st;
    endpoint_t *e = tb_zalloc(sizeof(*e));
    if (e == NULL) return TB_ERROR;
    e->side = side;
    snprintf(e->name, sizeof(e->name), "%s", cfg->server_name);
    WOLFSSL_METHOD *m;
    if (cfg->version == 13) m = side == TB_SIDE_CLIENT ? wolfTLSv1_3_client_method() : wolfTLSv1_3_server_method();
    else m = side == TB_SIDE_CLIENT ? wolfTLSv1_2_client_method() : wolfTLSv1_2_server_method();
    e->ctx = m != NULL ? wolfSSL_CTX_new(m) : NULL; /* takes ownership of m */
    if (e->ctx == NULL) {
        free(e);
        tb_set_error("wolfSSL_CTX_new failed");
        return TB_ERROR;
    }
    wolfSSL_CTX_SetIORecv(e->ctx, io_recv);
    wolfSSL_CTX_SetIOSend(e->ctx, io_send);
    /* certificates first: they decide which suites the context can offer */
    st = side == TB_SIDE_SERVER ? load_server(e->ctx, cfg) : load_trust(e->ctx, cfg);
    if (st == TB_OK) st = set_suite(e->ctx, cfg);
    if (st == TB_OK && cfg->group != NULL) {
        int g = group_id(cfg->group);
        int ret = g < 0 ? -1 : wolfSSL_CTX_set_groups(e->ctx, &g, 1);
        if (ret != WOLFSSL_SUCCESS) {
            tb_set_error("wolfSSL (as configured) has no group %s", cfg->group);
            st = TB_UNSUPPORTED;
        }
    }
    if (st != TB_OK) {
        free_endpoint(e);
        return st;
    }
    *out = e;
    return TB_OK;
}

static void conn_free(void *p)
{
    conn_t *c = p;
    if (c == NULL) return;
    wolfSSL_free(c->ssl);
    free(c);
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
    (void)session; /* resumption: not yet */
    endpoint_t *e = ep;
    conn_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->tr = *tr;
    c->ssl = wolfSSL_new(e->ctx);
    if (c->ssl == NULL) {
        free(c);
        tb_set_error("wolfSSL_new failed");
        return TB_ERROR;
    }
    wolfSSL_SetIOReadCtx(c->ssl, &c->tr);
    wolfSSL_SetIOWriteCtx(c->ssl, &c->tr);
    if (e->side == TB_SIDE_CLIENT) {
        int ret;
        wolfSSL_SetCertCbCtx(c->ssl, c);
        if ((ret = wolfSSL_UseSNI(c->ssl, WOLFSSL_SNI_HOST_NAME, e->name, (word16)strlen(e->name))) !=
                WOLFSSL_SUCCESS ||
            (ret = wolfSSL_check_domain_name(c->ssl, e->name)) != WOLFSSL_SUCCESS) {
            conn_free(c);
            return ctx_fail("server name", ret);
        }
    }
    *out = c;
    return TB_OK;
}

static tb_status io_status(conn_t *c, int rc, const char *what)
{
    int err = wolfSSL_get_error(c->ssl, rc);
    if (err == WOLFSSL_ERROR_WANT_READ) return TB_WANT_READ;
    char text[160] = "", alert[96] = "", cert[200] = "";
    error_text(err, text, sizeof(text));
    WOLFSSL_ALERT_HISTORY h;
    memset(&h, 0, sizeof(h));
    if (wolfSSL_get_alert_history(c->ssl, &h) == WOLFSSL_SUCCESS) {
        if (h.last_rx.level == 2)
            snprintf(alert, sizeof(alert), ", received alert %s (%d)", alert_name(h.last_rx.code), h.last_rx.code);
        else if (h.last_tx.level == 2)
            snprintf(alert, sizeof(alert), ", sent alert %s (%d)", alert_name(h.last_tx.code), h.last_tx.code);
    }
    if (c->verify_error != 0) {
        char why[160] = "";
        error_text(c->verify_error, why, sizeof(why));
        snprintf(cert, sizeof(cert), "certificate verification failed at depth %d: %s (%d)", c->verify_depth, why,
                 c->verify_error);
        if (c->verify_error == err) {
            tb_set_error("%s: %s%s", what, cert, alert);
            return TB_ERROR;
        }
    }
    tb_set_error("%s: %s (%d)%s%s%s", what, text, err, alert, cert[0] ? ", " : "", cert);
    return TB_ERROR;
}

static tb_status step(void *p)
{
    conn_t *c = p;
    int rc = wolfSSL_is_server(c->ssl) ? wolfSSL_accept(c->ssl) : wolfSSL_connect(c->ssl);
    return rc == WOLFSSL_SUCCESS ? TB_OK : io_status(c, rc, wolfSSL_is_server(c->ssl) ? "wolfSSL_accept" : "wolfSSL_connect");
}

static tb_status tls_send(void *p, const uint8_t *data, size_t n)
{
    conn_t *c = p;
    if (n > 0x7fffffff) {
        tb_set_error("wolfSSL_write: %zu bytes is too many at once", n);
        return TB_ERROR;
    }
    int rc = wolfSSL_write(c->ssl, data, (int)n);
    return rc == (int)n ? TB_OK : io_status(c, rc, "wolfSSL_write");
}

static tb_status tls_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    *got = 0;
    int rc = wolfSSL_read(c->ssl, buf, cap > 0x7fffffff ? 0x7fffffff : (int)cap);
    if (rc > 0) {
        *got = (size_t)rc;
        return TB_OK;
    }
    return io_status(c, rc, "wolfSSL_read");
}

const tb_tls_ops tb_library_tls = {
    .endpoint_new = endpoint_new,
    .endpoint_free = free_endpoint,
    .conn_new = conn_new,
    .step = step,
    .send = tls_send,
    .recv = tls_recv,
    .conn_free = conn_free,
};
