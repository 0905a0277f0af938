/* The handshake driver: a client and a server of one library in one
 * process, joined by counted in-memory queues and stepped in turn, each
 * side's work timed on its own. Then the classic IoT exchange: a 64-byte
 * request and a 64-byte response. */
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"
#include "tb/tls.h"
#include "tb/wire.h"

#include <string.h>

/* Libraries without TLS (in this build) leave this empty. */
__attribute__((weak)) const tb_tls_ops tb_library_tls = {0};

#define MAX_STEPS 64
#define APP_BYTES 64

typedef struct {
    tb_queue q[2]; /* by sending side */
    tb_wire wire;
    int keep; /* keep a transcript of every byte, for the "wire" records */
    tb_queue transcript[2];
} link_t;

typedef struct {
    link_t *link;
    int side;
} end_t;

static long link_send(void *t, const uint8_t *p, size_t n)
{
    end_t *e = t;
    tb_wire_note(&e->link->wire, e->side, p, n);
    /* the transport's memory is the core's, not the sending side's */
    tb_heap_side(-1);
    int bad = (e->link->keep && tb_queue_push(&e->link->transcript[e->side], p, n) != 0) ||
              tb_queue_push(&e->link->q[e->side], p, n) != 0;
    tb_heap_side(e->side);
    return bad ? -1 : (long)n;
}

static long link_recv(void *t, uint8_t *p, size_t n)
{
    end_t *e = t;
    return (long)tb_queue_pop(&e->link->q[1 - e->side], p, n);
}

typedef struct {
    uint64_t cpu_ns[2], instructions[2];
} side_cost;

/* Runs one side's call and charges its thread CPU time to that side. */
#define CHARGED(cost, side, call)                                                                            \
    do {                                                                                                     \
        tb_reading a_, b_;                                                                                   \
        tb_heap_side(side);                                                                                  \
        tb_read_counters(&a_);                                                                               \
        call;                                                                                                \
        tb_read_counters(&b_);                                                                               \
        tb_heap_side(-1);                                                                                    \
        (cost)->cpu_ns[side] += b_.cpu_ns - a_.cpu_ns;                                                       \
        (cost)->instructions[side] += b_.instructions - a_.instructions;                                     \
    } while (0)

typedef struct {
    side_cost hs, app;
    uint64_t wall_ns;
    tb_wire hs_wire;    /* what crossed until both sides completed the handshake */
    uint64_t round_trips; /* server flights the client waited for before it completed */
    tb_heap_side_usage heap[2]; /* per side, from its connection's creation to the handshake's end */
    int64_t system_delta;       /* the system allocator's own change over the same span (checks) */
    tb_wire total_wire; /* and after the request/response */
    int steps;
} result_t;

static tb_status handshake_once(void *endpoints[2], link_t *link, result_t *r, int check_heap)
{
    const tb_tls_ops *ops = &tb_library_tls;
    end_t ends[2] = {{link, 0}, {link, 1}};
    tb_transport tr[2] = {{link_send, link_recv, &ends[0]}, {link_send, link_recv, &ends[1]}};
    void *conn[2] = {NULL, NULL};
    tb_status st = TB_OK, done[2] = {TB_WANT_READ, TB_WANT_READ};
    tb_reading w0, w1;
    memset(r, 0, sizeof(*r));
    tb_heap_sides_reset();
    uint64_t system_before = check_heap ? tb_heap_system_in_use() : 0;
    tb_read_counters(&w0);
    for (int side = 0; side < 2 && st == TB_OK; side++) {
        CHARGED(&r->hs, side, st = ops->conn_new(endpoints[side], &tr[side], &conn[side]));
    }
    /* Client first; each side steps until it waits; stop when both are done. */
    while (st == TB_OK && (done[0] != TB_OK || done[1] != TB_OK)) {
        if (++r->steps > MAX_STEPS) {
            tb_set_error("handshake did not complete in %d steps (both sides waiting)", MAX_STEPS);
            st = TB_ERROR;
            break;
        }
        for (int side = 0; side < 2; side++) {
            tb_status s;
            if (done[side] == TB_OK) continue; /* stepping again may renegotiate */
            CHARGED(&r->hs, side, s = ops->step(conn[side]));
            if (s != TB_OK && s != TB_WANT_READ) {
                st = s;
                break;
            }
            if (side == 0 && s == TB_OK && done[0] != TB_OK) r->round_trips = link->wire.flights[1];
            done[side] = s;
        }
    }
    r->hs_wire = link->wire;
    for (int side = 0; side < 2; side++) tb_heap_side_read(side, &r->heap[side]);
    if (check_heap) r->system_delta = (int64_t)(tb_heap_system_in_use() - system_before);
    if (st == TB_OK) {
        /* the request and the response */
        uint8_t msg[APP_BYTES], got[APP_BYTES];
        for (int k = 0; k < 2 && st == TB_OK; k++) {
            int from = k, to = 1 - k;
            memset(msg, 'a' + k, sizeof(msg));
            CHARGED(&r->app, from, st = ops->send(conn[from], msg, sizeof(msg)));
            size_t have = 0;
            for (int tries = 0; st == TB_OK && have < sizeof(got); tries++) {
                size_t n = 0;
                tb_status s;
                CHARGED(&r->app, to, s = ops->recv(conn[to], got + have, sizeof(got) - have, &n));
                if (s == TB_WANT_READ && tries > MAX_STEPS) {
                    tb_set_error("application data did not arrive");
                    st = TB_ERROR;
                } else if (s != TB_OK && s != TB_WANT_READ) {
                    st = s;
                }
                have += n;
            }
            if (st == TB_OK && memcmp(got, msg, sizeof(msg)) != 0) {
                tb_set_error("application data arrived altered");
                st = TB_ERROR;
            }
        }
    }
    tb_read_counters(&w1);
    r->wall_ns = w1.wall_ns - w0.wall_ns;
    r->total_wire = link->wire;
    for (int side = 0; side < 2; side++) {
        if (conn[side] != NULL) ops->conn_free(conn[side]);
    }
    return st;
}

static void emit_heap_check(const result_t *r)
{
    /* our per-side figures next to the system allocator's own, for tests */
    tb_rec_begin("heap_check");
    tb_rec_u64("system_delta", r->system_delta > 0 ? (uint64_t)r->system_delta : 0);
    tb_rec_u64("held", (uint64_t)(r->heap[0].held + r->heap[1].held));
    tb_rec_u64("blocks", (uint64_t)(r->heap[0].blocks + r->heap[1].blocks));
    tb_rec_end();
}

static void emit(const char *type, uint64_t i, const result_t *r)
{
    const tb_wire *h = &r->hs_wire, *t = &r->total_wire;
    tb_rec_begin(type);
    tb_rec_u64("i", i);
    tb_rec_u64("wall_ns", r->wall_ns);
    tb_rec_u64("client_cpu_ns", r->hs.cpu_ns[0]);
    tb_rec_u64("server_cpu_ns", r->hs.cpu_ns[1]);
    if (tb_platform_counters() & TB_CTR_INSTRUCTIONS) {
        tb_rec_u64("client_instructions", r->hs.instructions[0]);
        tb_rec_u64("server_instructions", r->hs.instructions[1]);
    }
    tb_rec_u64("c2s_bytes", h->dir[0].bytes);
    tb_rec_u64("s2c_bytes", h->dir[1].bytes);
    tb_rec_u64("c2s_records", h->dir[0].records);
    tb_rec_u64("s2c_records", h->dir[1].records);
    tb_rec_u64("flights", h->flights[0] + h->flights[1]);
    /* the client waits once for every server flight before it completes
     * (TLS 1.3 session tickets after that are not waited for) */
    tb_rec_u64("round_trips", r->round_trips);
    if (tb_platform_memory() & TB_MEM_HEAP) {
        tb_rec_u64("client_heap_peak", r->heap[0].peak);
        tb_rec_u64("server_heap_peak", r->heap[1].peak);
        tb_rec_u64("client_heap_held", r->heap[0].held > 0 ? (uint64_t)r->heap[0].held : 0);
        tb_rec_u64("server_heap_held", r->heap[1].held > 0 ? (uint64_t)r->heap[1].held : 0);
    }
    tb_rec_u64("app_client_cpu_ns", r->app.cpu_ns[0]);
    tb_rec_u64("app_server_cpu_ns", r->app.cpu_ns[1]);
    tb_rec_u64("total_c2s_bytes", t->dir[0].bytes);
    tb_rec_u64("total_s2c_bytes", t->dir[1].bytes);
    tb_rec_end();
}

void tb_tls_serve(const tb_field *fields, size_t n)
{
    const tb_tls_ops *ops = &tb_library_tls;
    tb_tls_config cfg;
    uint64_t version = 13, warmup = 1, repeats = 10, transcript = 0;
    memset(&cfg, 0, sizeof(cfg));
    for (size_t i = 0; i < n; i++) {
        const char *k = fields[i].key, *v = fields[i].value;
        int bad = 0;
        if (strcmp(k, "version") == 0) bad = tb_field_u64(v, &version);
        else if (strcmp(k, "warmup") == 0) bad = tb_field_u64(v, &warmup);
        else if (strcmp(k, "repeats") == 0) bad = tb_field_u64(v, &repeats);
        else if (strcmp(k, "transcript") == 0) bad = tb_field_u64(v, &transcript);
        else if (strcmp(k, "suite") == 0) cfg.suite = v;
        else if (strcmp(k, "group") == 0) cfg.group = v;
        else if (strcmp(k, "name") == 0) cfg.server_name = v;
        else if (strcmp(k, "chain") == 0) bad = tb_field_bytes(v, &cfg.server_chain);
        else if (strcmp(k, "key") == 0) bad = tb_field_bytes(v, &cfg.server_key);
        else if (strcmp(k, "trust") == 0) bad = tb_field_bytes(v, &cfg.trust);
        else {
            tb_set_error("unknown field %s", k);
            tb_end(TB_BAD_INPUT, tb_last_error());
            return;
        }
        if (bad) {
            tb_set_error("field %s is malformed", k);
            tb_end(TB_BAD_INPUT, tb_last_error());
            return;
        }
    }
    if ((version != 12 && version != 13) || cfg.suite == NULL || cfg.server_name == NULL ||
        cfg.server_chain.len == 0 || cfg.server_key.len == 0 || cfg.trust.len == 0 || repeats == 0) {
        tb_end(TB_BAD_INPUT, "handshake needs version=12|13, suite, name, chain, key, trust and repeats >= 1");
        return;
    }
    cfg.version = (int)version;
    if (ops->endpoint_new == NULL) {
        tb_end(TB_UNSUPPORTED, "no TLS in this library build");
        return;
    }
    tb_clear_error();
    void *endpoints[2] = {NULL, NULL};
    tb_status st = TB_OK;
    for (int side = 0; side < 2 && st == TB_OK; side++) {
        st = ops->endpoint_new((tb_side)side, &cfg, &endpoints[side]);
    }
    for (uint64_t i = 0; st == TB_OK && i < warmup + repeats; i++) {
        link_t link;
        result_t r;
        memset(&link, 0, sizeof(link));
        tb_wire_init(&link.wire);
        link.keep = transcript && i == warmup;
        /* room for a whole handshake up front: no transport allocation inside it */
        for (int d = 0; d < 2; d++) {
            if (tb_queue_reserve(&link.q[d], 1u << 16) != 0 ||
                (link.keep && tb_queue_reserve(&link.transcript[d], 1u << 16) != 0)) {
                tb_set_error("out of memory");
                st = TB_ERROR;
            }
        }
        if (st != TB_OK) break;
        st = handshake_once(endpoints, &link, &r, link.keep);
        if (st == TB_OK) emit(i < warmup ? "tls_warmup" : "tls", i < warmup ? i : i - warmup, &r);
        if (st == TB_OK && link.keep) {
            emit_heap_check(&r);
            for (int side = 0; side < 2; side++) {
                tb_rec_begin("wire");
                tb_rec_str("from", side == 0 ? "client" : "server");
                tb_rec_hex("data", link.transcript[side].buf, link.transcript[side].len);
                tb_rec_end();
            }
        }
        for (int d = 0; d < 2; d++) {
            tb_queue_free(&link.q[d]);
            tb_queue_free(&link.transcript[d]);
        }
    }
    for (int side = 0; side < 2; side++) {
        if (endpoints[side] != NULL) ops->endpoint_free(endpoints[side]);
    }
    tb_end(st == TB_WANT_READ ? TB_ERROR : st, st == TB_OK ? NULL : tb_last_error());
}
