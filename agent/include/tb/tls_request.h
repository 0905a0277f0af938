/* A TLS request's fields, parsed once for every driver: the in-memory pair
 * (core/tls.c) and the socket sides (platform/host/tls_socket.c). */
#ifndef TB_TLS_REQUEST_H
#define TB_TLS_REQUEST_H

/* A request cannot fork more server processes than this (a capacity run
 * needs one per client; the host has a few cores). */
#define TB_TLS_MAX_WORKERS 64u
/* Timed connections summed into one sample, at most (a sample stays seconds, not hours). */
#define TB_TLS_MAX_BATCH 1000u
/* Counted connections of one in-memory memory pass, at most. */
#define TB_TLS_MAX_MEMORY_PASSES 16u

#include "tb/request.h"
#include "tb/tls.h"

#define TB_APP_BYTES 64 /* the classic IoT request and response */

typedef struct {
    tb_tls_config cfg;
    uint64_t warmup, repeats;
    /* timed connections per reported sample (default 1): their CPU time,
     * counts and wall time are summed, their bytes are the first one's */
    uint64_t batch;
    uint64_t transcript; /* keep the first measured connection's bytes */
    uint64_t early;      /* send the request as 0-RTT early data */
    uint64_t bulk;       /* bytes client -> server after the response (throughput) */
    uint64_t stack;      /* the per-side stack pass (default 1) */
    /* the minimum-RAM search: cap this side's heap (0 client, 1 server,
     * -1 none) at heap_limit bytes in the counted passes (memory, stack);
     * with a cap, repeats may be 0 (no timed connection at all) */
    int limit_side;
    uint64_t heap_limit;
    uint64_t memory;     /* sockets: the memory pass, one more counted connection (default 1) */
    /* in memory: counted connections in the memory pass (default 1), each
     * reported: where a handshake's draws move its heap (the host), one
     * connection cannot show how far */
    uint64_t memory_passes;
    /* in memory: set up both endpoints and free them, no connection (what
     * this build accepts: suite, group, credentials); repeats may be 0 */
    uint64_t setup;
    /* in memory: the timed connections' frame at this offset in a 4 KiB page
     * (TB_STACK_PAGE: not placed, the default) and a held heap block, as for
     * primitives (tb_bench_cfg) */
    uint64_t stack_at, heap_shift;
    int side;            /* one side only (the device-side request): 0 client, 1 server; -1 both */
    /* sockets only */
    uint64_t port;        /* server: 0 = any free port; client: where to connect */
    uint64_t duration_ms; /* client: run transactions this long (capacity) */
    uint64_t window_ms;   /* capacity: also report each stretch of transactions this long (0: none) */
    uint64_t workers;     /* server: processes accepting in parallel (capacity), 1..TB_TLS_MAX_WORKERS */
    uint64_t plain;       /* no TLS at all: the TCP baseline */
    uint64_t foreign;     /* the peer is not a tlsbench agent (any response is fine) */
    /* server: before each measured connection (after the memory pass; for a
     * resumed kind the resumed ones), one untimed in-memory connection of the
     * same configuration (tb_tls_warm), for a peer whose process start
     * evicts the server's code and data from the shared caches */
    uint64_t warm;
    uint64_t wait_ms;     /* a peer silent this long has failed (default 20000) */
} tb_tls_request;

/* Fills *req from the fields; on bad input ends the request and returns -1. */
int tb_tls_request_parse(const tb_field *fields, size_t n, tb_tls_request *req);

/* One untimed connection in memory between a client endpoint made on first
 * use (kept in *client_endpoint; the caller frees it) and server_endpoint,
 * preceded by the full handshake it resumes for a resumed kind: it brings the
 * library's code and the server's data back into the caches (core/tls.c). */
tb_status tb_tls_warm(const tb_tls_request *req, void *server_endpoint, void **client_endpoint);

/* What a side's name, resumption mode and so on are called in records. */
const char *tb_side_name(int side);

/* What this library (as built) lacks for the request, before any work:
 * TB_UNSUPPORTED with the reason, else TB_OK. frag: whether the driver
 * reports the fragment length a maximum-fragment request got (the in-memory
 * pair does, the socket sides do not). static inline, so each driver keeps
 * its code where it stood. */
static inline tb_status tb_tls_check_features(const tb_tls_request *req, int frag)
{
    const tb_tls_ops *ops = &tb_library_tls;
    if (ops->endpoint_new == NULL) {
        tb_set_error("no TLS in this library build");
        return TB_UNSUPPORTED;
    }
    if (req->cfg.resume != TB_RESUME_NONE && (ops->session_get == NULL || ops->resumed == NULL)) {
        tb_set_error("resumption is not supported by this adapter");
        return TB_UNSUPPORTED;
    }
    if (frag && req->cfg.max_frag != 0 && ops->frag_len == NULL) {
        tb_set_error("this adapter does not ask for a maximum fragment length");
        return TB_UNSUPPORTED;
    }
    if (req->early && (ops->early_send == NULL || ops->early_recv == NULL)) {
        tb_set_error("0-RTT early data is not supported by this adapter");
        return TB_UNSUPPORTED;
    }
    return TB_OK;
}

#endif
