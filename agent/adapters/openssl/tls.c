/* OpenSSL TLS endpoints over the core's in-memory transport (a custom BIO). */
#include "tb/tls.h"
#include "tb/util.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    SSL_CTX *ctx;
    tb_side side;
    char name[256];
} endpoint_t;

typedef struct {
    SSL *ssl;
    BIO *bio;
    tb_transport tr;
} conn_t;

static BIO_METHOD *method;

static tb_status ssl_fail(const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256] = "no error queued";
    if (e != 0) ERR_error_string_n(e, buf, sizeof(buf));
    ERR_clear_error();
    tb_set_error("%s: %s", what, buf);
    return TB_ERROR;
}

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
    static const char *const map[][2] = {{"x25519", "X25519"}, {"x448", "X448"},       {"p256", "P-256"},
                                         {"p384", "P-384"},   {"ffdhe2048", "ffdhe2048"}, {"ffdhe3072", "ffdhe3072"}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(map[i][0], g) == 0) return map[i][1];
    }
    return NULL;
}

/* OpenSSL names TLS 1.2 suites its own way: find the one whose standard
 * (IANA) name is the one asked for. */
static const char *openssl_suite_name(SSL_CTX *ctx, const char *iana)
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
    int ec12 = cfg->version == 12 && side == TB_SIDE_CLIENT && strncmp(cfg->group, "ffdhe", 5) != 0;
    snprintf(list, sizeof(list), "%s%s%s", g, ec12 && strcmp(g, "P-256") != 0 ? ":P-256" : "",
             ec12 && strcmp(g, "P-384") != 0 ? ":P-384" : "");
    if (cfg->version == 12 && strncmp(cfg->group, "ffdhe", 5) == 0) {
        if (side == TB_SIDE_SERVER) {
            EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
            EVP_PKEY *dh = NULL;
            OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string("group", (char *)g, 0), OSSL_PARAM_END};
            if (pc == NULL || EVP_PKEY_paramgen_init(pc) != 1 || EVP_PKEY_CTX_set_params(pc, p) != 1 ||
                EVP_PKEY_paramgen(pc, &dh) != 1 || SSL_CTX_set0_tmp_dh_pkey(ctx, dh) != 1) {
                EVP_PKEY_free(dh);
                EVP_PKEY_CTX_free(pc);
                return ssl_fail("DHE parameters");
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

static tb_status load_server(SSL_CTX *ctx, const tb_tls_config *cfg)
{
    BIO *in = BIO_new_mem_buf(cfg->server_chain.data, (int)cfg->server_chain.len);
    X509 *leaf = in ? PEM_read_bio_X509(in, NULL, NULL, NULL) : NULL;
    tb_status st = TB_OK;
    if (leaf == NULL || SSL_CTX_use_certificate(ctx, leaf) != 1) st = ssl_fail("server certificate");
    X509 *extra;
    while (st == TB_OK && (extra = PEM_read_bio_X509(in, NULL, NULL, NULL)) != NULL) {
        if (SSL_CTX_add0_chain_cert(ctx, extra) != 1) {
            X509_free(extra);
            st = ssl_fail("chain certificate");
        }
    }
    ERR_clear_error(); /* the end of the PEM stream */
    X509_free(leaf);
    BIO_free(in);
    if (st != TB_OK) return st;
    in = BIO_new_mem_buf(cfg->server_key.data, (int)cfg->server_key.len);
    EVP_PKEY *key = in ? PEM_read_bio_PrivateKey(in, NULL, NULL, NULL) : NULL;
    if (key == NULL || SSL_CTX_use_PrivateKey(ctx, key) != 1 || SSL_CTX_check_private_key(ctx) != 1)
        st = ssl_fail("server key");
    EVP_PKEY_free(key);
    BIO_free(in);
    return st;
}

static tb_status load_trust(SSL_CTX *ctx, const tb_tls_config *cfg)
{
    BIO *in = BIO_new_mem_buf(cfg->trust.data, (int)cfg->trust.len);
    X509 *root = in ? PEM_read_bio_X509(in, NULL, NULL, NULL) : NULL;
    tb_status st = TB_OK;
    if (root == NULL || X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), root) != 1) st = ssl_fail("trust anchor");
    X509_free(root);
    BIO_free(in);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    return st;
}

static void free_endpoint(void *p)
{
    endpoint_t *e = p;
    if (e == NULL) return;
    SSL_CTX_free(e->ctx);
    free(e);
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
    snprintf(e->name, sizeof(e->name), "%s", cfg->server_name);
    e->ctx = SSL_CTX_new(side == TB_SIDE_CLIENT ? TLS_client_method() : TLS_server_method());
    tb_status st = TB_OK;
    int v = cfg->version == 13 ? TLS1_3_VERSION : TLS1_2_VERSION;
    if (e->ctx == NULL || SSL_CTX_set_min_proto_version(e->ctx, v) != 1 ||
        SSL_CTX_set_max_proto_version(e->ctx, v) != 1) {
        st = ssl_fail("SSL_CTX_new");
    } else if (cfg->version == 13) {
        if (SSL_CTX_set_ciphersuites(e->ctx, cfg->suite) != 1) {
            ERR_clear_error();
            tb_set_error("OpenSSL has no TLS 1.3 suite %s", cfg->suite);
            st = TB_UNSUPPORTED;
        }
    } else {
        const char *name = openssl_suite_name(e->ctx, cfg->suite);
        if (name == NULL || SSL_CTX_set_cipher_list(e->ctx, name) != 1) {
            ERR_clear_error();
            tb_set_error("OpenSSL (as configured) has no TLS 1.2 suite %s", cfg->suite);
            st = TB_UNSUPPORTED;
        }
    }
    if (st == TB_OK && cfg->group != NULL) st = set_group(e->ctx, side, cfg);
    if (st == TB_OK) st = side == TB_SIDE_SERVER ? load_server(e->ctx, cfg) : load_trust(e->ctx, cfg);
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
    SSL_free(c->ssl); /* frees the BIO too */
    free(c);
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
    (void)session; /* resumption: not yet */
    endpoint_t *e = ep;
    conn_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->tr = *tr;
    c->ssl = SSL_new(e->ctx);
    c->bio = c->ssl ? BIO_new(method) : NULL;
    if (c->bio == NULL) {
        conn_free(c);
        return ssl_fail("SSL_new");
    }
    BIO_set_data(c->bio, &c->tr);
    SSL_set_bio(c->ssl, c->bio, c->bio);
    if (e->side == TB_SIDE_CLIENT) {
        SSL_set_connect_state(c->ssl);
        if (SSL_set_tlsext_host_name(c->ssl, e->name) != 1 || SSL_set1_host(c->ssl, e->name) != 1) {
            conn_free(c);
            return ssl_fail("server name");
        }
    } else {
        SSL_set_accept_state(c->ssl);
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

static tb_status step(void *p)
{
    conn_t *c = p;
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

const tb_tls_ops tb_library_tls = {
    .endpoint_new = endpoint_new,
    .endpoint_free = free_endpoint,
    .conn_new = conn_new,
    .step = step,
    .send = tls_send,
    .recv = tls_recv,
    .conn_free = conn_free,
};
