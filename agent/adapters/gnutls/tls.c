/* GnuTLS TLS endpoints over the core's in-memory transport (custom
 * push/pull callbacks on a gnutls_session_t).
 *
 * Pinning: one priority string per configuration, built on GnuTLS's own
 * "NORMAL" defaults and narrowed to exactly the version, the suite's key
 * exchange (TLS 1.2), cipher and MAC, and the group (a client asked for a
 * HelloRetryRequest lists its first share's group first and sends one key
 * share, GNUTLS_KEY_SHARE_TOP). TLS 1.3 resumption adds the PSK key
 * exchanges that select psk_dhe_ke (+ECDHE-PSK:+DHE-PSK) or psk_ke (+PSK).
 * Everything else (signature algorithms, extensions, middlebox
 * compatibility) stays at the library's defaults; a server issues tickets
 * only when resumption by ticket is asked for.
 *
 * Credentials follow the suite's key exchange: certificates (mutual
 * authentication when a client chain is given), PSK (TLS 1.2 PSK, DHE-PSK,
 * ECDHE-PSK suites) or anonymous (ANON-DH, ANON-ECDH). GnuTLS has no static
 * ECDH key exchange, so TLS_ECDH_ECDSA_* suites are unsupported.
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
#include "gnutls_adapter.h"
#include "tb/tls.h"

#include <gnutls/abstract.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { AUTH_CERT, AUTH_PSK, AUTH_ANON } auth_t;

/* The server's TLS 1.2 session cache: a few fixed slots in the endpoint,
 * so storing a session allocates nothing per handshake. */
#define CACHE_SLOTS 4
#define CACHE_DATA 8192
typedef struct {
    uint8_t id[GNUTLS_MAX_SESSION_ID_SIZE];
    size_t id_len;
    uint8_t data[CACHE_DATA];
    size_t len;
} cache_slot;

/* The ClientHellos with early data seen lately (GnuTLS's anti-replay asks
 * the application to remember them). */
#define REPLAY_SLOTS 32
#define REPLAY_KEY 128
typedef struct {
    uint8_t key[REPLAY_KEY];
    size_t len;
} replay_slot;

/* Certificates a client chain may hold (leaf + intermediates). */
#define CLIENT_CHAIN_MAX 4

typedef struct {
    tb_side side;
    auth_t auth;
    int version, mutual;
    int skip_verify; /* client: no trust anchor, no verification (cfg->skip_verify) */
    tb_resume resume;
    uint32_t max_early;
    unsigned init_flags;
    gnutls_priority_t prio;
    gnutls_certificate_credentials_t cred;
    gnutls_pcert_st client_pcert[CLIENT_CHAIN_MAX]; /* client, mutual: what it presents */
    unsigned client_pcert_n;
    gnutls_privkey_t client_key;
    gnutls_psk_client_credentials_t psk_client;
    gnutls_psk_server_credentials_t psk_server;
    gnutls_anon_client_credentials_t anon_client;
    gnutls_anon_server_credentials_t anon_server;
    gnutls_datum_t psk;        /* the server's copy, for its look-up callback */
    char psk_identity[256];
    gnutls_datum_t ticket_key; /* server: tickets (1.2 RFC 5077 and 1.3) */
    gnutls_anti_replay_t replay;
    replay_slot seen[REPLAY_SLOTS];
    unsigned seen_next;
    cache_slot *cache; /* server, session-id resumption: CACHE_SLOTS */
    unsigned cache_next;
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
    int i = TB_NAME_INDEX(map, g);
    return i < 0 ? NULL : map[i][1];
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
    return kx == GNUTLS_KX_DHE_RSA || kx == GNUTLS_KX_DHE_DSS || kx == GNUTLS_KX_DHE_PSK || kx == GNUTLS_KX_ANON_DH;
}

static int is_ecdhe(gnutls_kx_algorithm_t kx)
{
    return kx == GNUTLS_KX_ECDHE_RSA || kx == GNUTLS_KX_ECDHE_ECDSA || kx == GNUTLS_KX_ECDHE_PSK ||
           kx == GNUTLS_KX_ANON_ECDH;
}

static auth_t auth_of(gnutls_kx_algorithm_t kx)
{
    if (kx == GNUTLS_KX_PSK || kx == GNUTLS_KX_DHE_PSK || kx == GNUTLS_KX_ECDHE_PSK) return AUTH_PSK;
    if (kx == GNUTLS_KX_ANON_DH || kx == GNUTLS_KX_ANON_ECDH) return AUTH_ANON;
    return AUTH_CERT;
}

/* The TLS 1.2 key exchanges this adapter has credentials for. */
static int kx_known(gnutls_kx_algorithm_t kx)
{
    return kx == GNUTLS_KX_RSA || kx == GNUTLS_KX_PSK || is_dhe(kx) || is_ecdhe(kx);
}

/* ":-GROUP-ALL:+GROUP-..." for the group(s) this side offers: a client
 * asked for a HelloRetryRequest lists its first share's group first. */
static tb_status group_part(const tb_tls_config *cfg, tb_side side, char *out, size_t cap)
{
    out[0] = '\0';
    if (cfg->group == NULL) return TB_OK;
    const char *group = group_token(cfg->group), *share = NULL;
    if (group == NULL) {
        tb_set_error("GnuTLS has no group %s", cfg->group);
        return TB_UNSUPPORTED;
    }
    if (cfg->client_share != NULL && side == TB_SIDE_CLIENT && (share = group_token(cfg->client_share)) == NULL) {
        tb_set_error("GnuTLS has no group %s", cfg->client_share);
        return TB_UNSUPPORTED;
    }
    if (share != NULL) snprintf(out, cap, ":-GROUP-ALL:+%s:+%s", share, group);
    else snprintf(out, cap, ":-GROUP-ALL:+%s", group);
    /* the contract (tb/tls.h): a TLS 1.2 client's groups also say which
     * certificate curves it accepts, so it offers P-256 and P-384 after the
     * pinned group (servers other than GnuTLS refuse an ECDSA P-256
     * certificate to a client that lists X25519 alone) */
    if (side == TB_SIDE_CLIENT && cfg->version == 12 && strncmp(cfg->group, "ffdhe", 5) != 0) {
        const char *curves[][2] = {{"p256", "GROUP-SECP256R1"}, {"p384", "GROUP-SECP384R1"}};
        for (size_t i = 0; i < 2; i++) {
            size_t used = strlen(out);
            if (strcmp(cfg->group, curves[i][0]) != 0) snprintf(out + used, cap - used, ":+%s", curves[i][1]);
        }
    }
    return TB_OK;
}

/* TLS 1.3 PSK key-exchange modes follow the PSK key exchanges in the
 * priority string: ECDHE-PSK/DHE-PSK give psk_dhe_ke, PSK gives psk_ke. */
static const char *psk_modes(const tb_tls_config *cfg)
{
    if (cfg->version != 13) return "";
    if (cfg->resume == TB_RESUME_TICKET) return ":+ECDHE-PSK:+DHE-PSK";
    if (cfg->resume == TB_RESUME_PSK_ONLY) return ":+PSK";
    return "";
}

static tb_status check_tls12_kx(const tb_tls_config *cfg, gnutls_kx_algorithm_t kx)
{
    if (!kx_known(kx)) {
        tb_set_error("GnuTLS suite %s needs %s credentials (this adapter has certificates, PSK and anonymous)",
                     cfg->suite, gnutls_kx_get_name(kx));
        return TB_UNSUPPORTED;
    }
    if (cfg->group != NULL && (is_dhe(kx) || is_ecdhe(kx)) &&
        is_dhe(kx) != (strncmp(cfg->group, "ffdhe", 5) == 0)) {
        tb_set_error("suite %s cannot use group %s", cfg->suite, cfg->group);
        return TB_UNSUPPORTED;
    }
    return TB_OK;
}

/* Builds this side's priority string; TB_UNSUPPORTED (with the reason)
 * when GnuTLS cannot do this version/suite/group. */
static tb_status build_priority(const tb_tls_config *cfg, tb_side side, const suite_t *su, char *out, size_t cap)
{
    int tls13_suite = su->min_version == GNUTLS_TLS1_3;
    char groups[96];
    if ((cfg->version == 13) != tls13_suite) {
        tb_set_error("GnuTLS suite %s is not a TLS 1.%d suite", cfg->suite, cfg->version == 13 ? 3 : 2);
        return TB_UNSUPPORTED;
    }
    if (cfg->client_share != NULL && cfg->group == NULL) {
        tb_set_error("a HelloRetryRequest (client_share) needs the server's group");
        return TB_UNSUPPORTED;
    }
    tb_status st = group_part(cfg, side, groups, sizeof(groups));
    if (st == TB_OK && cfg->version == 12) st = check_tls12_kx(cfg, su->kx);
    if (st != TB_OK) return st;
    int n;
    if (cfg->version == 13) {
        n = snprintf(out, cap, "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+%s:-MAC-ALL:+%s%s%s",
                     gnutls_cipher_get_name(su->cipher), gnutls_mac_get_name(su->mac), psk_modes(cfg), groups);
    } else {
        n = snprintf(out, cap, "NORMAL:-VERS-ALL:+VERS-TLS1.2:-KX-ALL:+%s:-CIPHER-ALL:+%s:-MAC-ALL:+%s%s",
                     gnutls_kx_get_name(su->kx), gnutls_cipher_get_name(su->cipher), gnutls_mac_get_name(su->mac),
                     groups);
    }
    if (n <= 0 || (size_t)n >= cap) {
        tb_set_error("priority string too long");
        return TB_ERROR;
    }
    return TB_OK;
}

/* Whether suite `index` can be negotiated in this version: the PSK key
 * exchanges a TLS 1.3 priority names for resumption also list TLS 1.2 PSK
 * suites, which only TLS 1.2 could use. */
static int usable(unsigned index, int tls13)
{
    unsigned char id[2];
    gnutls_kx_algorithm_t kx;
    gnutls_cipher_algorithm_t cipher;
    gnutls_mac_algorithm_t mac;
    gnutls_protocol_t min;
    if (gnutls_cipher_suite_info(index, id, &kx, &cipher, &mac, &min) == NULL) return 1;
    return !tls13 || min == GNUTLS_TLS1_3;
}

/* The priority cache must offer exactly the suite asked for. */
static int offers_only(gnutls_priority_t prio, size_t index, int tls13)
{
    unsigned sidx, found = 0, others = 0;
    for (unsigned i = 0;; i++) {
        int r = gnutls_priority_get_cipher_suite_index(prio, i, &sidx);
        if (r == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE) break;
        if (r == GNUTLS_E_UNKNOWN_CIPHER_SUITE) continue;
        if (r < 0) return 0;
        if (!usable(sidx, tls13)) continue;
        if (sidx == index) found++;
        else others++;
    }
    return found == 1 && others == 0;
}

/* GnuTLS has no static ECDH key exchange: say so rather than "no suite". */
static tb_status no_suite(const char *suite)
{
    if (strncmp(suite, "TLS_ECDH_ECDSA_", 15) == 0 || strncmp(suite, "TLS_ECDH_RSA_", 13) == 0) {
        tb_set_error("GnuTLS has no static ECDH key exchange for %s (gnutls_kx_algorithm_t has no ECDH_ECDSA or "
                     "ECDH_RSA)",
                     suite);
    } else {
        tb_set_error("GnuTLS has no suite %s", suite);
    }
    return TB_UNSUPPORTED;
}

/* ---- credentials ------------------------------------------------------- */

/* RFC 7919 negotiation picks the client's FFDHE group; these are the
 * parameters for a client that offers none. */
static gnutls_sec_param_t dh_strength(const tb_tls_config *cfg)
{
    if (cfg->group != NULL && strcmp(cfg->group, "ffdhe3072") == 0) return GNUTLS_SEC_PARAM_HIGH;
    if (cfg->group != NULL && strcmp(cfg->group, "ffdhe4096") == 0) return GNUTLS_SEC_PARAM_ULTRA;
    return GNUTLS_SEC_PARAM_MEDIUM;
}

static tb_status load_chain(endpoint_t *e, tb_bytes pem_chain, tb_bytes pem_key, const char *who)
{
    gnutls_datum_t chain = {(unsigned char *)pem_chain.data, (unsigned)pem_chain.len};
    gnutls_datum_t key = {(unsigned char *)pem_key.data, (unsigned)pem_key.len};
    int r = gnutls_certificate_set_x509_key_mem2(e->cred, &chain, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (r < 0) {
        tb_set_error("%s certificate and key (gnutls_certificate_set_x509_key_mem2): %s", who, gnutls_strerror(r));
        return TB_ERROR;
    }
    return TB_OK;
}

static tb_status load_trust(endpoint_t *e, const tb_tls_config *cfg)
{
    gnutls_datum_t ca = {(unsigned char *)cfg->trust.data, (unsigned)cfg->trust.len};
    int r = gnutls_certificate_set_x509_trust_mem(e->cred, &ca, GNUTLS_X509_FMT_PEM);
    if (r < 0) return tb_gnutls_fail("trust anchor (gnutls_certificate_set_x509_trust_mem)", r);
    if (r == 0) {
        tb_set_error("trust anchor: no certificate in the PEM");
        return TB_ERROR;
    }
    return TB_OK;
}

/* The client presents its one chain whatever CAs the server names, as a
 * device with one certificate (and gnutls-cli) does: GnuTLS's own choice
 * (find_x509_client_cert) skips an Ed25519 certificate in TLS 1.2 when
 * the server's CertificateRequest names CAs (it maps the ecdsa_sign
 * certificate type to ECDSA keys only), and then sends an empty
 * Certificate message. */
static int present_client_chain(gnutls_session_t s, const gnutls_datum_t *req_ca_rdn, int nreqs,
                                const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length, gnutls_pcert_st **pcert,
                                unsigned int *pcert_length, gnutls_privkey_t *privkey)
{
    (void)req_ca_rdn, (void)nreqs, (void)pk_algos, (void)pk_algos_length;
    const conn_t *c = gnutls_session_get_ptr(s);
    endpoint_t *e = c->e;
    *pcert = e->client_pcert; /* still ours: retrieve_function2 does not free them */
    *pcert_length = e->client_pcert_n;
    *privkey = e->client_key;
    return 0;
}

static tb_status load_client_chain(endpoint_t *e, const tb_tls_config *cfg)
{
    gnutls_datum_t chain = {(unsigned char *)cfg->client_chain.data, (unsigned)cfg->client_chain.len};
    gnutls_datum_t key = {(unsigned char *)cfg->client_key.data, (unsigned)cfg->client_key.len};
    unsigned n = CLIENT_CHAIN_MAX;
    int r = gnutls_pcert_list_import_x509_raw(e->client_pcert, &n, &chain, GNUTLS_X509_FMT_PEM, 0);
    if (r < 0) return tb_gnutls_fail("client certificate chain (gnutls_pcert_list_import_x509_raw)", r);
    e->client_pcert_n = n;
    if ((r = gnutls_privkey_init(&e->client_key)) < 0) {
        e->client_key = NULL;
        return tb_gnutls_fail("gnutls_privkey_init", r);
    }
    r = gnutls_privkey_import_x509_raw(e->client_key, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (r < 0) return tb_gnutls_fail("client key (gnutls_privkey_import_x509_raw)", r);
    gnutls_certificate_set_retrieve_function2(e->cred, present_client_chain);
    return TB_OK;
}

/* Server: its chain, DH parameters for DHE suites, and for mutual
 * authentication the root it checks the client's chain against. Client:
 * the root, and its own chain for mutual authentication. */
static tb_status load_certificates(endpoint_t *e, const tb_tls_config *cfg, const suite_t *su)
{
    int r = gnutls_certificate_allocate_credentials(&e->cred);
    if (r < 0) {
        e->cred = NULL;
        return tb_gnutls_fail("gnutls_certificate_allocate_credentials", r);
    }
    tb_status st = TB_OK;
    if (e->side == TB_SIDE_SERVER) {
        st = load_chain(e, cfg->server_chain, cfg->server_key, "server");
        if (st == TB_OK && cfg->version == 12 && is_dhe(su->kx) &&
            (r = gnutls_certificate_set_known_dh_params(e->cred, dh_strength(cfg))) < 0)
            st = tb_gnutls_fail("gnutls_certificate_set_known_dh_params", r);
        if (st == TB_OK && e->mutual) st = load_trust(e, cfg);
    } else {
        e->skip_verify = cfg->skip_verify;
        if (!cfg->skip_verify) st = load_trust(e, cfg);
        if (st == TB_OK && e->mutual) st = load_client_chain(e, cfg);
    }
    return st;
}

/* The server looks the client's identity up here (GnuTLS frees *key). */
static int psk_lookup(gnutls_session_t s, const gnutls_datum_t *identity, gnutls_datum_t *key)
{
    const conn_t *c = gnutls_session_get_ptr(s);
    const endpoint_t *e = c->e;
    size_t n = strlen(e->psk_identity);
    if (identity->size != n || memcmp(identity->data, e->psk_identity, n) != 0) return -1;
    key->data = gnutls_malloc(e->psk.size);
    if (key->data == NULL) return -1;
    memcpy(key->data, e->psk.data, e->psk.size);
    key->size = e->psk.size;
    return 0;
}

static tb_status load_psk(endpoint_t *e, const tb_tls_config *cfg, const suite_t *su)
{
    if (cfg->psk.len == 0 || cfg->psk_identity == NULL) {
        tb_set_error("suite %s needs psk and psk_identity", cfg->suite);
        return TB_UNSUPPORTED;
    }
    gnutls_datum_t key = {(unsigned char *)cfg->psk.data, (unsigned)cfg->psk.len};
    snprintf(e->psk_identity, sizeof(e->psk_identity), "%s", cfg->psk_identity);
    int r;
    if (e->side == TB_SIDE_CLIENT) {
        if ((r = gnutls_psk_allocate_client_credentials(&e->psk_client)) < 0) {
            e->psk_client = NULL;
            return tb_gnutls_fail("gnutls_psk_allocate_client_credentials", r);
        }
        r = gnutls_psk_set_client_credentials(e->psk_client, e->psk_identity, &key, GNUTLS_PSK_KEY_RAW);
        return r < 0 ? tb_gnutls_fail("gnutls_psk_set_client_credentials", r) : TB_OK;
    }
    if ((r = gnutls_psk_allocate_server_credentials(&e->psk_server)) < 0) {
        e->psk_server = NULL;
        return tb_gnutls_fail("gnutls_psk_allocate_server_credentials", r);
    }
    e->psk.data = malloc(cfg->psk.len);
    if (e->psk.data == NULL) return tb_gnutls_bad("out of memory");
    memcpy(e->psk.data, cfg->psk.data, cfg->psk.len);
    e->psk.size = (unsigned)cfg->psk.len;
    gnutls_psk_set_server_credentials_function2(e->psk_server, psk_lookup);
    if (su->kx == GNUTLS_KX_DHE_PSK && (r = gnutls_psk_set_server_known_dh_params(e->psk_server, dh_strength(cfg))) < 0)
        return tb_gnutls_fail("gnutls_psk_set_server_known_dh_params", r);
    return TB_OK;
}

static tb_status load_anon(endpoint_t *e, const tb_tls_config *cfg, const suite_t *su)
{
    int r;
    if (e->side == TB_SIDE_CLIENT) {
        if ((r = gnutls_anon_allocate_client_credentials(&e->anon_client)) < 0) {
            e->anon_client = NULL;
            return tb_gnutls_fail("gnutls_anon_allocate_client_credentials", r);
        }
        return TB_OK;
    }
    if ((r = gnutls_anon_allocate_server_credentials(&e->anon_server)) < 0) {
        e->anon_server = NULL;
        return tb_gnutls_fail("gnutls_anon_allocate_server_credentials", r);
    }
    if (su->kx == GNUTLS_KX_ANON_DH && (r = gnutls_anon_set_server_known_dh_params(e->anon_server, dh_strength(cfg))) < 0)
        return tb_gnutls_fail("gnutls_anon_set_server_known_dh_params", r);
    return TB_OK;
}

/* ---- resumption and early data (server state) ---------------------------- */

static cache_slot *cache_find(endpoint_t *e, gnutls_datum_t id)
{
    for (unsigned i = 0; i < CACHE_SLOTS; i++) {
        cache_slot *s = &e->cache[i];
        if (s->len > 0 && s->id_len == id.size && memcmp(s->id, id.data, id.size) == 0) return s;
    }
    return NULL;
}

static int cache_store(void *p, gnutls_datum_t id, gnutls_datum_t data)
{
    endpoint_t *e = p;
    if (id.size > GNUTLS_MAX_SESSION_ID_SIZE || data.size > CACHE_DATA) return -1;
    cache_slot *s = cache_find(e, id);
    if (s == NULL) s = &e->cache[e->cache_next++ % CACHE_SLOTS]; /* the oldest goes */
    memcpy(s->id, id.data, id.size);
    s->id_len = id.size;
    memcpy(s->data, data.data, data.size);
    s->len = data.size;
    return 0;
}

/* GnuTLS takes ownership of the copy returned (gnutls_free). */
static gnutls_datum_t cache_retrieve(void *p, gnutls_datum_t id)
{
    gnutls_datum_t out = {NULL, 0};
    cache_slot *s = cache_find(p, id);
    if (s != NULL && (out.data = gnutls_malloc(s->len)) != NULL) {
        memcpy(out.data, s->data, s->len);
        out.size = (unsigned)s->len;
    }
    return out;
}

static int cache_remove(void *p, gnutls_datum_t id)
{
    cache_slot *s = cache_find(p, id);
    if (s == NULL) return -1;
    s->len = 0;
    return 0;
}

/* Anti-replay: a ClientHello seen before (within GnuTLS's window) has its
 * early data rejected. */
static int replay_add(void *p, time_t expires, const gnutls_datum_t *key, const gnutls_datum_t *data)
{
    endpoint_t *e = p;
    (void)expires;
    (void)data;
    if (key->size > REPLAY_KEY) return GNUTLS_E_DB_ERROR;
    for (unsigned i = 0; i < REPLAY_SLOTS; i++) {
        if (e->seen[i].len == key->size && memcmp(e->seen[i].key, key->data, key->size) == 0)
            return GNUTLS_E_DB_ENTRY_EXISTS;
    }
    replay_slot *s = &e->seen[e->seen_next++ % REPLAY_SLOTS];
    memcpy(s->key, key->data, key->size);
    s->len = key->size;
    return 0;
}

/* What the server needs for cfg->resume and early data, made once. */
static tb_status server_resumption(endpoint_t *e)
{
    int r;
    if (e->resume == TB_RESUME_SESSION_ID && (e->cache = tb_zalloc(CACHE_SLOTS * sizeof(cache_slot))) == NULL)
        return TB_ERROR;
    if ((e->resume == TB_RESUME_TICKET || e->resume == TB_RESUME_PSK_ONLY) &&
        (r = gnutls_session_ticket_key_generate(&e->ticket_key)) < 0) {
        e->ticket_key.data = NULL;
        return tb_gnutls_fail("gnutls_session_ticket_key_generate", r);
    }
    if (e->max_early > 0) {
        if ((r = gnutls_anti_replay_init(&e->replay)) < 0) {
            e->replay = NULL;
            return tb_gnutls_fail("gnutls_anti_replay_init", r);
        }
        gnutls_anti_replay_set_add_function(e->replay, replay_add);
        gnutls_anti_replay_set_ptr(e->replay, e);
    }
    return TB_OK;
}

/* gnutls_init flags: tickets only where asked for (a server without them
 * spends nothing on tickets in a full handshake), one key share when the
 * first one is meant to be refused, early data when configured. */
static unsigned init_flags(const tb_tls_config *cfg, tb_side side)
{
    unsigned f = (side == TB_SIDE_CLIENT ? GNUTLS_CLIENT : GNUTLS_SERVER) | GNUTLS_NONBLOCK;
    if (cfg->resume == TB_RESUME_SESSION_ID || (side == TB_SIDE_SERVER && cfg->resume == TB_RESUME_NONE))
        f |= GNUTLS_NO_TICKETS;
    if (side == TB_SIDE_CLIENT && cfg->client_share != NULL) f |= GNUTLS_KEY_SHARE_TOP;
    if (cfg->max_early_data > 0) f |= GNUTLS_ENABLE_EARLY_DATA;
    return f;
}

/* ---- endpoints ----------------------------------------------------------- */

static void free_endpoint(void *p)
{
    endpoint_t *e = p;
    if (e == NULL) return;
    if (e->prio != NULL) gnutls_priority_deinit(e->prio);
    if (e->cred != NULL) gnutls_certificate_free_credentials(e->cred);
    for (unsigned i = 0; i < e->client_pcert_n; i++) gnutls_pcert_deinit(&e->client_pcert[i]);
    if (e->client_key != NULL) gnutls_privkey_deinit(e->client_key);
    if (e->psk_client != NULL) gnutls_psk_free_client_credentials(e->psk_client);
    if (e->psk_server != NULL) gnutls_psk_free_server_credentials(e->psk_server);
    if (e->anon_client != NULL) gnutls_anon_free_client_credentials(e->anon_client);
    if (e->anon_server != NULL) gnutls_anon_free_server_credentials(e->anon_server);
    if (e->replay != NULL) gnutls_anti_replay_deinit(e->replay);
    if (e->ticket_key.data != NULL) {
        gnutls_memset(e->ticket_key.data, 0, e->ticket_key.size);
        gnutls_free(e->ticket_key.data);
    }
    if (e->psk.data != NULL) {
        gnutls_memset(e->psk.data, 0, e->psk.size);
        free(e->psk.data);
    }
    free(e->cache);
    free(e);
}

static tb_status load_credentials(endpoint_t *e, const tb_tls_config *cfg, const suite_t *su)
{
    if (e->auth == AUTH_PSK) return load_psk(e, cfg, su);
    if (e->auth == AUTH_ANON) return load_anon(e, cfg, su);
    return load_certificates(e, cfg, su);
}

static tb_status set_priority(endpoint_t *e, const char *prio, const suite_t *su)
{
    const char *err_pos = NULL;
    int r = gnutls_priority_init2(&e->prio, prio, &err_pos, 0);
    if (r < 0) {
        e->prio = NULL;
        tb_set_error("GnuTLS priority \"%s\" rejected at \"%s\": %s", prio, err_pos ? err_pos : "?",
                     gnutls_strerror(r));
        return TB_UNSUPPORTED;
    }
    if (!offers_only(e->prio, su->index, e->version == 13)) {
        tb_set_error("GnuTLS priority \"%s\" does not offer exactly %s", prio, e->suite);
        return TB_UNSUPPORTED;
    }
    return TB_OK;
}

static tb_status endpoint_new(tb_side side, const tb_tls_config *cfg, void **out)
{
    suite_t su;
    char prio[512];
    if (!find_suite(cfg->suite, &su)) return no_suite(cfg->suite);
    tb_status st = build_priority(cfg, side, &su, prio, sizeof(prio));
    if (st != TB_OK) return st;
    if (cfg->version == 12 && auth_of(su.kx) != AUTH_CERT && cfg->client_chain.len > 0) {
        tb_set_error("suite %s has no client certificate (TLS 1.2 %s sends no CertificateRequest)", cfg->suite,
                     gnutls_kx_get_name(su.kx));
        return TB_UNSUPPORTED;
    }
    endpoint_t *e = tb_zalloc(sizeof(*e));
    if (e == NULL) return TB_ERROR;
    e->side = side;
    e->auth = cfg->version == 12 ? auth_of(su.kx) : AUTH_CERT;
    e->version = cfg->version;
    e->mutual = cfg->client_chain.len > 0;
    e->resume = cfg->resume;
    e->max_early = cfg->max_early_data;
    e->init_flags = init_flags(cfg, side);
    snprintf(e->suite, sizeof(e->suite), "%s", cfg->suite);
    snprintf(e->name, sizeof(e->name), "%s", cfg->server_name ? cfg->server_name : "");
    st = set_priority(e, prio, &su);
    if (st == TB_OK) st = load_credentials(e, cfg, &su);
    if (st == TB_OK && side == TB_SIDE_SERVER) st = server_resumption(e);
    return tb_settle(st, e, free_endpoint, out);
}

/* ---- connections ------------------------------------------------------- */

static void conn_free(void *p)
{
    conn_t *c = p;
    if (c == NULL) return;
    if (c->s != NULL) gnutls_deinit(c->s);
    free(c);
}

static int set_credentials(conn_t *c)
{
    const endpoint_t *e = c->e;
    if (e->auth == AUTH_PSK) {
        return gnutls_credentials_set(c->s, GNUTLS_CRD_PSK,
                                      e->side == TB_SIDE_CLIENT ? (void *)e->psk_client : (void *)e->psk_server);
    }
    if (e->auth == AUTH_ANON) {
        return gnutls_credentials_set(c->s, GNUTLS_CRD_ANON,
                                      e->side == TB_SIDE_CLIENT ? (void *)e->anon_client : (void *)e->anon_server);
    }
    return gnutls_credentials_set(c->s, GNUTLS_CRD_CERTIFICATE, e->cred);
}

/* Server, per session: tickets or the session cache, early data, and the
 * client certificate request. */
static tb_status server_setup(conn_t *c)
{
    endpoint_t *e = c->e;
    int r;
    if (e->ticket_key.data != NULL && (r = gnutls_session_ticket_enable_server(c->s, &e->ticket_key)) < 0)
        return tb_gnutls_fail("gnutls_session_ticket_enable_server", r);
    if (e->cache != NULL) {
        gnutls_db_set_retrieve_function(c->s, cache_retrieve);
        gnutls_db_set_store_function(c->s, cache_store);
        gnutls_db_set_remove_function(c->s, cache_remove);
        gnutls_db_set_ptr(c->s, e);
    }
    if (e->max_early > 0) {
        if ((r = gnutls_record_set_max_early_data_size(c->s, e->max_early)) < 0)
            return tb_gnutls_fail("gnutls_record_set_max_early_data_size", r);
        if (e->replay != NULL) gnutls_anti_replay_enable(c->s, e->replay);
    }
    if (e->mutual) {
        gnutls_certificate_server_set_request(c->s, GNUTLS_CERT_REQUIRE);
        gnutls_session_set_verify_cert(c->s, NULL, 0); /* against cfg->trust */
    }
    return TB_OK;
}

/* Client, per session: the name it checks, and the session it offers. */
static tb_status client_setup(conn_t *c, const gnutls_datum_t *session)
{
    endpoint_t *e = c->e;
    int r;
    if (e->auth == AUTH_CERT) {
        if ((r = gnutls_server_name_set(c->s, GNUTLS_NAME_DNS, e->name, strlen(e->name))) < 0)
            return tb_gnutls_fail("gnutls_server_name_set", r);
        if (!e->skip_verify) gnutls_session_set_verify_cert(c->s, e->name, 0);
    }
    if (session != NULL && (r = gnutls_session_set_data(c->s, session->data, session->size)) < 0)
        return tb_gnutls_fail("gnutls_session_set_data", r);
    return TB_OK;
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
    endpoint_t *e = ep;
    conn_t *c = tb_zalloc(sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->e = e;
    c->tr = *tr;
    int r = gnutls_init(&c->s, e->init_flags);
    if (r < 0) {
        c->s = NULL;
        conn_free(c);
        return tb_gnutls_fail("gnutls_init", r);
    }
    tb_status st = TB_OK;
    if ((r = gnutls_priority_set(c->s, e->prio)) < 0) st = tb_gnutls_fail("gnutls_priority_set", r);
    else if ((r = set_credentials(c)) < 0) st = tb_gnutls_fail("gnutls_credentials_set", r);
    else st = e->side == TB_SIDE_CLIENT ? client_setup(c, session) : server_setup(c);
    if (st != TB_OK) {
        conn_free(c);
        return st;
    }
    gnutls_session_set_ptr(c->s, c);
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

/* ---- resumption and 0-RTT ------------------------------------------------ */

/* The client's session, after the request/response: under TLS 1.3 the
 * ticket has arrived by then (recv processed it). */
static tb_status session_get(void *p, void **out)
{
    conn_t *c = p;
    if (c->e->version == 13 && !(gnutls_session_get_flags(c->s) & GNUTLS_SFLAGS_SESSION_TICKET)) {
        tb_set_error("the GnuTLS client received no TLS 1.3 session ticket");
        return TB_ERROR;
    }
    gnutls_datum_t *d = calloc(1, sizeof(*d));
    if (d == NULL) return tb_gnutls_bad("out of memory");
    int r = gnutls_session_get_data2(c->s, d);
    if (r < 0) {
        free(d);
        return tb_gnutls_fail("gnutls_session_get_data2", r);
    }
    *out = d;
    return TB_OK;
}

static void session_free(void *p)
{
    gnutls_datum_t *d = p;
    if (d == NULL) return;
    gnutls_free(d->data);
    free(d);
}

static int resumed(void *p)
{
    conn_t *c = p;
    return gnutls_session_is_resumed(c->s) != 0;
}

/* GnuTLS queues early data and sends it right after the ClientHello,
 * in the first gnutls_handshake() call. */
static tb_status early_send(void *p, const uint8_t *data, size_t n)
{
    conn_t *c = p;
    ssize_t r = gnutls_record_send_early_data(c->s, data, n);
    if (r < 0) return tb_gnutls_fail("gnutls_record_send_early_data", (int)r);
    /* GnuTLS 3.7 returns 0 once it queued all of it (its buffer append's
     * result), later versions the length */
    if (r != 0 && (size_t)r != n) {
        tb_set_error("gnutls_record_send_early_data took %zd of %zu bytes", r, n);
        return TB_ERROR;
    }
    return TB_OK;
}

/* The server's handshake read the early data into GnuTLS's own buffer;
 * this copies it out. */
static tb_status early_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    *got = 0;
    if (!(gnutls_session_get_flags(c->s) & GNUTLS_SFLAGS_EARLY_DATA)) return TB_OK; /* rejected or none */
    while (*got < cap) {
        ssize_t r = gnutls_record_recv_early_data(c->s, buf + *got, cap - *got);
        if (r == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE || r == 0) break;
        if (r < 0) return tb_gnutls_fail("gnutls_record_recv_early_data", (int)r);
        *got += (size_t)r;
    }
    return TB_OK;
}

TB_DEFINE_TLS_OPS();
