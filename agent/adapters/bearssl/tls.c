/* TLS 1.2 endpoints on BearSSL's engine (br_ssl_client_context /
 * br_ssl_server_context with caller-provided I/O buffers: nothing is
 * allocated by BearSSL). BearSSL has no TLS 1.3, no session tickets, no
 * PSK suites and no finite-field DHE: those configurations are
 * unsupported. Resumption is TLS 1.2 session IDs with the server's LRU
 * cache. Mutual authentication and skip_verify are not wired in this
 * adapter (unsupported, said so).
 *
 * The client verifies the server's chain with BearSSL's X.509 "minimal"
 * engine against the trust anchor made from cfg->trust; the clock it
 * checks validity against is time(), the frozen clock on firmware. */
#include "bearssl_adapter.h"
#include "tb/tls.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CHAIN 4
#define CACHE_BYTES 4096 /* the server's session cache: ~40 sessions of 100 bytes */

/* ---- PEM and certificates -------------------------------------------- */

typedef struct {
    uint8_t *data;
    size_t len, cap;
} der_buf;

static void der_append(void *ctx, const void *src, size_t len)
{
    der_buf *b = ctx;
    if (b->data == NULL) return;
    if (b->len + len > b->cap) {
        size_t cap = (b->len + len) * 2;
        uint8_t *p = realloc(b->data, cap);
        if (p == NULL) {
            free(b->data);
            b->data = NULL;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, src, len);
    b->len += len;
}

/* Decodes up to max PEM objects of pem into out (each malloc'd DER);
 * returns how many, -1 on a malformed input or no memory. */
static int pem_objects(tb_bytes pem, der_buf *out, int max)
{
    br_pem_decoder_context pc;
    br_pem_decoder_init(&pc);
    const uint8_t *p = pem.data;
    size_t left = pem.len;
    int n = 0, inside = 0;
    while (left > 0) {
        size_t used = br_pem_decoder_push(&pc, p, left);
        p += used;
        left -= used;
        switch (br_pem_decoder_event(&pc)) {
        case BR_PEM_BEGIN_OBJ:
            if (n == max) return -1;
            out[n].len = 0;
            out[n].cap = 2048;
            out[n].data = malloc(out[n].cap);
            br_pem_decoder_setdest(&pc, der_append, &out[n]);
            inside = 1;
            break;
        case BR_PEM_END_OBJ:
            if (out[n].data == NULL) return -1;
            n++;
            inside = 0;
            break;
        case BR_PEM_ERROR: return -1;
        default: break;
        }
    }
    return inside ? -1 : n;
}

static void dn_append(void *ctx, const void *src, size_t len)
{
    der_append(ctx, src, len);
}

typedef struct {
    der_buf chain_der[MAX_CHAIN];
    br_x509_certificate chain[MAX_CHAIN];
    size_t chain_len;
    br_skey_decoder_context key;
    int key_type;
    /* the client's trust anchor, made from the root certificate */
    der_buf dn;
    uint8_t ta_key[BR_EC_KBUF_PUB_MAX_SIZE + 512 + 8];
    br_x509_trust_anchor ta;
} creds;

static tb_status load_chain(creds *c, tb_bytes chain_pem, tb_bytes key_pem)
{
    int n = pem_objects(chain_pem, c->chain_der, MAX_CHAIN);
    if (n <= 0) {
        tb_set_error("server chain: not 1..%d PEM certificates", MAX_CHAIN);
        return TB_BAD_INPUT;
    }
    for (int i = 0; i < n; i++) {
        c->chain[i].data = c->chain_der[i].data;
        c->chain[i].data_len = c->chain_der[i].len;
    }
    c->chain_len = (size_t)n;
    der_buf key[1] = {{0}};
    if (pem_objects(key_pem, key, 1) != 1) {
        free(key[0].data);
        tb_set_error("server key: not one PEM object");
        return TB_BAD_INPUT;
    }
    br_skey_decoder_init(&c->key);
    br_skey_decoder_push(&c->key, key[0].data, key[0].len);
    free(key[0].data);
    if (br_skey_decoder_last_error(&c->key) != 0) {
        tb_set_error("server key: BearSSL cannot decode it (error %d)", br_skey_decoder_last_error(&c->key));
        return TB_BAD_INPUT;
    }
    c->key_type = br_skey_decoder_key_type(&c->key);
    return TB_OK;
}

/* A trust anchor from the root certificate: its subject DN and public key
 * (BearSSL takes anchors, not certificates). */
static tb_status load_trust(creds *c, tb_bytes trust_pem)
{
    der_buf root[1] = {{0}};
    if (pem_objects(trust_pem, root, 1) != 1) {
        free(root[0].data);
        tb_set_error("trust: not one PEM certificate");
        return TB_BAD_INPUT;
    }
    c->dn.cap = 256;
    c->dn.data = malloc(c->dn.cap);
    br_x509_decoder_context dc;
    br_x509_decoder_init(&dc, dn_append, &c->dn);
    br_x509_decoder_push(&dc, root[0].data, root[0].len);
    free(root[0].data);
    const br_x509_pkey *pk = br_x509_decoder_get_pkey(&dc);
    if (pk == NULL || c->dn.data == NULL || br_x509_decoder_last_error(&dc) != 0) {
        tb_set_error("trust: BearSSL cannot decode the root certificate (error %d)", br_x509_decoder_last_error(&dc));
        return TB_BAD_INPUT;
    }
    c->ta.dn.data = c->dn.data;
    c->ta.dn.len = c->dn.len;
    c->ta.flags = br_x509_decoder_isCA(&dc) ? BR_X509_TA_CA : 0;
    c->ta.pkey.key_type = pk->key_type;
    if (pk->key_type == BR_KEYTYPE_RSA) {
        const br_rsa_public_key *r = &pk->key.rsa;
        if (r->nlen + r->elen > sizeof(c->ta_key)) return TB_BAD_INPUT;
        memcpy(c->ta_key, r->n, r->nlen);
        memcpy(c->ta_key + r->nlen, r->e, r->elen);
        c->ta.pkey.key.rsa.n = c->ta_key;
        c->ta.pkey.key.rsa.nlen = r->nlen;
        c->ta.pkey.key.rsa.e = c->ta_key + r->nlen;
        c->ta.pkey.key.rsa.elen = r->elen;
    } else {
        const br_ec_public_key *e = &pk->key.ec;
        if (e->qlen > sizeof(c->ta_key)) return TB_BAD_INPUT;
        memcpy(c->ta_key, e->q, e->qlen);
        c->ta.pkey.key.ec.curve = e->curve;
        c->ta.pkey.key.ec.q = c->ta_key;
        c->ta.pkey.key.ec.qlen = e->qlen;
    }
    return TB_OK;
}

/* ---- endpoints ------------------------------------------------------- */

#define S(name) {"TLS_" #name, BR_TLS_##name}
static const struct {
    const char *name;
    uint16_t id;
} suites[] = {
    S(ECDHE_ECDSA_WITH_AES_128_GCM_SHA256),       S(ECDHE_ECDSA_WITH_AES_256_GCM_SHA384),
    S(ECDHE_RSA_WITH_AES_128_GCM_SHA256),         S(ECDHE_RSA_WITH_AES_256_GCM_SHA384),
    S(ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256), S(ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256),
    S(ECDHE_ECDSA_WITH_AES_128_CBC_SHA),          S(ECDHE_ECDSA_WITH_AES_256_CBC_SHA),
    S(ECDHE_RSA_WITH_AES_128_CBC_SHA),            S(ECDHE_RSA_WITH_AES_256_CBC_SHA),
    S(ECDHE_ECDSA_WITH_AES_128_CBC_SHA256),       S(ECDHE_ECDSA_WITH_AES_256_CBC_SHA384),
    S(ECDHE_RSA_WITH_AES_128_CBC_SHA256),         S(ECDHE_RSA_WITH_AES_256_CBC_SHA384),
    S(ECDHE_ECDSA_WITH_AES_128_CCM),              S(ECDHE_ECDSA_WITH_AES_256_CCM),
    S(RSA_WITH_AES_128_GCM_SHA256),               S(RSA_WITH_AES_256_GCM_SHA384),
    S(RSA_WITH_AES_128_CBC_SHA),                  S(RSA_WITH_AES_256_CBC_SHA),
    S(RSA_WITH_AES_128_CBC_SHA256),               S(RSA_WITH_AES_256_CBC_SHA256),
};
#undef S

static const struct {
    const char *name;
    int curve;
} groups[] = {{"x25519", BR_EC_curve25519}, {"p256", BR_EC_secp256r1}, {"p384", BR_EC_secp384r1}};

typedef struct {
    tb_side side;
    uint16_t suite;
    creds c;
    char name[256];
    tb_resume resume;
    /* BearSSL's EC code with only some curves announced: the server offers
     * only cfg->group (it picks x25519 > p256 > p384 among the common ones),
     * the client the group then P-256 and P-384 (certificate curves). */
    br_ec_impl ec;
    br_ssl_session_cache_lru cache;
    uint8_t cache_mem[CACHE_BYTES];
    /* the cache BearSSL's server is given: the LRU cache behind a class
     * that notes a hit (BearSSL does not say whether it resumed) */
    const br_ssl_session_cache_class *watch;
    int hit;
} endpoint;

static void cache_save(const br_ssl_session_cache_class **ctx, br_ssl_server_context *sc,
                       const br_ssl_session_parameters *params)
{
    endpoint *e = (endpoint *)((char *)ctx - offsetof(endpoint, watch));
    e->cache.vtable->save(&e->cache.vtable, sc, params);
}

static int cache_load(const br_ssl_session_cache_class **ctx, br_ssl_server_context *sc,
                      br_ssl_session_parameters *params)
{
    endpoint *e = (endpoint *)((char *)ctx - offsetof(endpoint, watch));
    e->hit = e->cache.vtable->load(&e->cache.vtable, sc, params);
    return e->hit;
}

static const br_ssl_session_cache_class watch_class = {sizeof(endpoint), cache_save, cache_load};

static void free_endpoint(void *p)
{
    endpoint *e = p;
    if (e == NULL) return;
    for (size_t i = 0; i < MAX_CHAIN; i++) free(e->c.chain_der[i].data);
    free(e->c.dn.data);
    free(e);
}

static tb_status endpoint_setup(endpoint *e, tb_side side, const tb_tls_config *cfg)
{
    if (cfg->version != 12) {
        tb_set_error("BearSSL 0.6 has no TLS 1.3 (TLS 1.0-1.2 only)");
        return TB_UNSUPPORTED;
    }
    e->suite = 0;
    for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
        if (strcmp(suites[i].name, cfg->suite) == 0) e->suite = suites[i].id;
    }
    if (e->suite == 0) {
        tb_set_error("BearSSL 0.6 has no suite %s (no PSK, DHE or anonymous suites)", cfg->suite);
        return TB_UNSUPPORTED;
    }
    if (cfg->client_chain.len > 0) {
        tb_set_error("mutual authentication is not wired in the BearSSL adapter");
        return TB_UNSUPPORTED;
    }
    if (cfg->skip_verify) {
        tb_set_error("skip_verify is not wired in the BearSSL adapter (its X.509 engine always verifies)");
        return TB_UNSUPPORTED;
    }
    if (cfg->resume == TB_RESUME_TICKET || cfg->resume == TB_RESUME_PSK_ONLY) {
        tb_set_error("BearSSL has no session tickets: TLS 1.2 resumption by session ID only");
        return TB_UNSUPPORTED;
    }
    if (cfg->max_early_data != 0 || cfg->client_share != NULL) {
        tb_set_error("0-RTT and HelloRetryRequest are TLS 1.3: BearSSL has no TLS 1.3");
        return TB_UNSUPPORTED;
    }
    e->ec = *br_ec_get_default();
    if (cfg->group != NULL) {
        int curve = -1;
        for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
            if (strcmp(groups[i].name, cfg->group) == 0) curve = groups[i].curve;
        }
        if (curve < 0) {
            tb_set_error("BearSSL 0.6 has no TLS group %s (x25519, p256, p384 here; no ffdhe, no x448)", cfg->group);
            return TB_UNSUPPORTED;
        }
        uint32_t mask = (uint32_t)1 << curve;
        if (side == TB_SIDE_CLIENT) mask |= ((uint32_t)1 << BR_EC_secp256r1) | ((uint32_t)1 << BR_EC_secp384r1);
        e->ec.supported_curves &= mask;
    }
    e->side = side;
    e->resume = cfg->resume;
    snprintf(e->name, sizeof(e->name), "%s", cfg->server_name != NULL ? cfg->server_name : "");
    if (side == TB_SIDE_SERVER) {
        tb_status st = load_chain(&e->c, cfg->server_chain, cfg->server_key);
        if (st != TB_OK) return st;
        if (cfg->resume == TB_RESUME_SESSION_ID) br_ssl_session_cache_lru_init(&e->cache, e->cache_mem, sizeof(e->cache_mem));
        e->watch = &watch_class;
        return TB_OK;
    }
    return load_trust(&e->c, cfg->trust);
}

static tb_status endpoint_new(tb_side side, const tb_tls_config *cfg, void **out)
{
    endpoint *e = tb_zalloc(sizeof(*e));
    if (e == NULL) return TB_ERROR;
    return tb_settle(endpoint_setup(e, side, cfg), e, free_endpoint, out);
}

/* ---- connections ----------------------------------------------------- */

typedef struct {
    endpoint *e;
    tb_transport tr;
    union {
        br_ssl_client_context client;
        br_ssl_server_context server;
    } u;
    br_x509_minimal_context x509;
    br_ssl_engine_context *eng;
    uint8_t offered_id[32]; /* client: the session ID it offered (resumption) */
    size_t offered_len;
    uint8_t iobuf[BR_SSL_BUFSIZE_BIDI];
} conn;

/* BearSSL allocates nothing and its contexts and record buffer are the
 * caller's: here one static connection per side (a device's usual choice),
 * so a handshake's heap figures read 0 allocations truthfully and the
 * connection's memory is static RAM (the image's .bss, in the size table). */
static conn slots[2];
static int slot_used[2];

static void conn_free(void *p)
{
    conn *c = p;
    if (c == NULL) return;
    slot_used[c == &slots[1]] = 0;
}

static tb_status engine_failed(conn *c)
{
    int err = br_ssl_engine_last_error(c->eng);
    tb_set_error("BearSSL %s engine closed: error %d%s", c->e->side == TB_SIDE_CLIENT ? "client" : "server", err,
                 err >= BR_ERR_RECV_FATAL_ALERT && err < BR_ERR_SEND_FATAL_ALERT ? " (received alert)"
                 : err >= BR_ERR_SEND_FATAL_ALERT                                 ? " (sent alert)"
                                                                                  : "");
    return TB_ERROR;
}

static tb_status conn_setup(conn *c, endpoint *e, const tb_transport *tr, const br_ssl_session_parameters *session)
{
    c->e = e;
    c->tr = *tr;
    if (e->side == TB_SIDE_CLIENT) {
        br_ssl_client_context *cc = &c->u.client;
        br_ssl_client_init_full(cc, &c->x509, &e->c.ta, 1);
        c->eng = &cc->eng;
        /* validity checked at the platform's clock (days since 0 AD, seconds) */
        time_t now = time(NULL);
        br_x509_minimal_set_time(&c->x509, (uint32_t)(719528 + now / 86400), (uint32_t)(now % 86400));
    } else {
        br_ssl_server_context *sc = &c->u.server;
        const creds *k = &e->c;
        if (k->key_type == BR_KEYTYPE_RSA)
            br_ssl_server_init_full_rsa(sc, k->chain, k->chain_len, br_skey_decoder_get_rsa(&k->key));
        else
            br_ssl_server_init_full_ec(sc, k->chain, k->chain_len, BR_KEYTYPE_EC, br_skey_decoder_get_ec(&k->key));
        c->eng = &sc->eng;
        e->hit = 0;
        if (e->resume == TB_RESUME_SESSION_ID) br_ssl_server_set_cache(sc, &e->watch);
    }
    br_ssl_engine_set_versions(c->eng, BR_TLS12, BR_TLS12);
    br_ssl_engine_set_suites(c->eng, &e->suite, 1);
    br_ssl_engine_set_ec(c->eng, &e->ec);
    br_ssl_engine_set_buffer(c->eng, c->iobuf, sizeof(c->iobuf), 1);
    /* the generator's output as the engine's seed: deterministic on firmware
     * (the host engine also mixes in the OS's randomness, as BearSSL does) */
    uint8_t seed[32];
    br_hmac_drbg_generate(&tb_bearssl_rng, seed, sizeof(seed));
    br_ssl_engine_inject_entropy(c->eng, seed, sizeof(seed));
    int ok;
    if (e->side == TB_SIDE_CLIENT) {
        if (session != NULL) {
            br_ssl_engine_set_session_parameters(c->eng, session);
            c->offered_len = session->session_id_len;
            memcpy(c->offered_id, session->session_id, c->offered_len);
        }
        ok = br_ssl_client_reset(&c->u.client, e->name, session != NULL);
    } else {
        ok = br_ssl_server_reset(&c->u.server);
    }
    return ok ? TB_OK : engine_failed(c);
}

static tb_status conn_new(void *endpoint_p, const tb_transport *tr, void *session, void **out)
{
    int side = ((endpoint *)endpoint_p)->side == TB_SIDE_SERVER;
    if (slot_used[side]) {
        tb_set_error("the BearSSL adapter has one static connection per side, and it is in use");
        return TB_ERROR;
    }
    conn *c = &slots[side];
    memset(c, 0, offsetof(conn, iobuf)); /* the engine needs no zeroed record buffer */
    slot_used[side] = 1;
    return tb_settle(conn_setup(c, endpoint_p, tr, session), c, conn_free, out);
}

/* Sends every record the engine has ready. */
static tb_status flush_records(conn *c)
{
    while (br_ssl_engine_current_state(c->eng) & BR_SSL_SENDREC) {
        size_t len;
        uint8_t *buf = br_ssl_engine_sendrec_buf(c->eng, &len);
        long n = c->tr.send(c->tr.t, buf, len);
        if (n <= 0) {
            tb_set_error("transport send failed");
            return TB_ERROR;
        }
        br_ssl_engine_sendrec_ack(c->eng, (size_t)n);
    }
    return TB_OK;
}

/* Feeds the engine what the peer sent: 1 when bytes came, 0 when none. */
static int feed_records(conn *c)
{
    size_t len;
    uint8_t *buf = br_ssl_engine_recvrec_buf(c->eng, &len);
    long n = c->tr.recv(c->tr.t, buf, len);
    if (n <= 0) return 0;
    br_ssl_engine_recvrec_ack(c->eng, (size_t)n);
    return 1;
}

static tb_status step(void *p)
{
    conn *c = p;
    for (;;) {
        unsigned s = br_ssl_engine_current_state(c->eng);
        if (s & BR_SSL_CLOSED) return engine_failed(c);
        if (s & BR_SSL_SENDREC) {
            if (flush_records(c) != TB_OK) return TB_ERROR;
            continue;
        }
        if (s & BR_SSL_SENDAPP) return TB_OK; /* handshake done on this side */
        if ((s & BR_SSL_RECVREC) && feed_records(c)) continue;
        return TB_WANT_READ;
    }
}

static tb_status tls_send(void *p, const uint8_t *data, size_t n)
{
    conn *c = p;
    while (n > 0) {
        unsigned s = br_ssl_engine_current_state(c->eng);
        if (s & BR_SSL_CLOSED) return engine_failed(c);
        if (!(s & BR_SSL_SENDAPP)) {
            if (s & BR_SSL_SENDREC) {
                if (flush_records(c) != TB_OK) return TB_ERROR;
                continue;
            }
            tb_set_error("BearSSL engine cannot send application data now");
            return TB_ERROR;
        }
        size_t len;
        uint8_t *buf = br_ssl_engine_sendapp_buf(c->eng, &len);
        size_t k = n < len ? n : len;
        memcpy(buf, data, k);
        br_ssl_engine_sendapp_ack(c->eng, k);
        data += k;
        n -= k;
    }
    br_ssl_engine_flush(c->eng, 0);
    return flush_records(c);
}

static tb_status tls_recv(void *p, uint8_t *out, size_t cap, size_t *got)
{
    conn *c = p;
    *got = 0;
    for (;;) {
        unsigned s = br_ssl_engine_current_state(c->eng);
        if (s & BR_SSL_CLOSED) return engine_failed(c);
        if (s & BR_SSL_RECVAPP) {
            size_t len;
            uint8_t *buf = br_ssl_engine_recvapp_buf(c->eng, &len);
            size_t k = cap < len ? cap : len;
            memcpy(out, buf, k);
            br_ssl_engine_recvapp_ack(c->eng, k);
            *got = k;
            return TB_OK;
        }
        if (s & BR_SSL_SENDREC) {
            if (flush_records(c) != TB_OK) return TB_ERROR;
            continue;
        }
        if ((s & BR_SSL_RECVREC) && feed_records(c)) continue;
        return TB_WANT_READ;
    }
}

/* ---- resumption ------------------------------------------------------ */

static tb_status session_get(void *p, void **out)
{
    conn *c = p;
    br_ssl_session_parameters *s = tb_zalloc(sizeof(*s));
    if (s == NULL) return TB_ERROR;
    br_ssl_engine_get_session_parameters(c->eng, s);
    *out = s;
    return TB_OK;
}

static void session_free(void *s)
{
    free(s);
}

/* BearSSL says nothing about resumption itself. Client: the server
 * accepted the session ID it offered (an abbreviated handshake). Server:
 * its cache found the client's session (then BearSSL resumes when the
 * version and suite still match, which they do here: one of each). */
static int resumed(void *p)
{
    conn *c = p;
    br_ssl_session_parameters now;
    br_ssl_engine_get_session_parameters(c->eng, &now);
    if (c->e->side == TB_SIDE_CLIENT)
        return c->offered_len > 0 && now.session_id_len == c->offered_len &&
               memcmp(now.session_id, c->offered_id, c->offered_len) == 0;
    return c->e->hit && now.session_id_len > 0;
}

static tb_status early_send(void *p, const uint8_t *d, size_t n)
{
    (void)p;
    (void)d;
    (void)n;
    tb_set_error("0-RTT is TLS 1.3: BearSSL has no TLS 1.3");
    return TB_UNSUPPORTED;
}

static tb_status early_recv(void *p, uint8_t *d, size_t cap, size_t *got)
{
    (void)p;
    (void)d;
    (void)cap;
    *got = 0;
    tb_set_error("0-RTT is TLS 1.3: BearSSL has no TLS 1.3");
    return TB_UNSUPPORTED;
}

TB_DEFINE_TLS_OPS();
