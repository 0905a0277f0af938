/* Mbed TLS TLS endpoints over the core's in-memory transport (custom
 * send/recv callbacks given to mbedtls_ssl_set_bio). One mbedtls_ssl_config
 * per endpoint (version, suite, group, certificates, RNG, ticket key), one
 * mbedtls_ssl_context per connection. Everything not pinned by the
 * configuration keeps Mbed TLS's defaults (mbedtls_ssl_config_defaults,
 * MBEDTLS_SSL_PRESET_DEFAULT); the server has a session-ticket key module
 * (mbedtls_ssl_ticket), as a device offering resumption does, so it issues
 * tickets whenever the client asks for them. */
#include "mbt.h"
#include "tb/tls.h"

#include <mbedtls/dhm.h>
#include <mbedtls/error.h>
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/ssl_ciphersuites.h>
#include <mbedtls/ssl_ticket.h>
#include <mbedtls/x509_crt.h>
#include <psa/crypto.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Session-ticket key lifetime, in seconds: the value Mbed TLS's own sample
 * server (programs/ssl/ssl_server2.c) uses; the library has no default. */
#define TICKET_LIFETIME 86400

typedef struct {
    tb_side side;
    mbedtls_ssl_config conf;
    mbedtls_x509_crt certs; /* server: its chain, leaf first; client: the trust root */
    mbedtls_pk_context key;
    mbedtls_ssl_ticket_context ticket;
    int suites[2];     /* the one suite, 0-terminated (the config keeps the pointer) */
    uint16_t groups[4]; /* the group (a TLS 1.2 client: + P-256, P-384), 0-terminated (likewise) */
    char name[256];
} endpoint_t;

typedef struct {
    mbedtls_ssl_context ssl;
    tb_transport tr;
} conn_t;

static void library_error(const char *what, int ret, char *buf, size_t cap)
{
    char text[160];
    mbedtls_strerror(ret, text, sizeof(text));
    snprintf(buf, cap, "%s: -0x%04X %s", what, (unsigned)-ret, text);
}

static tb_status fail(const char *what, int ret)
{
    char buf[256];
    library_error(what, ret, buf, sizeof(buf));
    tb_set_error("%s", buf);
    return TB_ERROR;
}

/* ---- the transport ---- */

static int bio_send(void *ctx, const unsigned char *p, size_t n)
{
    const tb_transport *tr = ctx;
    long sent = tr->send(tr->t, p, n);
    return sent < 0 ? MBEDTLS_ERR_SSL_INTERNAL_ERROR : (int)sent;
}

static int bio_recv(void *ctx, unsigned char *p, size_t n)
{
    const tb_transport *tr = ctx;
    long got = tr->recv(tr->t, p, n);
    if (got < 0) return MBEDTLS_ERR_SSL_INTERNAL_ERROR;
    return got == 0 ? MBEDTLS_ERR_SSL_WANT_READ : (int)got;
}

/* ---- configuration ---- */

/* IANA name -> Mbed TLS's name: TLS 1.3 suites (no key exchange in the
 * name) are "TLS1-3-<rest>", TLS 1.2 suites the IANA name with dashes.
 * Returns the suite id (0: this build has no such suite) and its version. */
static int suite_id(const char *iana, int *version)
{
    char name[128];
    int tls13 = strncmp(iana, "TLS_", 4) == 0 && strstr(iana, "_WITH_") == NULL;
    int n = snprintf(name, sizeof(name), "%s%s", tls13 ? "TLS1-3-" : "", tls13 ? iana + 4 : iana);
    if (n < 0 || (size_t)n >= sizeof(name)) return 0;
    for (char *c = name; *c; c++) {
        if (*c == '_') *c = '-';
    }
    *version = tls13 ? 13 : 12;
    return mbedtls_ssl_get_ciphersuite_id(name);
}

/* Our group name -> IANA id, if this build can do the group. */
static uint16_t group_id(const char *g)
{
    static const struct {
        const char *name;
        uint16_t id;
    } map[] = {
#if defined(MBEDTLS_ECP_DP_CURVE25519_ENABLED)
        {"x25519", MBEDTLS_SSL_IANA_TLS_GROUP_X25519},
#endif
#if defined(MBEDTLS_ECP_DP_CURVE448_ENABLED)
        {"x448", MBEDTLS_SSL_IANA_TLS_GROUP_X448},
#endif
#if defined(MBEDTLS_ECP_DP_SECP256R1_ENABLED)
        {"p256", MBEDTLS_SSL_IANA_TLS_GROUP_SECP256R1},
#endif
#if defined(MBEDTLS_ECP_DP_SECP384R1_ENABLED)
        {"p384", MBEDTLS_SSL_IANA_TLS_GROUP_SECP384R1},
#endif
#if defined(PSA_WANT_ALG_FFDH) && defined(PSA_WANT_DH_RFC7919_2048)
        {"ffdhe2048", MBEDTLS_SSL_IANA_TLS_GROUP_FFDHE2048},
#endif
#if defined(PSA_WANT_ALG_FFDH) && defined(PSA_WANT_DH_RFC7919_3072)
        {"ffdhe3072", MBEDTLS_SSL_IANA_TLS_GROUP_FFDHE3072},
#endif
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(map[i].name, g) == 0) return map[i].id;
    }
    return 0;
}

/* TLS 1.2 DHE takes its group from the server's DH parameters (Mbed TLS's
 * default: the RFC 3526 2048-bit MODP group); an ffdhe group pins them to
 * the RFC 7919 prime. */
static int set_dh_group(mbedtls_ssl_config *conf, uint16_t id)
{
    static const unsigned char g[] = MBEDTLS_DHM_RFC7919_FFDHE2048_G_BIN;
    static const unsigned char p2048[] = MBEDTLS_DHM_RFC7919_FFDHE2048_P_BIN;
    static const unsigned char p3072[] = MBEDTLS_DHM_RFC7919_FFDHE3072_P_BIN;
    if (id == MBEDTLS_SSL_IANA_TLS_GROUP_FFDHE2048)
        return mbedtls_ssl_conf_dh_param_bin(conf, p2048, sizeof(p2048), g, sizeof(g));
    if (id == MBEDTLS_SSL_IANA_TLS_GROUP_FFDHE3072)
        return mbedtls_ssl_conf_dh_param_bin(conf, p3072, sizeof(p3072), g, sizeof(g));
    return 0;
}

/* Mbed TLS parses PEM only from a NUL-terminated buffer whose length
 * counts the NUL. */
static unsigned char *pem_copy(tb_bytes b)
{
    unsigned char *p = malloc(b.len + 1);
    if (p != NULL) {
        memcpy(p, b.data, b.len);
        p[b.len] = '\0';
    }
    return p;
}

/* A key or certificate of an algorithm Mbed TLS does not have (Ed25519):
 * unsupported rather than an error. */
static int unknown_algorithm(int ret)
{
    int high = -((-ret) & 0xFF80); /* without a low-level module's code */
    return high == MBEDTLS_ERR_PK_UNKNOWN_PK_ALG || high == MBEDTLS_ERR_X509_UNKNOWN_SIG_ALG ||
           high == MBEDTLS_ERR_X509_UNKNOWN_OID;
}

static tb_status parse_certs(mbedtls_x509_crt *crt, tb_bytes pem, const char *what)
{
    unsigned char *p = pem_copy(pem);
    if (p == NULL) {
        tb_set_error("out of memory");
        return TB_ERROR;
    }
    int ret = mbedtls_x509_crt_parse(crt, p, pem.len + 1);
    free(p);
    if (ret == 0) return TB_OK;
    char buf[256];
    library_error(what, ret, buf, sizeof(buf));
    if (ret > 0) { /* some certificates of the chain did not parse */
        tb_set_error("%s: %d certificate(s) Mbed TLS could not parse", what, ret);
        return TB_UNSUPPORTED;
    }
    if (unknown_algorithm(ret)) {
        tb_set_error("Mbed TLS cannot use this certificate (%s)", buf);
        return TB_UNSUPPORTED;
    }
    tb_set_error("%s", buf);
    return TB_ERROR;
}

static tb_status load_server(endpoint_t *e, const tb_tls_config *cfg)
{
    tb_status st = parse_certs(&e->certs, cfg->server_chain, "server chain (mbedtls_x509_crt_parse)");
    if (st != TB_OK) return st;
    unsigned char *p = pem_copy(cfg->server_key);
    if (p == NULL) {
        tb_set_error("out of memory");
        return TB_ERROR;
    }
    int ret = mbedtls_pk_parse_key(&e->key, p, cfg->server_key.len + 1, NULL, 0, mbt_rng, NULL);
    free(p);
    if (ret != 0) {
        char buf[256];
        library_error("server key (mbedtls_pk_parse_key)", ret, buf, sizeof(buf));
        tb_set_error(unknown_algorithm(ret) ? "Mbed TLS cannot use this key (%s)" : "%s", buf);
        return unknown_algorithm(ret) ? TB_UNSUPPORTED : TB_ERROR;
    }
    ret = mbedtls_ssl_conf_own_cert(&e->conf, &e->certs, &e->key);
    if (ret != 0) return fail("mbedtls_ssl_conf_own_cert", ret);
    /* Session tickets: Mbed TLS's ticket module with its key rotation, the
     * AEAD its documentation recommends. */
    ret = mbedtls_ssl_ticket_setup(&e->ticket, mbt_rng, NULL, MBEDTLS_CIPHER_AES_256_GCM, TICKET_LIFETIME);
    if (ret != 0) return fail("mbedtls_ssl_ticket_setup", ret);
    mbedtls_ssl_conf_session_tickets_cb(&e->conf, mbedtls_ssl_ticket_write, mbedtls_ssl_ticket_parse, &e->ticket);
    return TB_OK;
}

static tb_status load_trust(endpoint_t *e, const tb_tls_config *cfg)
{
    tb_status st = parse_certs(&e->certs, cfg->trust, "trust anchor (mbedtls_x509_crt_parse)");
    if (st != TB_OK) return st;
    mbedtls_ssl_conf_ca_chain(&e->conf, &e->certs, NULL);
    mbedtls_ssl_conf_authmode(&e->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    return TB_OK;
}

static void free_endpoint(void *p)
{
    endpoint_t *e = p;
    if (e == NULL) return;
    mbedtls_ssl_config_free(&e->conf);
    mbedtls_ssl_ticket_free(&e->ticket);
    mbedtls_pk_free(&e->key);
    mbedtls_x509_crt_free(&e->certs);
    free(e);
}

static tb_status configure(endpoint_t *e, tb_side side, const tb_tls_config *cfg)
{
    /* TLS 1.3 needs PSA Crypto (key schedule, key shares); idempotent. */
    psa_status_t ps = psa_crypto_init();
    if (ps != PSA_SUCCESS) {
        tb_set_error("psa_crypto_init: %d", (int)ps);
        return TB_ERROR;
    }
    int ret = mbedtls_ssl_config_defaults(&e->conf,
                                          side == TB_SIDE_CLIENT ? MBEDTLS_SSL_IS_CLIENT : MBEDTLS_SSL_IS_SERVER,
                                          MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT);
    if (ret != 0) return fail("mbedtls_ssl_config_defaults", ret);
    mbedtls_ssl_conf_rng(&e->conf, mbt_rng, NULL);
    mbedtls_ssl_protocol_version v =
        cfg->version == 13 ? MBEDTLS_SSL_VERSION_TLS1_3 : MBEDTLS_SSL_VERSION_TLS1_2;
    mbedtls_ssl_conf_min_tls_version(&e->conf, v);
    mbedtls_ssl_conf_max_tls_version(&e->conf, v);

    int suite_version = 0;
    e->suites[0] = suite_id(cfg->suite, &suite_version);
    if (e->suites[0] == 0) {
        tb_set_error("Mbed TLS (as configured) has no suite %s", cfg->suite);
        return TB_UNSUPPORTED;
    }
    if (suite_version != cfg->version) {
        tb_set_error("suite %s is not a TLS 1.%d suite", cfg->suite, cfg->version % 10);
        return TB_UNSUPPORTED;
    }
    mbedtls_ssl_conf_ciphersuites(&e->conf, e->suites);

    if (cfg->group != NULL) {
        e->groups[0] = group_id(cfg->group);
        if (e->groups[0] == 0) {
            tb_set_error("Mbed TLS (as configured) has no group %s", cfg->group);
            return TB_UNSUPPORTED;
        }
        /* The contract (tb/tls.h): in TLS 1.2 the groups list also says which
         * certificate curves the client accepts (Mbed TLS's server checks it
         * in ssl_pick_cert), so a 1.2 client offers P-256 and P-384 after
         * the pinned group; the server keeps only the pinned one. */
        if (side == TB_SIDE_CLIENT && cfg->version == 12 && strncmp(cfg->group, "ffdhe", 5) != 0) {
            size_t k = 1;
            const uint16_t extra[] = {MBEDTLS_SSL_IANA_TLS_GROUP_SECP256R1, MBEDTLS_SSL_IANA_TLS_GROUP_SECP384R1};
            for (size_t j = 0; j < 2; j++) {
                if (extra[j] != e->groups[0]) e->groups[k++] = extra[j];
            }
            e->groups[k] = 0;
        }
        mbedtls_ssl_conf_groups(&e->conf, e->groups);
        if (side == TB_SIDE_SERVER && cfg->version == 12) {
            ret = set_dh_group(&e->conf, e->groups[0]);
            if (ret != 0) return fail("mbedtls_ssl_conf_dh_param_bin", ret);
        }
    }
    return side == TB_SIDE_SERVER ? load_server(e, cfg) : load_trust(e, cfg);
}

static tb_status endpoint_new(tb_side side, const tb_tls_config *cfg, void **out)
{
    endpoint_t *e = tb_zalloc(sizeof(*e));
    if (e == NULL) return TB_ERROR;
    e->side = side;
    snprintf(e->name, sizeof(e->name), "%s", cfg->server_name);
    mbedtls_ssl_config_init(&e->conf);
    mbedtls_x509_crt_init(&e->certs);
    mbedtls_pk_init(&e->key);
    mbedtls_ssl_ticket_init(&e->ticket);
    tb_status st = configure(e, side, cfg);
    if (st != TB_OK) {
        free_endpoint(e);
        return st;
    }
    *out = e;
    return TB_OK;
}

/* ---- connections ---- */

static void conn_free(void *p)
{
    conn_t *c = p;
    if (c == NULL) return;
    mbedtls_ssl_free(&c->ssl);
    free(c);
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
    (void)session; /* resumption: not yet */
    endpoint_t *e = ep;
    conn_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->tr = *tr;
    mbedtls_ssl_init(&c->ssl);
    int ret = mbedtls_ssl_setup(&c->ssl, &e->conf);
    if (ret != 0) {
        conn_free(c);
        return fail("mbedtls_ssl_setup", ret);
    }
    /* The client sends the name as SNI and checks the certificate against it. */
    if (e->side == TB_SIDE_CLIENT && (ret = mbedtls_ssl_set_hostname(&c->ssl, e->name)) != 0) {
        conn_free(c);
        return fail("mbedtls_ssl_set_hostname", ret);
    }
    mbedtls_ssl_set_bio(&c->ssl, &c->tr, bio_send, bio_recv, NULL);
    *out = c;
    return TB_OK;
}

static tb_status io_status(conn_t *c, int ret, const char *what)
{
    if (ret == MBEDTLS_ERR_SSL_WANT_READ) return TB_WANT_READ;
    char buf[256], why[512] = "";
    library_error(what, ret, buf, sizeof(buf));
    uint32_t flags = mbedtls_ssl_get_verify_result(&c->ssl);
    /* (uint32_t)-1: no verification ran (not the client, or not that far) */
    if (flags != 0 && flags != (uint32_t)-1) {
        mbedtls_x509_crt_verify_info(why, sizeof(why), "", flags);
        for (char *p = why; *p; p++) {
            if (*p == '\n') *p = p[1] ? ';' : '\0';
        }
    }
    tb_set_error("%s%s%s", buf, why[0] ? ", certificate: " : "", why);
    return TB_ERROR;
}

static tb_status step(void *p)
{
    conn_t *c = p;
    int ret = mbedtls_ssl_handshake(&c->ssl);
    return ret == 0 ? TB_OK : io_status(c, ret, "mbedtls_ssl_handshake");
}

static tb_status tls_send(void *p, const uint8_t *data, size_t n)
{
    conn_t *c = p;
    size_t done = 0;
    while (done < n) {
        int ret = mbedtls_ssl_write(&c->ssl, data + done, n - done);
        if (ret < 0) {
            /* the transport takes everything, so writing never waits */
            if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
                tb_set_error("mbedtls_ssl_write: -0x%04X, waiting in the middle of a write", (unsigned)-ret);
                return TB_ERROR;
            }
            return io_status(c, ret, "mbedtls_ssl_write");
        }
        done += (size_t)ret;
    }
    return TB_OK;
}

static tb_status tls_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    *got = 0;
    for (;;) {
        int ret = mbedtls_ssl_read(&c->ssl, buf, cap);
        if (ret > 0) {
            *got = (size_t)ret;
            return TB_OK;
        }
        /* a TLS 1.3 ticket, if the client were set to keep them: go on reading */
        if (ret == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET) continue;
        if (ret == 0) {
            tb_set_error("mbedtls_ssl_read: the peer closed the connection");
            return TB_ERROR;
        }
        return io_status(c, ret, "mbedtls_ssl_read");
    }
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
