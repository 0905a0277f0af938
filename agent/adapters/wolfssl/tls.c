/* wolfSSL TLS endpoints over the core's in-memory transport (wolfSSL's
 * custom I/O callbacks). Mirrors adapters/openssl/tls.c: version pinned,
 * exactly one suite (by IANA name), exactly one group (or wolfSSL's
 * default), server chain + PKCS#8 key, client trust root + SNI + host name
 * check; optionally mutual authentication, a HelloRetryRequest-provoking
 * key share, session resumption (session ID, tickets, TLS 1.3 psk_ke),
 * 0-RTT early data, TLS 1.2 PSK, static ECDH and anonymous suites.
 * Everything else is wolfSSL's default. */
#include "tb/tls.h"
#include "tb/util.h"

#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/ssl.h>
#include <wolfssl/wolfcrypt/dh.h>
#include <wolfssl/wolfcrypt/error-crypt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    WOLFSSL_CTX *ctx;
    tb_side side;
    char name[256];
    tb_resume resume;
    int share;            /* client: the group of the one first key share, 0: wolfSSL's choice */
    uint32_t max_early;   /* server: early data accepted (TLS 1.3), 0: none */
    uint8_t psk[64];      /* TLS 1.2 PSK suites (MAX_PSK_KEY_LEN) */
    unsigned psk_len;
    char psk_identity[129]; /* MAX_PSK_ID_LEN + 1 */
} endpoint_t;

typedef struct {
    WOLFSSL *ssl;
    tb_transport tr;
    int verify_error; /* the certificate verification failure, 0 if none */
    int verify_depth;
    /* 0-RTT: the client's data to send / the server's data received */
    uint8_t *early;
    size_t early_len, early_cap; /* server: early_cap is what it accepts */
    int early_pending; /* client: early_send called, not yet written */
    int early_over;    /* server: the early data phase has ended */
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
               {"ffdhe2048", WOLFSSL_FFDHE_2048}, {"ffdhe3072", WOLFSSL_FFDHE_3072},
#ifdef TB_WOLFSSL_PQ /* user_settings.h: hybrids and ML-KEM alone in TLS 1.3 */
               {"x25519mlkem768", WOLFSSL_X25519MLKEM768}, {"secp256r1mlkem768", WOLFSSL_SECP256R1MLKEM768},
               {"mlkem768", WOLFSSL_ML_KEM_768},
#endif
    };
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

/* A certificate chain (leaf first) and its PKCS#8 key: the server's, or the
 * client's in mutual authentication. */
static tb_status load_identity(WOLFSSL_CTX *ctx, tb_bytes chain, tb_bytes key, const char *who)
{
    char what[64];
    int ret = wolfSSL_CTX_use_certificate_chain_buffer_format(ctx, chain.data, (long)chain.len, WOLFSSL_FILETYPE_PEM);
    snprintf(what, sizeof(what), "%s certificate chain", who);
    if (ret != WOLFSSL_SUCCESS) return ctx_fail(what, ret);
    ret = wolfSSL_CTX_use_PrivateKey_buffer(ctx, key.data, (long)key.len, WOLFSSL_FILETYPE_PEM);
    snprintf(what, sizeof(what), "%s key", who);
    if (ret != WOLFSSL_SUCCESS) return ctx_fail(what, ret);
    ret = wolfSSL_CTX_check_private_key(ctx);
    snprintf(what, sizeof(what), "%s key does not match the certificate", who);
    if (ret != WOLFSSL_SUCCESS) return ctx_fail(what, ret);
    return TB_OK;
}

/* The root the peer's chain must lead to; `mode` adds (server side) that
 * a client certificate is required. */
static tb_status load_trust(WOLFSSL_CTX *ctx, const tb_tls_config *cfg, int mode)
{
    int ret = wolfSSL_CTX_load_verify_buffer(ctx, cfg->trust.data, (long)cfg->trust.len, WOLFSSL_FILETYPE_PEM);
    if (ret != WOLFSSL_SUCCESS) return ctx_fail("trust anchor", ret);
    wolfSSL_CTX_set_verify(ctx, WOLFSSL_VERIFY_PEER | mode, verify_cb);
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
    if (strncmp(cfg->suite, "TLS_ECDH_anon_", 14) == 0) {
        /* wolfssl/internal.h defines BUILD_TLS_DH_anon_* only */
        tb_set_error("wolfSSL has no anonymous ECDH suites (%s): its anonymous suites are DH_anon only", cfg->suite);
        return TB_UNSUPPORTED;
    }
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

/* The key-exchange group; a HelloRetryRequest client lists client_share
 * first (its one key share, made per connection) and then `group`. */
static tb_status set_groups(endpoint_t *e, const tb_tls_config *cfg)
{
    int g[4], n = 0;
    if (e->side == TB_SIDE_CLIENT && cfg->client_share != NULL) {
        e->share = group_id(cfg->client_share);
        if (e->share < 0) {
            tb_set_error("wolfSSL (as configured) has no group %s", cfg->client_share);
            return TB_UNSUPPORTED;
        }
        g[n++] = e->share;
        if (cfg->group == NULL) {
            tb_set_error("client_share %s needs the group the server accepts", cfg->client_share);
            return TB_ERROR;
        }
    }
    g[n] = group_id(cfg->group);
    if (g[n] < 0) {
        tb_set_error("wolfSSL (as configured) has no group %s", cfg->group);
        return TB_UNSUPPORTED;
    }
    n++;
    /* In TLS 1.2 the client's groups also say which certificate curves it
     * accepts: after the requested group it offers P-256 and P-384 (the
     * server accepts only the requested one, so that is the group used). */
    if (cfg->version == 12 && e->side == TB_SIDE_CLIENT && strncmp(cfg->group, "ffdhe", 5) != 0) {
        const char *curves[] = {"p256", "p384"};
        for (int i = 0; i < 2; i++) {
            if (strcmp(cfg->group, curves[i]) != 0) g[n++] = group_id(curves[i]);
        }
    }
    if (wolfSSL_CTX_set_groups(e->ctx, g, n) != WOLFSSL_SUCCESS) {
        tb_set_error("wolfSSL (as configured) has no group %s", cfg->group);
        return TB_UNSUPPORTED;
    }
    return TB_OK;
}

/* A TLS 1.2 DHE server's parameters are the pinned RFC 7919 group's,
 * whatever the client's supported_groups lists (the contract, tb/tls.h):
 * wolfSSL otherwise has DH parameters only when the client names an FFDHE
 * group (TLSX_SupportedFFDHE_Set), and answers clients that name none
 * (OpenSSL's, Mbed TLS's) with "can't match cipher suite". */
static tb_status set_dh_params(endpoint_t *e, const tb_tls_config *cfg)
{
    if (e->side != TB_SIDE_SERVER || cfg->version != 12 || cfg->group == NULL) return TB_OK;
    if (strncmp(cfg->group, "ffdhe", 5) != 0) return TB_OK;
    unsigned char p[512], g[8];
    word32 p_len = sizeof(p), g_len = sizeof(g), p_need = 0, g_need = 0;
    int name = group_id(cfg->group);
    if (wc_DhGetNamedKeyParamSize(name, &p_need, &g_need, NULL) != 0 || p_need > p_len || g_need > g_len ||
        wc_DhCopyNamedKey(name, p, &p_len, g, &g_len, NULL, NULL) != 0) {
        tb_set_error("wolfSSL (as configured) has no parameters for %s", cfg->group);
        return TB_UNSUPPORTED;
    }
    if (wolfSSL_CTX_SetTmpDH(e->ctx, p, (long)p_len, g, (long)g_len) != WOLFSSL_SUCCESS) {
        tb_set_error("wolfSSL_CTX_SetTmpDH(%s) failed", cfg->group);
        return TB_ERROR;
    }
    return TB_OK;
}

/* ---- TLS 1.2 PSK suites: both sides answer from the endpoint's key ---- */

static unsigned int psk_client_cb(WOLFSSL *ssl, const char *hint, char *identity, unsigned int id_max,
                                  unsigned char *key, unsigned int key_max)
{
    const endpoint_t *e = wolfSSL_get_psk_callback_ctx(ssl);
    (void)hint;
    if (e == NULL || strlen(e->psk_identity) >= id_max || e->psk_len > key_max) return 0;
    memcpy(identity, e->psk_identity, strlen(e->psk_identity) + 1);
    memcpy(key, e->psk, e->psk_len);
    return e->psk_len;
}

static unsigned int psk_server_cb(WOLFSSL *ssl, const char *identity, unsigned char *key, unsigned int key_max)
{
    const endpoint_t *e = wolfSSL_get_psk_callback_ctx(ssl);
    if (e == NULL || identity == NULL || strcmp(identity, e->psk_identity) != 0 || e->psk_len > key_max) return 0;
    memcpy(key, e->psk, e->psk_len);
    return e->psk_len;
}

static tb_status set_psk(endpoint_t *e, const tb_tls_config *cfg)
{
    if (cfg->psk.len == 0 || cfg->psk_identity == NULL) {
        tb_set_error("suite %s needs psk and psk_identity", cfg->suite);
        return TB_ERROR;
    }
    if (cfg->psk.len > sizeof(e->psk) || strlen(cfg->psk_identity) >= sizeof(e->psk_identity)) {
        tb_set_error("wolfSSL takes PSKs up to %zu bytes and identities up to %zu characters (MAX_PSK_KEY_LEN, "
                     "MAX_PSK_ID_LEN)", sizeof(e->psk), sizeof(e->psk_identity) - 1);
        return TB_UNSUPPORTED;
    }
    memcpy(e->psk, cfg->psk.data, cfg->psk.len);
    e->psk_len = (unsigned)cfg->psk.len;
    snprintf(e->psk_identity, sizeof(e->psk_identity), "%s", cfg->psk_identity);
    wolfSSL_CTX_set_psk_callback_ctx(e->ctx, e);
    if (e->side == TB_SIDE_CLIENT) wolfSSL_CTX_set_psk_client_callback(e->ctx, psk_client_cb);
    else wolfSSL_CTX_set_psk_server_callback(e->ctx, psk_server_cb);
    return TB_OK;
}

/* Certificates, PSK or nothing (anonymous), per side. */
static tb_status set_credentials(endpoint_t *e, const tb_tls_config *cfg)
{
    int psk = strstr(cfg->suite, "_PSK_") != NULL, anon = strstr(cfg->suite, "_anon_") != NULL;
    int mutual = cfg->client_chain.len > 0;
    if (psk) return set_psk(e, cfg);
    if (anon) {
        if (wolfSSL_CTX_allow_anon_cipher(e->ctx) != WOLFSSL_SUCCESS) return ctx_fail("anonymous suites", -1);
        wolfSSL_CTX_set_verify(e->ctx, WOLFSSL_VERIFY_NONE, NULL); /* there is no certificate */
        return TB_OK;
    }
    tb_status st = TB_OK;
    if (e->side == TB_SIDE_SERVER) {
        st = load_identity(e->ctx, cfg->server_chain, cfg->server_key, "server");
        if (st == TB_OK && mutual) st = load_trust(e->ctx, cfg, WOLFSSL_VERIFY_FAIL_IF_NO_PEER_CERT);
        return st;
    }
    if (cfg->skip_verify) wolfSSL_CTX_set_verify(e->ctx, WOLFSSL_VERIFY_NONE, NULL);
    else st = load_trust(e->ctx, cfg, 0);
    if (st == TB_OK && mutual) st = load_identity(e->ctx, cfg->client_chain, cfg->client_key, "client");
    return st;
}

/* What cfg->resume asks for, and nothing else: a server caches sessions
 * (session ID) or issues tickets only when asked, so full handshakes pay
 * for neither. A TLS 1.3 server that accepts early data caches too: from
 * 5.9 wolfSSL accepts 0-RTT only when the resumption finds the ticket's
 * session in the server's cache and evicts it (single use against replay,
 * RFC 8446 section 8); with the cache off it rejects every early data.
 * The client keeps its session on the connection (handed over by
 * session_get), so it needs no cache. */
static tb_status set_resumption(endpoint_t *e, const tb_tls_config *cfg)
{
    /* these calls return 0 or WOLFSSL_SUCCESS (1) when they work, by call */
    int v13 = cfg->version == 13, r = cfg->resume, err = 0;
    int server = e->side == TB_SIDE_SERVER;
    int cache = server && (r == TB_RESUME_SESSION_ID || (v13 && r != TB_RESUME_NONE && cfg->max_early_data > 0));
    if (!cache) err |= wolfSSL_CTX_set_session_cache_mode(e->ctx, WOLFSSL_SESS_CACHE_OFF) < 0;
    if (server) {
        if (v13 || r != TB_RESUME_TICKET) err |= wolfSSL_CTX_NoTicketTLSv12(e->ctx) < 0;
        if (v13 && r == TB_RESUME_NONE) err |= wolfSSL_CTX_no_ticket_TLSv13(e->ctx) < 0;
        if (v13) err |= wolfSSL_CTX_set_max_early_data(e->ctx, cfg->max_early_data) < 0;
        e->max_early = v13 ? cfg->max_early_data : 0;
    } else if (!v13 && r == TB_RESUME_TICKET) {
        err |= wolfSSL_CTX_UseSessionTicket(e->ctx) < 0;
    }
    if (v13 && r == TB_RESUME_PSK_ONLY) err |= wolfSSL_CTX_no_dhe_psk(e->ctx) < 0;
    if (err) {
        tb_set_error("wolfSSL: could not configure resumption / early data");
        return TB_ERROR;
    }
    e->resume = cfg->resume;
    return TB_OK;
}

/* The client asks for a maximum fragment length (RFC 6066, both versions);
 * a server with HAVE_MAX_FRAGMENT accepts it. wolfSSL 5.7.2 has no
 * record_size_limit (RFC 8449). */
static tb_status set_max_frag(endpoint_t *e, const tb_tls_config *cfg)
{
    if (cfg->max_frag == 0 || e->side != TB_SIDE_CLIENT) return TB_OK;
    unsigned char code = cfg->max_frag == 512    ? WOLFSSL_MFL_2_9
                         : cfg->max_frag == 1024 ? WOLFSSL_MFL_2_10
                         : cfg->max_frag == 2048 ? WOLFSSL_MFL_2_11
                                                 : WOLFSSL_MFL_2_12;
    if (wolfSSL_CTX_UseMaxFragment(e->ctx, code) != WOLFSSL_SUCCESS) {
        tb_set_error("wolfSSL_CTX_UseMaxFragment failed");
        return TB_ERROR;
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
#if defined(TB_WOLFSSL_HW) && TB_WOLFSSL_HW
    /* profile "hw": the handshake's hashing, record cipher and ECC reach the crypto callbacks */
    wolfSSL_CTX_SetDevId(e->ctx, TB_WOLFSSL_HW_DEVID);
#endif
    wolfSSL_CTX_SetIORecv(e->ctx, io_recv);
    wolfSSL_CTX_SetIOSend(e->ctx, io_send);
    /* credentials first: they decide which suites the context can offer */
    st = set_credentials(e, cfg);
    if (st == TB_OK) st = set_suite(e->ctx, cfg);
    if (st == TB_OK && (cfg->group != NULL || cfg->client_share != NULL)) st = set_groups(e, cfg);
    if (st == TB_OK) st = set_dh_params(e, cfg);
    if (st == TB_OK) st = set_resumption(e, cfg);
    if (st == TB_OK) st = set_max_frag(e, cfg);
    return tb_settle(st, e, free_endpoint, out);
}

/* ---- connections ---- */

static void conn_free(void *p)
{
    conn_t *c = p;
    if (c == NULL) return;
    wolfSSL_free(c->ssl);
    free(c->early);
    free(c);
}

/* Client setup: SNI and name check, the session to resume, the one first
 * key share (computed here, so charged to the client's connection). */
static tb_status client_setup(endpoint_t *e, conn_t *c, void *session)
{
    int ret;
    if ((ret = wolfSSL_UseSNI(c->ssl, WOLFSSL_SNI_HOST_NAME, e->name, (word16)strlen(e->name))) != WOLFSSL_SUCCESS ||
        (ret = wolfSSL_check_domain_name(c->ssl, e->name)) != WOLFSSL_SUCCESS)
        return ctx_fail("server name", ret);
    if (session != NULL && (ret = wolfSSL_set_session(c->ssl, session)) != WOLFSSL_SUCCESS)
        return ctx_fail("wolfSSL_set_session (expired or unusable session)", ret);
    /* psk_ke: no (EC)DHE at all, so no key share either */
    if (session != NULL && e->resume == TB_RESUME_PSK_ONLY && (ret = wolfSSL_NoKeyShares(c->ssl)) != WOLFSSL_SUCCESS)
        return ctx_fail("wolfSSL_NoKeyShares", ret);
    if (e->share > 0 && (ret = wolfSSL_UseKeyShare(c->ssl, (word16)e->share)) != WOLFSSL_SUCCESS)
        return ctx_fail("wolfSSL_UseKeyShare", ret);
    return TB_OK;
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
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
    wolfSSL_SetCertCbCtx(c->ssl, c);
    tb_status st = TB_OK;
    if (e->side == TB_SIDE_CLIENT) {
        st = client_setup(e, c, session);
    } else {
        c->early_cap = e->max_early;
        c->early_over = e->max_early == 0;
    }
    if (st != TB_OK) {
        conn_free(c);
        return st;
    }
    *out = c;
    return TB_OK;
}

static tb_status io_status(conn_t *c, int rc, const char *what)
{
    int err = wolfSSL_get_error(c->ssl, rc);
    if (err == WOLFSSL_ERROR_WANT_READ) return TB_WANT_READ;
    char text[160] = "", alert[96] = "", cert[256] = "";
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

/* Client 0-RTT: wolfSSL_write_early_data sends the ClientHello and then
 * the data under the early traffic keys. */
static tb_status client_early(conn_t *c)
{
    int out = 0;
    int rc = wolfSSL_write_early_data(c->ssl, c->early, (int)c->early_len, &out);
    if (rc < 0) return io_status(c, rc, "wolfSSL_write_early_data");
    if (out != (int)c->early_len) {
        tb_set_error("wolfSSL_write_early_data: %d of %zu bytes went as early data", out, c->early_len);
        return TB_ERROR;
    }
    c->early_pending = 0;
    return TB_OK;
}

/* Keeps n more bytes of early data (the buffer grows to what arrived, not
 * to what the server would accept, so the heap figures stay honest). */
static tb_status keep_early(conn_t *c, const uint8_t *p, size_t n)
{
    uint8_t *grown = tb_zalloc(c->early_len + n);
    if (grown == NULL) return TB_ERROR;
    if (c->early_len > 0) memcpy(grown, c->early, c->early_len);
    memcpy(grown + c->early_len, p, n);
    free(c->early);
    c->early = grown;
    c->early_len += n;
    return TB_OK;
}

/* Server with early data enabled: wolfSSL_read_early_data must process the
 * ClientHello (that is how wolfSSL knows the server expects early data);
 * when it accepted some, it returns it until the client's EndOfEarlyData
 * ends that phase. Without early data (or after it), wolfSSL_accept does
 * the rest of the handshake. */
static tb_status server_early(conn_t *c)
{
    uint8_t chunk[256];
    for (;;) {
        int n = 0;
        size_t room = c->early_cap - c->early_len;
        int rc = wolfSSL_read_early_data(c->ssl, chunk, room < sizeof(chunk) ? (int)room : (int)sizeof(chunk), &n);
        int accepted = wolfSSL_get_early_data_status(c->ssl) == WOLFSSL_EARLY_DATA_ACCEPTED;
        int hello_seen = wolfSSL_get_current_cipher_suite(c->ssl) != 0; /* a suite is chosen */
        if (n > 0 && keep_early(c, chunk, (size_t)n) != TB_OK) return TB_ERROR;
        if (n > 0 && accepted && c->early_len < c->early_cap) continue;
        if (rc < 0 && !wolfSSL_is_init_finished(c->ssl)) {
            tb_status st = io_status(c, rc, "wolfSSL_read_early_data");
            if (st != TB_WANT_READ || accepted || !hello_seen) return st;
        }
        break; /* the ClientHello had no early data, or the early data is over */
    }
    c->early_over = 1;
    return TB_OK;
}

static tb_status step(void *p)
{
    conn_t *c = p;
    int server = wolfSSL_is_server(c->ssl);
    tb_status st = TB_OK;
    if (!server && c->early_pending) st = client_early(c);
    else if (server && !c->early_over) st = server_early(c);
    if (st != TB_OK) return st;
    int rc = server ? wolfSSL_accept(c->ssl) : wolfSSL_connect(c->ssl);
    return rc == WOLFSSL_SUCCESS ? TB_OK : io_status(c, rc, server ? "wolfSSL_accept" : "wolfSSL_connect");
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

/* wolfSSL_read also processes TLS 1.3 NewSessionTickets as they arrive. */
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

/* ---- resumption and 0-RTT ---- */

static tb_status session_get(void *p, void **out)
{
    conn_t *c = p;
    WOLFSSL_SESSION *s = wolfSSL_get1_session(c->ssl);
    WOLFSSL_SESSION *copy = s != NULL ? wolfSSL_SESSION_dup(s) : NULL;
    wolfSSL_SESSION_free(s);
    if (copy == NULL) {
        tb_set_error("wolfSSL: the client has no session to resume");
        return TB_ERROR;
    }
    *out = copy;
    return TB_OK;
}

static void session_free(void *s)
{
    wolfSSL_SESSION_free(s);
}

static int resumed(void *p)
{
    conn_t *c = p;
    return wolfSSL_session_reused(c->ssl) ? 1 : 0;
}

static tb_status early_send(void *p, const uint8_t *data, size_t n)
{
    conn_t *c = p;
    if (wolfSSL_is_server(c->ssl) || n > 0x7fffffff) {
        tb_set_error("early_send: a client's, up to 2 GiB");
        return TB_ERROR;
    }
    free(c->early);
    c->early = tb_zalloc(n);
    if (c->early == NULL) return TB_ERROR;
    memcpy(c->early, data, n);
    c->early_len = n;
    c->early_pending = 1;
    return TB_OK;
}

static tb_status early_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    size_t n = c->early_len < cap ? c->early_len : cap;
    if (n > 0) memcpy(buf, c->early, n);
    *got = n;
    return TB_OK;
}

static size_t frag_len(void *p)
{
    conn_t *c = p;
    int n = wolfSSL_GetMaxOutputSize(c->ssl);
    return n > 0 ? (size_t)n : 0;
}

TB_DEFINE_TLS_OPS_FRAG();
