/*
 * The TLS part of the adapter contract (growing with issue 3).
 *
 * A connection endpoint never touches a socket: the core hands it a
 * transport, two in-memory byte queues (one per direction) that the core
 * counts and times. Client and server run in one process, stepped in turn by
 * the core, so each side's CPU time, bytes, records and flights are measured
 * exactly, with no kernel in the path. The same endpoints also run over a
 * loopback socket (platform/host/tls_socket.c), one side per process.
 *
 * step() advances the handshake as far as it can without new input from
 * the peer: TB_OK when the handshake is complete on this side, TB_WANT_READ
 * when it needs the peer's bytes, anything else is a failure (with
 * tb_set_error, naming the alert or the library's error text).
 */
#ifndef TB_TLS_H
#define TB_TLS_H

#include "tb/adapter.h"

/* Not a failure: the endpoint waits for its peer. */
#define TB_WANT_READ ((tb_status)5)

typedef enum { TB_SIDE_CLIENT = 0, TB_SIDE_SERVER = 1 } tb_side;

typedef struct {
    /* Non-blocking. send queues all n bytes and returns n. recv returns the
     * bytes available (up to n), 0 when there are none yet. */
    long (*send)(void *t, const uint8_t *p, size_t n);
    long (*recv)(void *t, uint8_t *p, size_t n);
    void *t;
} tb_transport;

typedef enum {
    TB_RESUME_NONE = 0,
    TB_RESUME_SESSION_ID = 1, /* TLS 1.2: the server's session cache, no tickets */
    TB_RESUME_TICKET = 2,     /* TLS 1.2: RFC 5077 ticket; TLS 1.3: ticket PSK with
                               * (EC)DHE (psk_dhe_ke), the group as configured */
    TB_RESUME_PSK_ONLY = 3,   /* TLS 1.3: ticket PSK without (EC)DHE (psk_ke) */
} tb_resume;

typedef struct {
    int version;             /* 12 or 13 */
    const char *suite;       /* IANA name, e.g. "TLS_AES_128_GCM_SHA256" */
    const char *group;       /* "x25519", "p256", ...; NULL: the library's default
                              * (and for PSK suites: none). The key exchange must use
                              * exactly this group. In TLS 1.2 the client's groups
                              * list also says which certificate curves it accepts:
                              * a 1.2 client offers P-256 and P-384 after it (and so
                              * does a 1.2 server that verifies a client certificate,
                              * where a library checks the client's curve against
                              * its own list); for TLS 1.2 DHE ffdhe* is the
                              * server's parameters. */
    tb_bytes server_chain;   /* PEM, leaf first (what the server sends); empty for PSK suites */
    tb_bytes server_key;     /* PEM, PKCS#8 */
    tb_bytes trust;          /* PEM root: the client verifies the server's chain
                              * against it, and in mutual authentication the server
                              * the client's */
    const char *server_name; /* SNI, and the name the client checks */
    /* Mutual authentication when client_chain is not empty: the client
     * presents it, the server requires a certificate and verifies it. */
    tb_bytes client_chain;   /* PEM, leaf first */
    tb_bytes client_key;     /* PEM, PKCS#8 */
    /* TLS 1.3 HelloRetryRequest: the group of the client's first key share
     * (it still lists `group` in supported_groups, after this one). The
     * server accepts only `group`, so it must ask again. NULL: the client's
     * first share is `group` (no HelloRetryRequest). */
    const char *client_share;
    /* Resumption both endpoints enable (a server issues tickets or caches
     * sessions only when asked to). */
    tb_resume resume;
    /* TLS 1.3 0-RTT (with TB_RESUME_TICKET or TB_RESUME_PSK_ONLY): the server
     * accepts up to this many bytes of early data; the client sends the
     * data given to early_send. 0: no early data. */
    uint32_t max_early_data;
    /* TLS 1.2 PSK suites (TLS_PSK_*, TLS_ECDHE_PSK_*, TLS_DHE_PSK_*): the
     * shared key and its identity, on both sides. */
    tb_bytes psk;
    const char *psk_identity;
    /* The maximum fragment length (RFC 6066) the client asks for: 512,
     * 1024, 2048 or 4096; 0 asks for none. An adapter without frag_len
     * (below) cannot ask: the core reports it unsupported. */
    uint32_t max_frag;
} tb_tls_config;

typedef struct {
    /* NULL members: the library has no TLS in this build (reported unsupported);
     * NULL optional members (marked so): that feature is reported unsupported. */
    /* Once per configuration, untimed: certificates, keys, suites, groups,
     * session cache / ticket keys (what a device does at boot, not per
     * connection). TB_UNSUPPORTED when the library cannot do this version /
     * suite / group / authentication / resumption / early data. */
    tb_status (*endpoint_new)(tb_side side, const tb_tls_config *cfg, void **endpoint);
    void (*endpoint_free)(void *endpoint);
    /* Per connection, timed as part of the handshake. session (client only,
     * NULL for a full handshake): a session from session_get to offer. */
    tb_status (*conn_new)(void *endpoint, const tb_transport *tr, void *session, void **conn);
    tb_status (*step)(void *conn);
    /* Application data after the handshake: send all of it; recv what has
     * arrived (TB_WANT_READ when nothing has). A TLS 1.3 client's recv also
     * processes the session tickets the server sent after its handshake. */
    tb_status (*send)(void *conn, const uint8_t *p, size_t n);
    tb_status (*recv)(void *conn, uint8_t *p, size_t cap, size_t *got);
    void (*conn_free)(void *conn);

    /* Optional: resumption. session_get (client, after the handshake and
     * the request/response, so TLS 1.3 tickets have arrived): a copy of the
     * session to resume, owned by the caller, freed with session_free. */
    tb_status (*session_get)(void *conn, void **session);
    void (*session_free)(void *session);
    /* Optional: 1 when this side's completed handshake resumed a session
     * (abbreviated 1.2 handshake / 1.3 PSK accepted), else 0. */
    int (*resumed)(void *conn);
    /* Optional: 0-RTT. Client: called once after conn_new and before the
     * first step; the adapter sends the bytes as early data as soon as the
     * library allows (during its first steps). Server: after the handshake,
     * copies out what it accepted as early data (*got = 0 if it rejected
     * or received none); the adapter's step reads and keeps it. */
    tb_status (*early_send)(void *conn, const uint8_t *p, size_t n);
    tb_status (*early_recv)(void *conn, uint8_t *p, size_t cap, size_t *got);
    /* Optional: the largest record plaintext this side sends now (after the
     * handshake: the negotiated maximum fragment length, or its buffer's
     * limit). The adapters that have it ask for cfg->max_frag too. */
    size_t (*frag_len)(void *conn);
} tb_tls_ops;

/* Each adapter with TLS defines this object; the core links a weak empty
 * default for those without, so "unsupported" needs no code. A library
 * adapter's tls.c defines it with TB_DEFINE_TLS_OPS() from static functions
 * named as below (all members, resumption and 0-RTT included). */
extern const tb_tls_ops tb_library_tls;
#define TB_DEFINE_TLS_OPS()                                                                                        \
    const tb_tls_ops tb_library_tls = {endpoint_new, free_endpoint, conn_new,     step,      tls_send,   tls_recv, \
                                       conn_free,    session_get,   session_free, resumed,   early_send, early_recv, \
                                       NULL}
/* The same with frag_len (a static function of that name): maximum fragment length. */
#define TB_DEFINE_TLS_OPS_FRAG()                                                                                   \
    const tb_tls_ops tb_library_tls = {endpoint_new, free_endpoint, conn_new,     step,      tls_send,   tls_recv, \
                                       conn_free,    session_get,   session_free, resumed,   early_send, early_recv, \
                                       frag_len}

#endif
