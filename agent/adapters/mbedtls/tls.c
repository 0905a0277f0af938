/* Mbed TLS TLS endpoints over the core's in-memory transport (custom
 * send/recv callbacks given to mbedtls_ssl_set_bio). One mbedtls_ssl_config
 * per endpoint (version, suite, groups, certificates, PSK, RNG, resumption,
 * early data), one mbedtls_ssl_context per connection. Everything not pinned
 * by the configuration keeps Mbed TLS's defaults (mbedtls_ssl_config_defaults,
 * MBEDTLS_SSL_PRESET_DEFAULT). Resumption is on only when asked for: the
 * server then has a session cache (TLS 1.2 session IDs) or the session-ticket
 * key module (mbedtls_ssl_ticket), else it issues nothing. */
#include "mbedtls_adapter.h"
#include "tb/tls.h"

#include <mbedtls/dhm.h>
#include <mbedtls/error.h>
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/ssl_cache.h>
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
    tb_resume resume;
    uint32_t max_early;
    mbedtls_ssl_config conf;
    /* A TLS 1.3 psk-only client offers a ticket with psk_ke alone (no key
     * share): Mbed TLS's server prefers a full (EC)DHE handshake to psk_ke
     * whenever the client sends a key share (ssl_tls13_server.c, "Our
     * built-in order of preference"), so resumed connections use this. */
    mbedtls_ssl_config resume_conf;
    int has_resume_conf;
    mbedtls_x509_crt own;   /* this side's chain, leaf first (server; client in mutual auth) */
    mbedtls_x509_crt trust; /* the root the peer's chain is verified against */
    int has_own, verifies;  /* own and trust hold something */
    int skips;              /* a client told not to verify (cfg->skip_verify) */
    mbedtls_pk_context key;
    mbedtls_ssl_ticket_context ticket;
    mbedtls_ssl_cache_context cache;
    int suites[2];      /* the one suite, 0-terminated (the config keeps the pointer) */
    uint16_t groups[4]; /* 0-terminated, likewise (see choose_groups) */
    char name[256];
} endpoint_t;

typedef struct {
    mbedtls_ssl_context ssl;
    tb_transport tr;
    int full;         /* the handshake passed a certificate state: not resumed */
    int early_unsent; /* client: early holds data still to send as 0-RTT */
    uint8_t *early;   /* client: the data to send; server: what arrived as 0-RTT */
    size_t early_len, early_cap;
    uint32_t max_early; /* server: the most 0-RTT data it accepts */
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

static tb_status parse_key(mbedtls_pk_context *pk, tb_bytes pem, const char *what)
{
    unsigned char *p = pem_copy(pem);
    if (p == NULL) {
        tb_set_error("out of memory");
        return TB_ERROR;
    }
    int ret = mbedtls_pk_parse_key(pk, p, pem.len + 1, NULL, 0, tb_mbedtls_rng, NULL);
    free(p);
    if (ret == 0) return TB_OK;
    char buf[256];
    library_error(what, ret, buf, sizeof(buf));
    tb_set_error(unknown_algorithm(ret) ? "Mbed TLS cannot use this key (%s)" : "%s", buf);
    return unknown_algorithm(ret) ? TB_UNSUPPORTED : TB_ERROR;
}

/* Certificates and keys, parsed once for every config of the endpoint: the
 * server's chain (none for PSK suites), the client's in mutual
 * authentication, and the trust root of whichever side verifies a peer. */
static tb_status load_material(endpoint_t *e, const tb_tls_config *cfg)
{
    int server = e->side == TB_SIDE_SERVER;
    tb_bytes chain = server ? cfg->server_chain : cfg->client_chain;
    tb_bytes key = server ? cfg->server_key : cfg->client_key;
    tb_status st = TB_OK;
    if (chain.len > 0) {
        st = parse_certs(&e->own, chain,
                         server ? "server chain (mbedtls_x509_crt_parse)" : "client chain (mbedtls_x509_crt_parse)");
        if (st == TB_OK)
            st = parse_key(&e->key, key, server ? "server key (mbedtls_pk_parse_key)" : "client key (mbedtls_pk_parse_key)");
        e->has_own = st == TB_OK;
    }
    /* the server verifies only in mutual authentication */
    e->verifies = server ? cfg->client_chain.len > 0 : cfg->trust.len > 0 && !cfg->skip_verify;
    e->skips = !server && cfg->skip_verify;
    if (st == TB_OK && e->verifies) st = parse_certs(&e->trust, cfg->trust, "trust anchor (mbedtls_x509_crt_parse)");
    return st;
}

/* Static ECDH (TLS_ECDH_ECDSA_*, TLS_ECDH_RSA_*) takes the server's key
 * share from its certificate, which must hold an ECDH-capable key (RFC 4492
 * section 5.3): Mbed TLS's server requires keyUsage keyAgreement
 * (mbedtls_ssl_check_cert_usage) and otherwise fails with a bare
 * "handshake negotiation failed". Say why up front. */
static tb_status check_static_ecdh(const endpoint_t *e, const tb_tls_config *cfg)
{
    int ecdh = strncmp(cfg->suite, "TLS_ECDH_ECDSA_", 15) == 0 || strncmp(cfg->suite, "TLS_ECDH_RSA_", 13) == 0;
    if (!ecdh || e->side != TB_SIDE_SERVER || !e->has_own) return TB_OK;
    if (mbedtls_x509_crt_check_key_usage(&e->own, MBEDTLS_X509_KU_KEY_AGREEMENT) == 0) return TB_OK;
    tb_set_error("%s: the server certificate's keyUsage lacks keyAgreement, which Mbed TLS requires for "
                 "static ECDH (mbedtls_ssl_check_cert_usage)", cfg->suite);
    return TB_ERROR;
}

static tb_status conf_certs(endpoint_t *e, mbedtls_ssl_config *conf)
{
    if (e->has_own) {
        int ret = mbedtls_ssl_conf_own_cert(conf, &e->own, &e->key);
        if (ret != 0) return fail("mbedtls_ssl_conf_own_cert", ret);
    }
    if (e->verifies) {
        mbedtls_ssl_conf_ca_chain(conf, &e->trust, NULL);
        /* a server given a root requires the client's certificate */
        mbedtls_ssl_conf_authmode(conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    }
    /* a client's default is to require a verified chain */
    if (e->skips) mbedtls_ssl_conf_authmode(conf, MBEDTLS_SSL_VERIFY_NONE);
    return TB_OK;
}

/* The groups list: the pinned group; a TLS 1.3 client with client_share
 * puts that group first (Mbed TLS sends its one key share for the first
 * group of the list), so the server, which keeps only the pinned group,
 * answers with a HelloRetryRequest. The contract (tb/tls.h): in TLS 1.2
 * the groups list also says which certificate curves the client accepts
 * (Mbed TLS's server checks it in ssl_pick_cert), so a 1.2 client offers
 * P-256 and P-384 after the pinned group, and so does a 1.2 server that
 * verifies a client certificate. NULL group: the defaults. */
static tb_status choose_groups(endpoint_t *e, const tb_tls_config *cfg)
{
    size_t k = 0;
    if (e->side == TB_SIDE_CLIENT && cfg->client_share != NULL) {
        e->groups[k] = group_id(cfg->client_share);
        if (e->groups[k++] == 0) {
            tb_set_error("Mbed TLS (as configured) has no group %s", cfg->client_share);
            return TB_UNSUPPORTED;
        }
    }
    if (cfg->group == NULL) return TB_OK;
    uint16_t pinned = group_id(cfg->group);
    if (pinned == 0) {
        tb_set_error("Mbed TLS (as configured) has no group %s", cfg->group);
        return TB_UNSUPPORTED;
    }
    if (k == 0 || e->groups[0] != pinned) e->groups[k++] = pinned;
    /* a 1.2 server checks the client certificate's curve against the same
     * list (ssl_parse_certificate_verify); it still picks the client's first
     * group it has, which is the pinned one */
    int checks_cert_curve = e->side == TB_SIDE_CLIENT || cfg->client_chain.len > 0;
    if (checks_cert_curve && cfg->version == 12 && strncmp(cfg->group, "ffdhe", 5) != 0) {
        const uint16_t extra[] = {MBEDTLS_SSL_IANA_TLS_GROUP_SECP256R1, MBEDTLS_SSL_IANA_TLS_GROUP_SECP384R1};
        for (size_t j = 0; j < 2; j++) {
            if (extra[j] != pinned) e->groups[k++] = extra[j];
        }
    }
    e->groups[k] = 0;
    return TB_OK;
}

/* TLS 1.3 key exchange modes for a resumption kind: certificate + (EC)DHE
 * for full handshakes, plus the PSK mode its tickets are for. */
static int tls13_modes(tb_resume r)
{
    if (r == TB_RESUME_TICKET) return MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_EPHEMERAL_ALL;
    if (r == TB_RESUME_PSK_ONLY)
        return MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_EPHEMERAL | MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK;
    return MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_EPHEMERAL;
}

/* Resumption and 0-RTT as cfg asks, and nothing else: a server without a
 * cache or ticket callbacks issues no tickets (TLS 1.2 nor 1.3). */
static void conf_resumption(endpoint_t *e, mbedtls_ssl_config *conf, int tls13_modes_set)
{
    int tickets = e->resume == TB_RESUME_TICKET || e->resume == TB_RESUME_PSK_ONLY;
    mbedtls_ssl_conf_tls13_key_exchange_modes(conf, tls13_modes_set);
    if (e->side == TB_SIDE_CLIENT) {
        mbedtls_ssl_conf_session_tickets(conf, e->resume == TB_RESUME_TICKET ? MBEDTLS_SSL_SESSION_TICKETS_ENABLED
                                                                             : MBEDTLS_SSL_SESSION_TICKETS_DISABLED);
        /* TLS 1.3 tickets are dropped unless the client asks to see them */
        mbedtls_ssl_conf_tls13_enable_signal_new_session_tickets(
            conf, tickets ? MBEDTLS_SSL_TLS1_3_SIGNAL_NEW_SESSION_TICKETS_ENABLED
                          : MBEDTLS_SSL_TLS1_3_SIGNAL_NEW_SESSION_TICKETS_DISABLED);
    } else if (e->resume == TB_RESUME_SESSION_ID) {
        mbedtls_ssl_conf_session_cache(conf, &e->cache, mbedtls_ssl_cache_get, mbedtls_ssl_cache_set);
    } else if (tickets) {
        mbedtls_ssl_conf_session_tickets_cb(conf, mbedtls_ssl_ticket_write, mbedtls_ssl_ticket_parse, &e->ticket);
    }
#if defined(MBEDTLS_SSL_EARLY_DATA)
    if (e->max_early > 0) {
        /* Mbed TLS has no 0-RTT anti-replay of its own (ssl.h,
         * mbedtls_ssl_read_early_data: "does not implement any of the
         * anti-replay defenses"), so there is nothing more to set up. */
        mbedtls_ssl_conf_early_data(conf, MBEDTLS_SSL_EARLY_DATA_ENABLED);
        if (e->side == TB_SIDE_SERVER) mbedtls_ssl_conf_max_early_data_size(conf, e->max_early);
    }
#endif
}

static tb_status conf_psk(mbedtls_ssl_config *conf, const tb_tls_config *cfg)
{
    if (cfg->version != 12 || cfg->psk.len == 0 || cfg->psk_identity == NULL) return TB_OK;
    int ret = mbedtls_ssl_conf_psk(conf, cfg->psk.data, cfg->psk.len, (const unsigned char *)cfg->psk_identity,
                                   strlen(cfg->psk_identity));
    return ret == 0 ? TB_OK : fail("mbedtls_ssl_conf_psk", ret);
}

/* One config: everything the endpoint's material and cfg pin, with the
 * given TLS 1.3 key exchange modes. */
/* The client asks for a maximum fragment length (RFC 6066); a server
 * accepts it with MBEDTLS_SSL_MAX_FRAGMENT_LENGTH alone. Mbed TLS 3.6
 * writes the extension in TLS 1.2 ClientHellos only (ssl_tls12_client.c). */
static tb_status conf_max_frag(const endpoint_t *e, mbedtls_ssl_config *conf, const tb_tls_config *cfg)
{
    if (cfg->max_frag == 0 || e->side != TB_SIDE_CLIENT) return TB_OK;
    if (cfg->version != 12) {
        tb_set_error("Mbed TLS 3.6 asks for a maximum fragment length in TLS 1.2 only");
        return TB_UNSUPPORTED;
    }
    unsigned char code = cfg->max_frag == 512    ? MBEDTLS_SSL_MAX_FRAG_LEN_512
                         : cfg->max_frag == 1024 ? MBEDTLS_SSL_MAX_FRAG_LEN_1024
                         : cfg->max_frag == 2048 ? MBEDTLS_SSL_MAX_FRAG_LEN_2048
                                                 : MBEDTLS_SSL_MAX_FRAG_LEN_4096;
    int ret = mbedtls_ssl_conf_max_frag_len(conf, code);
    return ret == 0 ? TB_OK : fail("mbedtls_ssl_conf_max_frag_len", ret);
}

static tb_status setup_conf(endpoint_t *e, mbedtls_ssl_config *conf, const tb_tls_config *cfg, int modes)
{
    int ret = mbedtls_ssl_config_defaults(conf, e->side == TB_SIDE_CLIENT ? MBEDTLS_SSL_IS_CLIENT : MBEDTLS_SSL_IS_SERVER,
                                          MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT);
    if (ret != 0) return fail("mbedtls_ssl_config_defaults", ret);
    mbedtls_ssl_conf_rng(conf, tb_mbedtls_rng, NULL);
    mbedtls_ssl_protocol_version v = cfg->version == 13 ? MBEDTLS_SSL_VERSION_TLS1_3 : MBEDTLS_SSL_VERSION_TLS1_2;
    mbedtls_ssl_conf_min_tls_version(conf, v);
    mbedtls_ssl_conf_max_tls_version(conf, v);
    mbedtls_ssl_conf_ciphersuites(conf, e->suites);
    if (e->groups[0] != 0) {
        mbedtls_ssl_conf_groups(conf, e->groups);
        if (e->side == TB_SIDE_SERVER && cfg->version == 12) {
            ret = set_dh_group(conf, e->groups[0]);
            if (ret != 0) return fail("mbedtls_ssl_conf_dh_param_bin", ret);
        }
    }
    conf_resumption(e, conf, modes);
    tb_status st = conf_max_frag(e, conf, cfg);
    if (st != TB_OK) return st;
    st = conf_psk(conf, cfg);
    return st == TB_OK ? conf_certs(e, conf) : st;
}

/* The suite, by name, if this build has it. */
static tb_status choose_suite(endpoint_t *e, const tb_tls_config *cfg)
{
    int suite_version = 0;
    e->suites[0] = suite_id(cfg->suite, &suite_version);
    if (e->suites[0] == 0 && strstr(cfg->suite, "_anon_") != NULL) {
        tb_set_error("Mbed TLS 3.6 has no anonymous cipher suites (mbedtls/ssl_ciphersuites.h defines none): %s",
                     cfg->suite);
        return TB_UNSUPPORTED;
    }
    if (e->suites[0] == 0) {
        tb_set_error("Mbed TLS (as configured) has no suite %s", cfg->suite);
        return TB_UNSUPPORTED;
    }
    if (suite_version != cfg->version) {
        tb_set_error("suite %s is not a TLS 1.%d suite", cfg->suite, cfg->version % 10);
        return TB_UNSUPPORTED;
    }
    return TB_OK;
}

/* A ticket-issuing server's keys, before its config points at them:
 * Mbed TLS's ticket module with its key rotation, the AEAD its
 * documentation recommends. (The session cache needs only its init.) */
static tb_status server_state(endpoint_t *e)
{
    if (e->side != TB_SIDE_SERVER) return TB_OK;
    if (e->resume != TB_RESUME_TICKET && e->resume != TB_RESUME_PSK_ONLY) return TB_OK;
    int ret = mbedtls_ssl_ticket_setup(&e->ticket, tb_mbedtls_rng, NULL, MBEDTLS_CIPHER_AES_256_GCM, TICKET_LIFETIME);
    return ret == 0 ? TB_OK : fail("mbedtls_ssl_ticket_setup", ret);
}

static tb_status configure(endpoint_t *e, const tb_tls_config *cfg)
{
    /* TLS 1.3 needs PSA Crypto (key schedule, key shares); idempotent. */
    psa_status_t ps = psa_crypto_init();
    if (ps != PSA_SUCCESS) {
        tb_set_error("psa_crypto_init: %d", (int)ps);
        return TB_ERROR;
    }
    tb_mbedtls_psa_started = 1;
    tb_status st = choose_suite(e, cfg);
    if (st == TB_OK) st = choose_groups(e, cfg);
    if (st == TB_OK) st = load_material(e, cfg);
    if (st == TB_OK) st = check_static_ecdh(e, cfg);
    if (st == TB_OK) st = server_state(e);
    if (st == TB_OK) st = setup_conf(e, &e->conf, cfg, tls13_modes(e->resume));
    if (st == TB_OK && e->side == TB_SIDE_CLIENT && e->resume == TB_RESUME_PSK_ONLY) {
        e->has_resume_conf = 1;
        st = setup_conf(e, &e->resume_conf, cfg, MBEDTLS_SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK);
    }
    return st;
}

static void free_endpoint(void *p)
{
    endpoint_t *e = p;
    if (e == NULL) return;
    mbedtls_ssl_config_free(&e->conf);
    mbedtls_ssl_config_free(&e->resume_conf);
    mbedtls_ssl_ticket_free(&e->ticket);
    mbedtls_ssl_cache_free(&e->cache);
    mbedtls_pk_free(&e->key);
    mbedtls_x509_crt_free(&e->own);
    mbedtls_x509_crt_free(&e->trust);
    free(e);
}

static tb_status endpoint_new(tb_side side, const tb_tls_config *cfg, void **out)
{
    endpoint_t *e = tb_zalloc(sizeof(*e));
    if (e == NULL) return TB_ERROR;
    e->side = side;
    e->resume = cfg->resume;
    e->max_early = cfg->max_early_data;
#if !defined(MBEDTLS_SSL_EARLY_DATA)
    /* a user's configuration may leave 0-RTT out (Mbed TLS's default does) */
    if (e->max_early > 0) {
        free(e);
        tb_set_error("0-RTT: MBEDTLS_SSL_EARLY_DATA is off in this build");
        return TB_UNSUPPORTED;
    }
#endif
    snprintf(e->name, sizeof(e->name), "%s", cfg->server_name);
    mbedtls_ssl_config_init(&e->conf);
    mbedtls_ssl_config_init(&e->resume_conf);
    mbedtls_x509_crt_init(&e->own);
    mbedtls_x509_crt_init(&e->trust);
    mbedtls_pk_init(&e->key);
    mbedtls_ssl_ticket_init(&e->ticket);
    mbedtls_ssl_cache_init(&e->cache);
    tb_status st = configure(e, cfg);
    return tb_settle(st, e, free_endpoint, out);
}

/* ---- connections ---- */

static void conn_free(void *p)
{
    conn_t *c = p;
    if (c == NULL) return;
    mbedtls_ssl_free(&c->ssl);
    free(c->early);
    free(c);
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
    endpoint_t *e = ep;
    conn_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->tr = *tr;
    c->max_early = e->max_early;
    mbedtls_ssl_init(&c->ssl);
    const mbedtls_ssl_config *conf = session != NULL && e->has_resume_conf ? &e->resume_conf : &e->conf;
    int ret = mbedtls_ssl_setup(&c->ssl, conf);
    const char *what = "mbedtls_ssl_setup";
    /* The client sends the name as SNI and checks the certificate against it. */
    if (ret == 0 && e->side == TB_SIDE_CLIENT) {
        ret = mbedtls_ssl_set_hostname(&c->ssl, e->name);
        what = "mbedtls_ssl_set_hostname";
    }
    if (ret == 0 && session != NULL) {
        ret = mbedtls_ssl_set_session(&c->ssl, session);
        what = "mbedtls_ssl_set_session";
    }
    if (ret != 0) {
        conn_free(c);
        return fail(what, ret);
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
    /* (uint32_t)-1: no verification ran (nothing to verify, or not that far) */
    if (flags != 0 && flags != (uint32_t)-1) {
        mbedtls_x509_crt_verify_info(why, sizeof(why), "", flags);
        for (char *p = why; *p; p++) {
            if (*p == '\n') *p = p[1] ? ';' : '\0';
        }
    }
    tb_set_error("%s%s%s", buf, why[0] ? ", certificate: " : "", why);
    return TB_ERROR;
}

/* The handshake state. Mbed TLS has no public "was this resumed" query;
 * ssl.h (mbedtls_ssl_handshake_step) names ssl->MBEDTLS_PRIVATE(state) as
 * the way to follow the state machine, and the states are public
 * (mbedtls_ssl_states). */
static int hs_state(const conn_t *c)
{
    return c->ssl.MBEDTLS_PRIVATE(state);
}

/* A full handshake, on either side and in either version, passes the
 * server-certificate or certificate-request state (even with nothing to
 * send there: PSK suites); a resumed one goes from the hellos straight to
 * ChangeCipherSpec (TLS 1.2) or to the server Finished (TLS 1.3 PSK). */
static void note_state(conn_t *c)
{
    int s = hs_state(c);
    if (s == MBEDTLS_SSL_SERVER_CERTIFICATE || s == MBEDTLS_SSL_CERTIFICATE_REQUEST) c->full = 1;
}

#if defined(MBEDTLS_SSL_EARLY_DATA)
/* Client: the queued 0-RTT data, which drives the handshake just past the
 * ClientHello (and the compatibility-mode ChangeCipherSpec) first. */
static tb_status write_early(conn_t *c)
{
    c->early_unsent = 0;
    int ret = mbedtls_ssl_write_early_data(&c->ssl, c->early, c->early_len);
    if (ret == MBEDTLS_ERR_SSL_CANNOT_WRITE_EARLY_DATA) {
        tb_set_error("mbedtls_ssl_write_early_data: Mbed TLS cannot send early data on this connection "
                     "(the session's ticket does not allow it)");
        return TB_ERROR;
    }
    if (ret < 0) return io_status(c, ret, "mbedtls_ssl_write_early_data");
    if ((size_t)ret != c->early_len) {
        tb_set_error("mbedtls_ssl_write_early_data: the ticket allows %d of the %zu bytes of early data", ret,
                     c->early_len);
        return TB_ERROR;
    }
    return TB_OK;
}

/* Server: keep the early data record that just arrived. */
static tb_status read_early(conn_t *c)
{
    if (c->early == NULL) {
        c->early = tb_zalloc(c->max_early);
        if (c->early == NULL) return TB_ERROR;
        c->early_cap = c->max_early;
    }
    for (;;) {
        if (c->early_len == c->early_cap) {
            tb_set_error("more early data than the %u bytes the server allows", (unsigned)c->max_early);
            return TB_ERROR;
        }
        int ret = mbedtls_ssl_read_early_data(&c->ssl, c->early + c->early_len, c->early_cap - c->early_len);
        if (ret == MBEDTLS_ERR_SSL_CANNOT_READ_EARLY_DATA) return TB_OK; /* the record is consumed */
        if (ret < 0) return io_status(c, ret, "mbedtls_ssl_read_early_data");
        c->early_len += (size_t)ret;
    }
}
#else
/* never reached: endpoint_new refuses 0-RTT without MBEDTLS_SSL_EARLY_DATA */
static tb_status write_early(conn_t *c)
{
    (void)c;
    return TB_UNSUPPORTED;
}

static tb_status read_early(conn_t *c)
{
    (void)c;
    return TB_UNSUPPORTED;
}
#endif

/* mbedtls_ssl_handshake's loop, one state at a time so note_state sees
 * each one; a TLS 1.3 server goes on past HANDSHAKE_OVER's value to send
 * its tickets, so the loop ends on that exact state, as the library's. */
static tb_status step(void *p)
{
    conn_t *c = p;
    if (c->early_unsent) {
        tb_status st = write_early(c);
        if (st != TB_OK) return st;
    }
    while (hs_state(c) != MBEDTLS_SSL_HANDSHAKE_OVER) {
        int ret = mbedtls_ssl_handshake_step(&c->ssl);
        if (ret == MBEDTLS_ERR_SSL_RECEIVED_EARLY_DATA) {
            tb_status st = read_early(c);
            if (st != TB_OK) return st;
            continue;
        }
        if (ret != 0) return io_status(c, ret, "mbedtls_ssl_handshake_step");
        note_state(c);
    }
    return TB_OK;
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
        /* a TLS 1.3 ticket, now stored in the connection's session for
         * session_get: go on reading */
        if (ret == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET) continue;
        if (ret == 0) {
            tb_set_error("mbedtls_ssl_read: the peer closed the connection");
            return TB_ERROR;
        }
        return io_status(c, ret, "mbedtls_ssl_read");
    }
}

/* ---- resumption ---- */

static void session_free(void *p)
{
    mbedtls_ssl_session *s = p;
    if (s == NULL) return;
    mbedtls_ssl_session_free(s);
    free(s);
}

static tb_status session_get(void *p, void **out)
{
    conn_t *c = p;
    mbedtls_ssl_session *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    mbedtls_ssl_session_init(s);
    int ret = mbedtls_ssl_get_session(&c->ssl, s);
    if (ret != 0) {
        session_free(s);
        /* TLS 1.3: the session after the handshake is exportable only once
         * a ticket has arrived (ssl_tls13_client.c) */
        if (ret == MBEDTLS_ERR_SSL_FEATURE_UNAVAILABLE) {
            tb_set_error("mbedtls_ssl_get_session: no resumable session (no ticket received)");
            return TB_ERROR;
        }
        return fail("mbedtls_ssl_get_session", ret);
    }
    *out = s;
    return TB_OK;
}

static int resumed(void *p)
{
    conn_t *c = p;
    return hs_state(c) == MBEDTLS_SSL_HANDSHAKE_OVER && !c->full;
}

/* ---- 0-RTT ---- */

static tb_status early_send(void *p, const uint8_t *data, size_t n)
{
    conn_t *c = p;
    free(c->early);
    c->early = tb_zalloc(n);
    if (c->early == NULL) return TB_ERROR;
    memcpy(c->early, data, n);
    c->early_len = c->early_cap = n;
    c->early_unsent = 1; /* sent by the first step, as the library allows */
    return TB_OK;
}

static tb_status early_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    *got = c->early_len < cap ? c->early_len : cap;
    if (*got > 0) memcpy(buf, c->early, *got);
    return TB_OK;
}

static size_t frag_len(void *p)
{
    conn_t *c = p;
    int n = mbedtls_ssl_get_max_out_record_payload(&c->ssl);
    return n > 0 ? (size_t)n : 0;
}

TB_DEFINE_TLS_OPS_FRAG();
