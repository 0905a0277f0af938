/* OpenSSL TLS endpoints over the core's in-memory transport (a custom BIO). */
#include "openssl_adapter.h"
#include "tb/tls.h"
#include "tb/util.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/opensslv.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TB_EARLY_MAX 1024

typedef struct {
    SSL_CTX *ctx;
    tb_side side;
    char name[256];
    const tb_tls_config *cfg; /* valid while the endpoint lives (the request's) */
} endpoint_t;

typedef struct {
    SSL *ssl;
    BIO *bio;
    tb_transport tr;
    endpoint_t *e;
    /* 0-RTT: what the client has to send, or what the server received */
    uint8_t early[TB_EARLY_MAX];
    size_t early_len;
    int early_state; /* client: 1 = to send; server: 1 = reading, 2 = done */
} conn_t;

static BIO_METHOD *method;

/* ---- the BIO: reads and writes go to the core's transport ---- */

static int bio_write(BIO *b, const char *p, int n)
{
    const tb_transport *tr = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    return (int)tr->send(tr->t, (const uint8_t *)p, (size_t)n);
}

static int bio_read(BIO *b, char *p, int n)
{
    const tb_transport *tr = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    long got = tr->recv(tr->t, (uint8_t *)p, (size_t)n);
    if (got == 0) {
        BIO_set_retry_read(b);
        return -1;
    }
    return (int)got;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)b;
    (void)num;
    (void)ptr;
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int bio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static BIO_METHOD *transport_method(void)
{
    if (method == NULL) {
        method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tlsbench transport");
        if (method == NULL) return NULL;
        BIO_meth_set_write(method, bio_write);
        BIO_meth_set_read(method, bio_read);
        BIO_meth_set_ctrl(method, bio_ctrl);
        BIO_meth_set_create(method, bio_create);
    }
    return method;
}

/* ---- configuration ---- */

static const char *group_name(const char *g)
{
    /* the ML-KEM groups: OpenSSL 3.5+ (an older one refuses the list: unsupported) */
    static const char *const map[][2] = {{"x25519", "X25519"}, {"x448", "X448"},       {"p256", "P-256"},
                                         {"p384", "P-384"},   {"ffdhe2048", "ffdhe2048"}, {"ffdhe3072", "ffdhe3072"},
                                         {"x25519mlkem768", "X25519MLKEM768"},
                                         {"secp256r1mlkem768", "SecP256r1MLKEM768"},
                                         {"mlkem768", "MLKEM768"}};
    int i = TB_NAME_INDEX(map, g);
    return i < 0 ? NULL : map[i][1];
}

/* OpenSSL names TLS 1.2 suites its own way: find the one whose standard
 * (IANA) name is the one asked for. */
static const char *library_suite_name(SSL_CTX *ctx, const char *iana)
{
    STACK_OF(SSL_CIPHER) *all = SSL_CTX_get_ciphers(ctx);
    for (int i = 0; i < sk_SSL_CIPHER_num(all); i++) {
        const SSL_CIPHER *c = sk_SSL_CIPHER_value(all, i);
        const char *std = SSL_CIPHER_standard_name(c);
        if (std != NULL && strcmp(std, iana) == 0) return SSL_CIPHER_get_name(c);
    }
    return NULL;
}

/* The key-exchange group. In TLS 1.2 the client's groups list also says
 * which certificate curves it accepts, so a TLS 1.2 client offers P-256 and
 * P-384 after the requested group; the server accepts only the requested
 * one, so that is the group used. Finite-field DHE in TLS 1.2 is the
 * server's choice of parameters: the requested RFC 7919 group. */
static tb_status set_group(SSL_CTX *ctx, tb_side side, const tb_tls_config *cfg)
{
    const char *g = group_name(cfg->group);
    if (g == NULL) {
        tb_set_error("OpenSSL has no group %s", cfg->group);
        return TB_UNSUPPORTED;
    }
    char list[64];
    /* In TLS 1.2 the groups list also names the certificate curves a peer
     * accepts: the client's (for the server's certificate), and in mutual
     * authentication the server's too (for the client's certificate), where
     * the server's own preference keeps the requested group first. */
    int mutual = cfg->client_chain.len > 0;
    int ec12 = cfg->version == 12 && (side == TB_SIDE_CLIENT || mutual) && strncmp(cfg->group, "ffdhe", 5) != 0;
    if (ec12 && side == TB_SIDE_SERVER) SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
    snprintf(list, sizeof(list), "%s%s%s", g, ec12 && strcmp(g, "P-256") != 0 ? ":P-256" : "",
             ec12 && strcmp(g, "P-384") != 0 ? ":P-384" : "");
    if (side == TB_SIDE_CLIENT && cfg->client_share != NULL) {
        /* an OpenSSL client sends its one key share for the first group listed */
        const char *first = group_name(cfg->client_share);
        if (first == NULL) {
            tb_set_error("OpenSSL has no group %s", cfg->client_share);
            return TB_UNSUPPORTED;
        }
        snprintf(list, sizeof(list), "%s:%s", first, g);
    }
    if (cfg->version == 12 && strncmp(cfg->group, "ffdhe", 5) == 0) {
        if (side == TB_SIDE_SERVER) {
            EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
            EVP_PKEY *dh = NULL;
            OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string("group", (char *)g, 0), OSSL_PARAM_END};
            if (pc == NULL || EVP_PKEY_paramgen_init(pc) != 1 || EVP_PKEY_CTX_set_params(pc, p) != 1 ||
                EVP_PKEY_paramgen(pc, &dh) != 1 || SSL_CTX_set0_tmp_dh_pkey(ctx, dh) != 1) {
                EVP_PKEY_free(dh);
                EVP_PKEY_CTX_free(pc);
                return tb_openssl_fail("DHE parameters");
            }
            EVP_PKEY_CTX_free(pc);
        }
        return TB_OK;
    }
    if (SSL_CTX_set1_groups_list(ctx, list) != 1) {
        ERR_clear_error();
        tb_set_error("OpenSSL has no group %s", cfg->group);
        return TB_UNSUPPORTED;
    }
    return TB_OK;
}

/* A certificate chain (leaf first) and its key: the server's, or the
 * client's in mutual authentication. */
static tb_status load_identity(SSL_CTX *ctx, tb_bytes chain, tb_bytes pkey)
{
    BIO *in = BIO_new_mem_buf(chain.data, (int)chain.len);
    X509 *leaf = in ? PEM_read_bio_X509(in, NULL, NULL, NULL) : NULL;
    tb_status st = TB_OK;
    if (leaf == NULL || SSL_CTX_use_certificate(ctx, leaf) != 1) st = tb_openssl_fail("certificate");
    X509 *extra;
    while (st == TB_OK && (extra = PEM_read_bio_X509(in, NULL, NULL, NULL)) != NULL) {
        if (SSL_CTX_add0_chain_cert(ctx, extra) != 1) {
            X509_free(extra);
            st = tb_openssl_fail("chain certificate");
        }
    }
    ERR_clear_error(); /* the end of the PEM stream */
    X509_free(leaf);
    BIO_free(in);
    if (st != TB_OK) return st;
    in = BIO_new_mem_buf(pkey.data, (int)pkey.len);
    EVP_PKEY *key = in ? PEM_read_bio_PrivateKey(in, NULL, NULL, NULL) : NULL;
    if (key == NULL || SSL_CTX_use_PrivateKey(ctx, key) != 1 || SSL_CTX_check_private_key(ctx) != 1)
        st = tb_openssl_fail("private key");
    EVP_PKEY_free(key);
    BIO_free(in);
    return st;
}

/* The root the peer's chain must lead to; the peer must present one. */
static tb_status load_trust(SSL_CTX *ctx, const tb_tls_config *cfg)
{
    BIO *in = BIO_new_mem_buf(cfg->trust.data, (int)cfg->trust.len);
    X509 *root = in ? PEM_read_bio_X509(in, NULL, NULL, NULL) : NULL;
    tb_status st = TB_OK;
    if (root == NULL || X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), root) != 1) st = tb_openssl_fail("trust anchor");
    X509_free(root);
    BIO_free(in);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    return st;
}

static void free_endpoint(void *p)
{
    endpoint_t *e = p;
    if (e == NULL) return;
    SSL_CTX_free(e->ctx);
    free(e);
}

/* ---- TLS 1.2 PSK suites: both sides answer from the configured key ---- */

static unsigned int psk_client_cb(SSL *ssl, const char *hint, char *identity, unsigned int max_identity,
                                  unsigned char *psk, unsigned int max_psk)
{
    (void)hint;
    const tb_tls_config *cfg = ((endpoint_t *)SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)))->cfg;
    if (strlen(cfg->psk_identity) >= max_identity || cfg->psk.len > max_psk) return 0;
    strcpy(identity, cfg->psk_identity);
    memcpy(psk, cfg->psk.data, cfg->psk.len);
    return (unsigned int)cfg->psk.len;
}

static unsigned int psk_server_cb(SSL *ssl, const char *identity, unsigned char *psk, unsigned int max_psk)
{
    const tb_tls_config *cfg = ((endpoint_t *)SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)))->cfg;
    if (strcmp(identity, cfg->psk_identity) != 0 || cfg->psk.len > max_psk) return 0;
    memcpy(psk, cfg->psk.data, cfg->psk.len);
    return (unsigned int)cfg->psk.len;
}

/* ---- resumption and early data ---- */

static tb_status set_resumption(endpoint_t *e, const tb_tls_config *cfg)
{
    static const unsigned char id_context[] = "tlsbench";
    SSL_CTX *ctx = e->ctx;
    if (cfg->resume == TB_RESUME_PSK_ONLY) {
#if OPENSSL_VERSION_NUMBER >= 0x30300000L
        /* both sides allow psk_ke and the server prefers it (3.3+). The
         * client still offers psk_dhe_ke with a key share, as OpenSSL
         * clients do, so its side pays for a key share the server ignores */
        SSL_CTX_set_options(ctx, SSL_OP_ALLOW_NO_DHE_KEX |
                                     (e->side == TB_SIDE_SERVER ? SSL_OP_PREFER_NO_DHE_KEX : 0));
#else
        /* before 3.3 its clients always offer psk_dhe_ke and its servers then choose it */
        tb_set_error("OpenSSL %s cannot make a psk_ke (no (EC)DHE) resumption: its client always offers "
                     "psk_dhe_ke, which its server prefers (SSL_OP_PREFER_NO_DHE_KEX is 3.3+)", OPENSSL_VERSION_STR);
        return TB_UNSUPPORTED;
#endif
    }
    if (e->side == TB_SIDE_CLIENT) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        if (cfg->resume != TB_RESUME_TICKET && cfg->resume != TB_RESUME_PSK_ONLY) SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
        return TB_OK;
    }
    if (SSL_CTX_set_session_id_context(ctx, id_context, sizeof(id_context) - 1) != 1) return tb_openssl_fail("session id context");
    switch (cfg->resume) {
    case TB_RESUME_NONE: /* a full handshake pays for no ticket and no cache entry */
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
        SSL_CTX_set_num_tickets(ctx, 0);
        break;
    case TB_RESUME_SESSION_ID:
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
        break;
    default:
        if (cfg->max_early_data > 0) {
            /* anti-replay needs the server's cache: stateful single-use tickets */
            SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
            SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
            if (SSL_CTX_set_max_early_data(ctx, cfg->max_early_data) != 1) return tb_openssl_fail("max early data");
        } else {
            SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF); /* stateless tickets */
        }
        SSL_CTX_set_num_tickets(ctx, 1);
        break;
    }
    return TB_OK;
}

static tb_status set_suite(endpoint_t *e, const tb_tls_config *cfg)
{
    if (cfg->version == 13) {
        if (SSL_CTX_set_ciphersuites(e->ctx, cfg->suite) != 1) {
            ERR_clear_error();
            tb_set_error("OpenSSL has no TLS 1.3 suite %s", cfg->suite);
            return TB_UNSUPPORTED;
        }
        return TB_OK;
    }
    int anon = strstr(cfg->suite, "_anon_") != NULL;
    /* anonymous suites exist only below security level 1: list them first */
    if (anon && SSL_CTX_set_cipher_list(e->ctx, "ALL:aNULL:@SECLEVEL=0") != 1) return tb_openssl_fail("cipher list");
    const char *name = library_suite_name(e->ctx, cfg->suite);
    char list[128];
    snprintf(list, sizeof(list), "%s%s", name ? name : "", anon ? ":@SECLEVEL=0" : "");
    if (name == NULL || SSL_CTX_set_cipher_list(e->ctx, list) != 1) {
        ERR_clear_error();
        tb_set_error("OpenSSL %s (as configured) has no TLS 1.2 suite %s", OPENSSL_VERSION_STR, cfg->suite);
        return TB_UNSUPPORTED;
    }
    return TB_OK;
}

/* Who proves what: certificates, PSK, or nothing (anonymous suites). */
static tb_status set_authentication(endpoint_t *e, const tb_tls_config *cfg)
{
    SSL_CTX *ctx = e->ctx;
    tb_status st = TB_OK;
    if (cfg->psk.len > 0) {
        if (e->side == TB_SIDE_CLIENT) SSL_CTX_set_psk_client_callback(ctx, psk_client_cb);
        else SSL_CTX_set_psk_server_callback(ctx, psk_server_cb);
    }
    int mutual = cfg->client_chain.len > 0;
    if (e->side == TB_SIDE_SERVER) {
        if (cfg->server_chain.len > 0) st = load_identity(ctx, cfg->server_chain, cfg->server_key);
        if (st == TB_OK && mutual) st = load_trust(ctx, cfg);
    } else {
        if (cfg->server_chain.len > 0 && !cfg->skip_verify) st = load_trust(ctx, cfg);
        if (st == TB_OK && mutual) st = load_identity(ctx, cfg->client_chain, cfg->client_key);
    }
    return st;
}

static tb_status endpoint_new(tb_side side, const tb_tls_config *cfg, void **out)
{
    endpoint_t *e = calloc(1, sizeof(*e));
    if (e == NULL || transport_method() == NULL) {
        free(e);
        tb_set_error("out of memory");
        return TB_ERROR;
    }
    e->side = side;
    e->cfg = cfg;
    snprintf(e->name, sizeof(e->name), "%s", cfg->server_name);
    e->ctx = SSL_CTX_new(side == TB_SIDE_CLIENT ? TLS_client_method() : TLS_server_method());
    tb_status st = TB_OK;
    int v = cfg->version == 13 ? TLS1_3_VERSION : TLS1_2_VERSION;
    if (e->ctx == NULL || SSL_CTX_set_min_proto_version(e->ctx, v) != 1 ||
        SSL_CTX_set_max_proto_version(e->ctx, v) != 1) {
        st = tb_openssl_fail("SSL_CTX_new");
    } else {
        SSL_CTX_set_app_data(e->ctx, e);
        st = set_suite(e, cfg);
    }
    if (st == TB_OK && cfg->group != NULL) st = set_group(e->ctx, side, cfg);
    if (st == TB_OK) st = set_authentication(e, cfg);
    if (st == TB_OK) st = set_resumption(e, cfg);
    return tb_settle(st, e, free_endpoint, out);
}

static void conn_free(void *p)
{
    conn_t *c = p;
    if (c == NULL) return;
    /* A finished connection closes cleanly (freeing it unshut would mark
     * its session unresumable, on both sides). */
    if (c->ssl != NULL && SSL_is_init_finished(c->ssl)) SSL_set_shutdown(c->ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(c->ssl); /* frees the BIO too */
    free(c);
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
    endpoint_t *e = ep;
    conn_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->tr = *tr;
    c->e = e;
    c->ssl = SSL_new(e->ctx);
    c->bio = c->ssl ? BIO_new(method) : NULL;
    if (c->bio == NULL) {
        conn_free(c);
        return tb_openssl_fail("SSL_new");
    }
    BIO_set_data(c->bio, &c->tr);
    SSL_set_bio(c->ssl, c->bio, c->bio);
    if (e->side == TB_SIDE_CLIENT) {
        SSL_set_connect_state(c->ssl);
        if (SSL_set_tlsext_host_name(c->ssl, e->name) != 1 ||
            (e->cfg->server_chain.len > 0 && !e->cfg->skip_verify && SSL_set1_host(c->ssl, e->name) != 1)) {
            conn_free(c);
            return tb_openssl_fail("server name");
        }
        if (session != NULL && SSL_set_session(c->ssl, session) != 1) {
            conn_free(c);
            return tb_openssl_fail("SSL_set_session");
        }
    } else {
        SSL_set_accept_state(c->ssl);
        if (e->cfg->max_early_data > 0) c->early_state = 1; /* read early data first */
    }
    *out = c;
    return TB_OK;
}

static tb_status io_status(conn_t *c, int rc, const char *what)
{
    int err = SSL_get_error(c->ssl, rc);
    if (err == SSL_ERROR_WANT_READ) return TB_WANT_READ;
    unsigned long e = ERR_peek_error();
    long verify = SSL_get_verify_result(c->ssl);
    char buf[256] = "";
    if (e != 0) ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    tb_set_error("%s: SSL error %d%s%s%s%s", what, err, buf[0] ? ", " : "", buf,
                 verify != X509_V_OK ? ", certificate: " : "",
                 verify != X509_V_OK ? X509_verify_cert_error_string(verify) : "");
    return TB_ERROR;
}

/* Server with early data enabled: read it (or learn there is none) before
 * the rest of the handshake. */
static tb_status read_early(conn_t *c)
{
    for (;;) {
        size_t n = 0;
        int rc = SSL_read_early_data(c->ssl, c->early + c->early_len, sizeof(c->early) - c->early_len, &n);
        if (rc == SSL_READ_EARLY_DATA_ERROR) return io_status(c, 0, "SSL_read_early_data");
        c->early_len += n;
        if (rc == SSL_READ_EARLY_DATA_FINISH) {
            c->early_state = 2;
            return TB_OK;
        }
    }
}

static tb_status step(void *p)
{
    conn_t *c = p;
    if (c->e->side == TB_SIDE_CLIENT && c->early_state == 1) {
        size_t done = 0;
        int rc = SSL_write_early_data(c->ssl, c->early, c->early_len, &done);
        if (rc != 1) return io_status(c, rc, "SSL_write_early_data");
        c->early_state = 0;
    }
    if (c->e->side == TB_SIDE_SERVER && c->early_state == 1) {
        tb_status st = read_early(c);
        if (st != TB_OK) return st;
    }
    int rc = SSL_do_handshake(c->ssl);
    return rc == 1 ? TB_OK : io_status(c, rc, "SSL_do_handshake");
}

static tb_status tls_send(void *p, const uint8_t *data, size_t n)
{
    conn_t *c = p;
    size_t done = 0;
    int rc = SSL_write_ex(c->ssl, data, n, &done);
    return rc == 1 && done == n ? TB_OK : io_status(c, rc, "SSL_write_ex");
}

static tb_status tls_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    *got = 0;
    int rc = SSL_read_ex(c->ssl, buf, cap, got);
    return rc == 1 ? TB_OK : io_status(c, rc, "SSL_read_ex");
}

static tb_status session_get(void *p, void **session)
{
    conn_t *c = p;
    SSL_SESSION *s = SSL_get1_session(c->ssl);
    if (s == NULL || SSL_SESSION_is_resumable(s) != 1) {
        SSL_SESSION_free(s);
        tb_set_error("OpenSSL client has no resumable session (no ticket or session ID received)");
        return TB_ERROR;
    }
    *session = s;
    return TB_OK;
}

static void session_free(void *session)
{
    SSL_SESSION_free(session);
}

static int resumed(void *p)
{
    return SSL_session_reused(((conn_t *)p)->ssl) == 1;
}

static tb_status early_send(void *p, const uint8_t *data, size_t n)
{
    conn_t *c = p;
    if (n > sizeof(c->early)) {
        tb_set_error("early data over %zu bytes", sizeof(c->early));
        return TB_BAD_INPUT;
    }
    memcpy(c->early, data, n);
    c->early_len = n;
    c->early_state = 1; /* written by the first step, with the ClientHello */
    return TB_OK;
}

static tb_status early_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    *got = 0;
    if (SSL_get_early_data_status(c->ssl) != SSL_EARLY_DATA_ACCEPTED) return TB_OK;
    *got = c->early_len < cap ? c->early_len : cap;
    memcpy(buf, c->early, *got);
    return TB_OK;
}

TB_DEFINE_TLS_OPS();
