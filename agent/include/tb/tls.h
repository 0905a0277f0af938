/*
 * The TLS part of the adapter contract (growing with issue 3).
 *
 * A connection endpoint never touches a socket: the core hands it a
 * transport, two in-memory byte queues (one per direction) that the core
 * counts and times. Client and server run in one process, stepped in turn by
 * the core, so each side's CPU time, bytes, records and flights are measured
 * exactly, with no kernel in the path.
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

typedef struct {
    int version;             /* 12 or 13 */
    const char *suite;       /* IANA name, e.g. "TLS_AES_128_GCM_SHA256" */
    const char *group;       /* "x25519", "p256", ...; NULL: the library's default.
                              * The key exchange must use exactly this group. In
                              * TLS 1.2 the client's groups list also says which
                              * certificate curves it accepts: a 1.2 client offers
                              * P-256 and P-384 after it; for TLS 1.2 DHE ffdhe* is
                              * the server's parameters. */
    tb_bytes server_chain;   /* PEM, leaf first (what the server sends) */
    tb_bytes server_key;     /* PEM, PKCS#8 */
    tb_bytes trust;          /* PEM root the client verifies the chain against */
    const char *server_name; /* SNI, and the name the client checks */
} tb_tls_config;

typedef struct {
    /* NULL members: the library has no TLS in this build (reported unsupported). */
    /* Once per configuration, untimed: certificates, keys, suites, groups
     * (what a device does at boot, not per connection). TB_UNSUPPORTED
     * when the library cannot do this version/suite/group. */
    tb_status (*endpoint_new)(tb_side side, const tb_tls_config *cfg, void **endpoint);
    void (*endpoint_free)(void *endpoint);
    /* Per connection, timed as part of the handshake. */
    tb_status (*conn_new)(void *endpoint, const tb_transport *tr, void **conn);
    tb_status (*step)(void *conn);
    /* Application data after the handshake: send all of it; recv what has
     * arrived (TB_WANT_READ when nothing has). */
    tb_status (*send)(void *conn, const uint8_t *p, size_t n);
    tb_status (*recv)(void *conn, uint8_t *p, size_t cap, size_t *got);
    void (*conn_free)(void *conn);
} tb_tls_ops;

/* Each adapter with TLS defines this object; the core links a weak empty
 * default for those without, so "unsupported" needs no code. */
extern const tb_tls_ops tb_library_tls;

#endif
