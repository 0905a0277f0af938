/* GnuTLS TLS endpoints over the core's in-memory transport (custom
 * push/pull callbacks on a gnutls_session_t).
 *
 * Pinning: one priority string per configuration, built on GnuTLS's own
 * "NORMAL" defaults and narrowed to exactly the version, the suite's key
 * exchange (TLS 1.2), cipher and MAC, and the group. Everything else
 * (signature algorithms, extensions, tickets, middlebox compatibility) stays
 * at the library's defaults.
 *
 * Suite names: GnuTLS names its suites its own way (e.g.
 * TLS_ECDHE_ECDSA_AES_128_CBC_SHA1 for IANA's
 * TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA). Both names are reduced to one
 * canonical form (upper case, no "_WITH", a final "_SHA1" read as "_SHA", a
 * TLS 1.2 "..._POLY1305" read as "..._POLY1305_SHA256") and the suite is
 * looked up in gnutls_cipher_suite_info(); the priority cache must then
 * offer exactly that suite, and after every handshake the suite GnuTLS
 * negotiated (gnutls_ciphersuite_get, which reports IANA names) must be the
 * one asked for. */
#include "gt.h"
#include "tb/tls.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    tb_side side;
    gnutls_certificate_credentials_t cred;
    gnutls_priority_t prio;
    char suite[128];
    char name[256];
} endpoint_t;

typedef struct {
    gnutls_session_t s;
    endpoint_t *e;
    tb_transport tr;
    /* one chunk read ahead by the pull-timeout callback, served first by pull */
    uint8_t ahead[512];
    size_t ahead_len, ahead_off;
    int done; /* handshake complete: gnutls_handshake() again would renegotiate */
} conn_t;

/* ---- the transport ----------------------------------------------------- */

static ssize_t push(gnutls_transport_ptr_t p, const void *data, size_t n)
{
    conn_t *c = p;
    long r = c->tr.send(c->tr.t, data, n);
    if (r < 0) {
        gnutls_transport_set_errno(c->s, ENOMEM);
        return -1;
    }
    return (ssize_t)r;
}

static ssize_t pull(gnutls_transport_ptr_t p, void *data, size_t n)
{
    conn_t *c = p;
    if (c->ahead_off < c->ahead_len) {
        size_t k = c->ahead_len - c->ahead_off;
        if (k > n) k = n;
        memcpy(data, c->ahead + c->ahead_off, k);
        c->ahead_off += k;
        return (ssize_t)k;
    }
    long r = c->tr.recv(c->tr.t, data, n);
    if (r <= 0) {
        gnutls_transport_set_errno(c->s, EAGAIN);
        return -1;
    }
    return (ssize_t)r;
}

/* GnuTLS asks this (instead of select() on a descriptor) whether data is
 * waiting: > 0 yes, 0 no. Nothing ever arrives later within one step. */
static int pull_timeout(gnutls_transport_ptr_t p, unsigned int ms)
{
    conn_t *c = p;
    (void)ms;
    if (c->ahead_off < c->ahead_len) return 1;
    long r = c->tr.recv(c->tr.t, c->ahead, sizeof(c->ahead));
    if (r <= 0) return 0;
    c->ahead_len = (size_t)r;
    c->ahead_off = 0;
    return 1;
}

/* ---- configuration ----------------------------------------------------- */

static const char *group_token(const char *g)
{
    static const char *const map[][2] = {
        {"x25519", "GROUP-X25519"},       {"x448", "GROUP-X448"},          {"p256", "GROUP-SECP256R1"},
        {"p384", "GROUP-SECP384R1"},      {"p521", "GROUP-SECP521R1"},     {"ffdhe2048", "GROUP-FFDHE2048"},
        {"ffdhe3072", "GROUP-FFDHE3072"}, {"ffdhe4096", "GROUP-FFDHE4096"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(map[i][0], g) == 0) return map[i][1];
    }
    return NULL;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The canonical form both IANA and GnuTLS suite names reduce to. */
static void canonical(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; in[i] != '\0' && n + 1 < cap; i++) {
        if (strncmp(in + i, "_WITH_", 6) == 0) i += 5; /* keep the second '_' */
        out[n++] = (char)toupper((unsigned char)in[i]);
    }
    out[n] = '\0';
    if (ends_with(out, n, "_SHA1")) out[n - 1] = '\0';
    else if (ends_with(out, n, "_CHACHA20_POLY1305") && n + 8 < cap) strcat(out, "_SHA256");
}

typedef struct {
    size_t index;
    gnutls_kx_algorithm_t kx;
    gnutls_cipher_algorithm_t cipher;
    gnutls_mac_algorithm_t mac;
    gnutls_protocol_t min_version;
} suite_t;

static int find_suite(const char *iana, suite_t *out)
{
    char want[128], have[128];
    const char *name;
    unsigned char id[2];
    canonical(iana, want, sizeof(want));
    for (size_t i = 0; (name = gnutls_cipher_suite_info(i, id, &out->kx, &out->cipher, &out->mac,
                                                         &out->min_version)) != NULL;
         i++) {
        canonical(name, have, sizeof(have));
        if (strcmp(want, have) == 0) {
            out->index = i;
            return 1;
        }
    }
    return 0;
}

static int is_dhe(gnutls_kx_algorithm_t kx)
{
    return kx == GNUTLS_KX_DHE_RSA || kx == GNUTLS_KX_DHE_DSS;
}

static int is_ecdhe(gnutls_kx_algorithm_t kx)
{
    return kx == GNUTLS_KX_ECDHE_RSA || kx == GNUTLS_KX_ECDHE_ECDSA;
}

/* Builds the priority string; TB_UNSUPPORTED (with the reason) when GnuTLS
 * cannot do this version/suite/group with certificates. */
static tb_status build_priority(const tb_tls_config *cfg, const suite_t *su, char *out, size_t cap)
{
    int tls13_suite = su->min_version == GNUTLS_TLS1_3;
    if ((cfg->version == 13) != tls13_suite) {
        tb_set_error("GnuTLS suite %s is not a TLS 1.%d suite", cfg->suite, cfg->version == 13 ? 3 : 2);
        return TB_UNSUPPORTED;
    }
    const char *group = NULL;
    if (cfg->group != NULL) {
        group = group_token(cfg->group);
        if (group == NULL) {
            tb_set_error("GnuTLS has no group %s", cfg->group);
            return TB_UNSUPPORTED;
        }
    }
    int n;
    if (cfg->version == 13) {
        n = snprintf(out, cap, "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+%s:-MAC-ALL:+%s",
                     gnutls_cipher_get_name(su->cipher), gnutls_mac_get_name(su->mac));
    } else {
        gnutls_kx_algorithm_t kx = su->kx;
        if (kx != GNUTLS_KX_RSA && !is_dhe(kx) && !is_ecdhe(kx)) {
            tb_set_error("GnuTLS suite %s needs %s credentials (only certificates here)", cfg->suite,
                         gnutls_kx_get_name(kx));
            return TB_UNSUPPORTED;
        }
        if (cfg->group != NULL && (is_dhe(kx) || is_ecdhe(kx)) &&
            is_dhe(kx) != (strncmp(cfg->group, "ffdhe", 5) == 0)) {
            tb_set_error("suite %s cannot use group %s", cfg->suite, cfg->group);
            return TB_UNSUPPORTED;
        }
        n = snprintf(out, cap, "NORMAL:-VERS-ALL:+VERS-TLS1.2:-KX-ALL:+%s:-CIPHER-ALL:+%s:-MAC-ALL:+%s",
                     gnutls_kx_get_name(kx), gnutls_cipher_get_name(su->cipher), gnutls_mac_get_name(su->mac));
    }
    if (n > 0 && group != NULL) n += snprintf(out + n, cap - (size_t)n, ":-GROUP-ALL:+%s", group);
    if (n <= 0 || (size_t)n >= cap) {
        tb_set_error("priority string too long");
        return TB_ERROR;
    }
    return TB_OK;
}

/* The priority cache must offer exactly the suite asked for. */
static int offers_only(gnutls_priority_t prio, size_t index)
{
    unsigned sidx, found = 0, others = 0;
    for (unsigned i = 0;; i++) {
        int r = gnutls_priority_get_cipher_suite_index(prio, i, &sidx);
        if (r == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE) break;
        if (r == GNUTLS_E_UNKNOWN_CIPHER_SUITE) continue;
        if (r < 0) return 0;
        if (sidx == index) found++;
        else others++;
    }
    return found == 1 && others == 0;
}

static tb_status load_server(endpoint_t *e, const tb_tls_config *cfg, const suite_t *su)
{
    gnutls_datum_t chain = {(unsigned char *)cfg->server_chain.data, (unsigned)cfg->server_chain.len};
    gnutls_datum_t key = {(unsigned char *)cfg->server_key.data, (unsigned)cfg->server_key.len};
    int r = gnutls_certificate_set_x509_key_mem2(e->cred, &chain, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (r < 0) return gt_fail("server certificate and key (gnutls_certificate_set_x509_key_mem2)", r);
    if (cfg->version == 12 && is_dhe(su->kx)) {
        /* RFC 7919 negotiation picks the client's FFDHE group; these are
         * the parameters for a client that offers none. */
        gnutls_sec_param_t sp = cfg->group != NULL && strcmp(cfg->group, "ffdhe3072") == 0 ? GNUTLS_SEC_PARAM_HIGH
                                : cfg->group != NULL && strcmp(cfg->group, "ffdhe4096") == 0
                                    ? GNUTLS_SEC_PARAM_ULTRA
                                    : GNUTLS_SEC_PARAM_MEDIUM;
        r = gnutls_certificate_set_known_dh_params(e->cred, sp);
        if (r < 0) return gt_fail("gnutls_certificate_set_known_dh_params", r);
    }
    return TB_OK;
}

static tb_status load_trust(endpoint_t *e, const tb_tls_config *cfg)
{
    gnutls_datum_t ca = {(unsigned char *)cfg->trust.data, (unsigned)cfg->trust.len};
    int r = gnutls_certificate_set_x509_trust_mem(e->cred, &ca, GNUTLS_X509_FMT_PEM);
    if (r < 0) return gt_fail("trust anchor (gnutls_certificate_set_x509_trust_mem)", r);
    if (r == 0) {
        tb_set_error("trust anchor: no certificate in the PEM");
        return TB_ERROR;
    }
    return TB_OK;
}

static void free_endpoint(void *p)
{
    endpoint_t *e = p;
    if (e == NULL) return;
    if (e->prio != NULL) gnutls_priority_deinit(e->prio);
    if (e->cred != NULL) gnutls_certificate_free_credentials(e->cred);
    free(e);
}

static tb_status endpoint_new(tb_side side, const tb_tls_config *cfg, void **out)
{
    suite_t su;
    char prio[512];
    if (!find_suite(cfg->suite, &su)) {
        tb_set_error("GnuTLS has no suite %s", cfg->suite);
        return TB_UNSUPPORTED;
    }
    tb_status st = build_priority(cfg, &su, prio, sizeof(prio));
    if (st != TB_OK) return st;
    endpoint_t *e = tb_zalloc(sizeof(*e));
    if (e == NULL) return TB_ERROR;
    e->side = side;
    snprintf(e->suite, sizeof(e->suite), "%s", cfg->suite);
    snprintf(e->name, sizeof(e->name), "%s", cfg->server_name);
    const char *err_pos = NULL;
    int r = gnutls_priority_init2(&e->prio, prio, &err_pos, 0);
    if (r < 0) {
        e->prio = NULL;
        tb_set_error("GnuTLS priority \"%s\" rejected at \"%s\": %s", prio, err_pos ? err_pos : "?",
                     gnutls_strerror(r));
        st = TB_UNSUPPORTED;
    } else if (!offers_only(e->prio, su.index)) {
        tb_set_error("GnuTLS priority \"%s\" does not offer exactly %s", prio, cfg->suite);
        st = TB_UNSUPPORTED;
    } else if ((r = gnutls_certificate_allocate_credentials(&e->cred)) < 0) {
        e->cred = NULL;
        st = gt_fail("gnutls_certificate_allocate_credentials", r);
    } else {
        st = side == TB_SIDE_SERVER ? load_server(e, cfg, &su) : load_trust(e, cfg);
    }
    if (st != TB_OK) {
        free_endpoint(e);
        return st;
    }
    *out = e;
    return TB_OK;
}

/* ---- connections ------------------------------------------------------- */

static void conn_free(void *p)
{
    conn_t *c = p;
    if (c == NULL) return;
    if (c->s != NULL) gnutls_deinit(c->s);
    free(c);
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
    (void)session; /* resumption: not yet */
    endpoint_t *e = ep;
    conn_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->e = e;
    c->tr = *tr;
    int client = e->side == TB_SIDE_CLIENT;
    int r = gnutls_init(&c->s, (client ? GNUTLS_CLIENT : GNUTLS_SERVER) | GNUTLS_NONBLOCK);
    if (r < 0) {
        c->s = NULL;
        conn_free(c);
        return gt_fail("gnutls_init", r);
    }
    const char *what = "gnutls_priority_set";
    if ((r = gnutls_priority_set(c->s, e->prio)) >= 0) {
        what = "gnutls_credentials_set";
        r = gnutls_credentials_set(c->s, GNUTLS_CRD_CERTIFICATE, e->cred);
    }
    if (r >= 0 && client) {
        what = "gnutls_server_name_set";
        r = gnutls_server_name_set(c->s, GNUTLS_NAME_DNS, e->name, strlen(e->name));
        if (r >= 0) gnutls_session_set_verify_cert(c->s, e->name, 0);
    }
    if (r < 0) {
        conn_free(c);
        return gt_fail(what, r);
    }
    gnutls_transport_set_ptr(c->s, c);
    gnutls_transport_set_push_function(c->s, push);
    gnutls_transport_set_pull_function(c->s, pull);
    gnutls_transport_set_pull_timeout_function(c->s, pull_timeout);
    *out = c;
    return TB_OK;
}

/* A fatal GnuTLS error as TB_ERROR: the library's text, the alert, and the
 * certificate verification reason when that is why. */
static tb_status session_fail(conn_t *c, const char *fn, int err)
{
    char alert[96] = "", cert[256] = "";
    if (err == GNUTLS_E_FATAL_ALERT_RECEIVED || err == GNUTLS_E_WARNING_ALERT_RECEIVED) {
        const char *a = gnutls_alert_get_name(gnutls_alert_get(c->s));
        snprintf(alert, sizeof(alert), ", alert received: %s", a ? a : "unknown");
    } else {
        /* tell the peer, as a device would */
        gnutls_alert_send_appropriate(c->s, err);
    }
    if (err == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR || err == GNUTLS_E_CERTIFICATE_ERROR) {
        gnutls_datum_t txt = {NULL, 0};
        unsigned status = gnutls_session_get_verify_cert_status(c->s);
        if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &txt, 0) >= 0 && txt.data) {
            snprintf(cert, sizeof(cert), ", certificate: %s", (const char *)txt.data);
            gnutls_free(txt.data);
            for (size_t k = strlen(cert); k > 0 && cert[k - 1] == ' '; k--) cert[k - 1] = '\0';
        }
    }
    tb_set_error("%s: %s (%d)%s%s", fn, gnutls_strerror(err), err, alert, cert);
    return TB_ERROR;
}

static tb_status step(void *p)
{
    conn_t *c = p;
    int r;
    if (c->done) return TB_OK;
    for (int tries = 0; tries < 16; tries++) {
        r = gnutls_handshake(c->s);
        if (r == GNUTLS_E_SUCCESS) {
            const char *got = gnutls_ciphersuite_get(c->s);
            if (got == NULL || strcmp(got, c->e->suite) != 0) {
                tb_set_error("GnuTLS negotiated %s, not %s", got ? got : "(unknown)", c->e->suite);
                return TB_ERROR;
            }
            c->done = 1;
            return TB_OK;
        }
        if (r == GNUTLS_E_AGAIN) return TB_WANT_READ;
        if (gnutls_error_is_fatal(r)) break;
        /* non-fatal (interrupted, a warning alert): carry on */
    }
    return session_fail(c, "gnutls_handshake", r);
}

static tb_status tls_send(void *p, const uint8_t *data, size_t n)
{
    conn_t *c = p;
    size_t done = 0;
    for (int tries = 0; done < n; tries++) {
        ssize_t r = gnutls_record_send(c->s, data + done, n - done);
        if (r > 0) {
            done += (size_t)r;
        } else if ((r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) && tries < 16) {
            continue; /* again with the same arguments, as GnuTLS requires */
        } else {
            return session_fail(c, "gnutls_record_send", (int)r);
        }
    }
    return TB_OK;
}

static tb_status tls_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    *got = 0;
    for (int tries = 0; tries < 16; tries++) {
        ssize_t r = gnutls_record_recv(c->s, buf, cap);
        if (r > 0) {
            *got = (size_t)r;
            return TB_OK;
        }
        if (r == 0) {
            tb_set_error("gnutls_record_recv: the peer closed the connection");
            return TB_ERROR;
        }
        if (r == GNUTLS_E_AGAIN) return TB_WANT_READ;
        if (gnutls_error_is_fatal((int)r)) return session_fail(c, "gnutls_record_recv", (int)r);
    }
    return TB_WANT_READ;
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
