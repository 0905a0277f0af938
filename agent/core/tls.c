/* The in-memory handshake driver: a client and a server of one library in
 * one process, joined by counted in-memory queues and stepped in turn, each
 * side's work timed on its own. Then the classic IoT exchange (a 64-byte
 * request and a 64-byte response) and, if asked, a bulk transfer. For a
 * resumed handshake each repeat first makes a full one (not reported) whose
 * session the measured one resumes.
 *
 * Time and memory come from different connections: the timed ones run with
 * the allocation hooks only forwarding (tb_timed_begin), and one more
 * connection before the first measured one is the memory pass (per-side
 * heap, the heap check, the transcript), like the stack pass.
 *
 * Placed like primitives (core/bench.c, engine/layout.py): with stack_at
 * the timed connections run with their frame at that offset within a 4 KiB
 * page, and with a block of heap_shift bytes held during each; where the
 * frame landed is reported ("tls_place").
 *
 * With batch > 1 a reported sample is that many timed connections in a row,
 * each from the same generator state: their per-side CPU time, counts and
 * wall time summed (the caller divides by the batch), the bulk transfer and
 * the bytes on the wire the first one's, so exact figures stay per
 * connection. One handshake is 0.1-6 ms; a sample of several spans more of
 * the machine's phases than one does. */
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"
#include "tb/tls.h"
#include "tb/tls_call.h"
#include "tb/tls_request.h"
#include "tb/util.h"
#include "tb/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 64
#define BULK_CHUNK 16384

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
    uint64_t cpu_ns[2], instructions[2], model_cycles[2];
} side_cost;

typedef struct {
    side_cost hs, app, bulk;
    uint64_t wall_ns, bulk_wall_ns;
    tb_wire hs_wire;            /* what crossed until both sides completed the handshake */
    uint64_t round_trips;       /* server flights the client waited for before it completed */
    tb_heap_side_usage heap[2]; /* per side, from its connection's creation to the handshake's end */
    uint64_t conn_peak[2];      /* per side, to the end of the request and response (a heap cap's reach) */
    int64_t system_delta;       /* the system allocator's own change over the same span (checks) */
    tb_wire total_wire;         /* and after the request/response */
    int resumed;
    int steps;
    uint64_t frag_len; /* the client's largest record plaintext after the handshake (0: not asked) */
} result_t;

/* ---- one side's call: timed, its heap charged to it, on its own stack if given ---- */

typedef struct {
    const tb_tls_request *req;
    void *endpoints[2];
    tb_stack *stacks[2]; /* the stack pass only */
    /* a measured connection (no warm-up, pass or priming handshake): its
     * handshake calls go through tb_tls_handshake_client/_server */
    int named;
} pair_t;

static tb_status run_call(const pair_t *pr, int side, tb_tls_call *c, void (*run)(void *), side_cost *cost)
{
    tb_reading a, b;
    tb_heap_side(side);
    tb_read_counters(&a);
    if (pr->stacks[side] != NULL) {
        if (tb_stack_call(pr->stacks[side], run, c) != 0) {
            tb_set_error("could not switch to the %s's stack", tb_side_name(side));
            c->st = TB_ERROR;
        }
    } else {
        run(c);
    }
    tb_read_counters(&b);
    tb_heap_side(-1);
    cost->cpu_ns[side] += b.cpu_ns - a.cpu_ns;
    cost->instructions[side] += b.instructions - a.instructions;
    cost->model_cycles[side] += b.model_cycles - a.model_cycles;
    return c->st;
}

static tb_status charged(const pair_t *pr, side_cost *cost, int side, tb_tls_call *c)
{
    return run_call(pr, side, c, tb_tls_call_run, cost);
}

/* A handshake call: through the side's named function in a measured connection. */
static tb_status charged_hs(const pair_t *pr, side_cost *cost, int side, tb_tls_call *c)
{
    void (*run)(void *) = !pr->named ? tb_tls_call_run : side == 0 ? tb_tls_handshake_client : tb_tls_handshake_server;
    return run_call(pr, side, c, run, cost);
}

/* Sends n bytes from one side and receives them all on the other. */
static tb_status transfer(const pair_t *pr, side_cost *cost, void *conn[2], int from, const uint8_t *msg,
                          uint8_t *got, size_t n)
{
    tb_tls_call s = {.op = TB_CALL_SEND, .conn = conn[from], .in = msg, .n = n};
    tb_status st = charged(pr, cost, from, &s);
    size_t have = 0;
    for (int tries = 0; st == TB_OK && have < n; tries++) {
        size_t k = 0;
        tb_tls_call r = {.op = TB_CALL_RECV, .conn = conn[1 - from], .out = got + have, .n = n - have, .got = &k};
        tb_status rs = charged(pr, cost, 1 - from, &r);
        if (rs == TB_WANT_READ && tries > MAX_STEPS + (int)(n / 1024)) {
            tb_set_error("application data did not arrive");
            st = TB_ERROR;
        } else if (rs != TB_OK && rs != TB_WANT_READ) {
            st = rs;
        }
        have += k;
    }
    return st;
}

static tb_status exchange(const pair_t *pr, void *conn[2], int early, result_t *r)
{
    uint8_t request[TB_APP_BYTES], response[TB_APP_BYTES], got[TB_APP_BYTES];
    memset(request, 'q', sizeof(request));
    memset(response, 'r', sizeof(response));
    tb_status st = TB_OK;
    if (early) {
        /* the request went as early data: the server must have accepted it */
        size_t n = 0;
        tb_tls_call c = {.op = TB_CALL_EARLY_RECV, .conn = conn[1], .out = got, .n = sizeof(got), .got = &n};
        st = charged(pr, &r->app, 1, &c);
        if (st == TB_OK && n == 0) {
            tb_set_error("the server rejected the early data (0-RTT)");
            st = TB_ERROR;
        } else if (st == TB_OK && (n != sizeof(request) || memcmp(got, request, n) != 0)) {
            tb_set_error("early data arrived altered (%zu bytes)", n);
            st = TB_ERROR;
        }
    } else {
        st = transfer(pr, &r->app, conn, 0, request, got, sizeof(request));
        if (st == TB_OK && memcmp(got, request, sizeof(request)) != 0) {
            tb_set_error("the request arrived altered");
            st = TB_ERROR;
        }
    }
    if (st == TB_OK) st = transfer(pr, &r->app, conn, 1, response, got, sizeof(response));
    if (st == TB_OK && memcmp(got, response, sizeof(response)) != 0) {
        tb_set_error("the response arrived altered");
        st = TB_ERROR;
    }
    return st;
}

static tb_status bulk(const pair_t *pr, link_t *link, void *conn[2], result_t *r)
{
    uint8_t *chunk = tb_zalloc(BULK_CHUNK), *got = tb_zalloc(BULK_CHUNK);
    tb_status st = chunk && got ? TB_OK : TB_ERROR;
    tb_reading a, b;
    tb_read_counters(&a);
    for (uint64_t sent = 0; st == TB_OK && sent < pr->req->bulk; sent += BULK_CHUNK) {
        size_t n = pr->req->bulk - sent < BULK_CHUNK ? (size_t)(pr->req->bulk - sent) : BULK_CHUNK;
        memset(chunk, (int)(sent / BULK_CHUNK), n);
        st = transfer(pr, &r->bulk, conn, 0, chunk, got, n);
        if (st == TB_OK && memcmp(chunk, got, n) != 0) {
            tb_set_error("bulk data arrived altered");
            st = TB_ERROR;
        }
    }
    tb_read_counters(&b);
    r->bulk_wall_ns = b.wall_ns - a.wall_ns;
    (void)link;
    free(chunk);
    free(got);
    return st;
}

/* One connection: handshake (resuming `session` if given), request and
 * response, bulk; *session_out (if given) receives the client's session. */
static tb_status connection(const pair_t *pr, link_t *link, void *session, void **session_out, result_t *r,
                            int check_heap, int with_bulk)
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
        tb_tls_call c = {.op = TB_CALL_NEW, .endpoint = pr->endpoints[side], .tr = &tr[side],
                    .session = side == 0 ? session : NULL, .conn_out = &conn[side]};
        st = charged_hs(pr, &r->hs, side, &c);
    }
    int early = pr->req->early && session != NULL; /* the priming connection sends none */
    if (st == TB_OK && early) {
        uint8_t request[TB_APP_BYTES];
        memset(request, 'q', sizeof(request));
        tb_tls_call c = {.op = TB_CALL_EARLY_SEND, .conn = conn[0], .in = request, .n = sizeof(request)};
        st = charged_hs(pr, &r->hs, 0, &c);
    }
    /* Client first; each side steps until it waits; stop when both are done. */
    while (st == TB_OK && (done[0] != TB_OK || done[1] != TB_OK)) {
        if (++r->steps > MAX_STEPS) {
            tb_set_error("handshake did not complete in %d steps (both sides waiting)", MAX_STEPS);
            st = TB_ERROR;
            break;
        }
        for (int side = 0; side < 2; side++) {
            if (done[side] == TB_OK) continue; /* stepping again may renegotiate */
            tb_tls_call c = {.op = TB_CALL_STEP, .conn = conn[side]};
            tb_status s = charged_hs(pr, &r->hs, side, &c);
            if (s != TB_OK && s != TB_WANT_READ) {
                st = s;
                break;
            }
            if (side == 0 && s == TB_OK && done[0] != TB_OK) r->round_trips = link->wire.flights[1];
            done[side] = s;
        }
    }
    r->hs_wire = link->wire;
    if (st == TB_OK && pr->req->cfg.max_frag != 0) r->frag_len = ops->frag_len(conn[0]);
    for (int side = 0; side < 2; side++) tb_heap_side_read(side, &r->heap[side]);
    if (check_heap) r->system_delta = (int64_t)(tb_heap_system_in_use() - system_before);
    if (st == TB_OK && ops->resumed != NULL) {
        int c = ops->resumed(conn[0]), s = ops->resumed(conn[1]);
        r->resumed = c;
        if (session != NULL && !(c && s)) {
            tb_set_error("the handshake was not resumed (client says %s, server says %s)", c ? "resumed" : "full",
                         s ? "resumed" : "full");
            st = TB_ERROR;
        }
    }
    if (st == TB_OK) st = exchange(pr, conn, early, r);
    for (int side = 0; side < 2; side++) {
        tb_heap_side_usage u;
        tb_heap_side_read(side, &u);
        r->conn_peak[side] = u.peak;
    }
    tb_read_counters(&w1);
    r->wall_ns = w1.wall_ns - w0.wall_ns;
    r->total_wire = link->wire;
    if (st == TB_OK && with_bulk && pr->req->bulk > 0) st = bulk(pr, link, conn, r);
    if (st == TB_OK && session_out != NULL) st = ops->session_get(conn[0], session_out);
    for (int side = 0; side < 2; side++) {
        if (conn[side] != NULL) ops->conn_free(conn[side]);
    }
    return st;
}

/* Bytes reserved per direction before a handshake (queues still grow if a
 * flight is larger); a board with little RAM sets less (its board.cmake). */
#ifndef TB_LINK_RESERVE
#define TB_LINK_RESERVE (1u << 16)
#endif

static int link_open(link_t *link, int keep)
{
    memset(link, 0, sizeof(*link));
    tb_wire_init(&link->wire);
    link->keep = keep;
    /* room for a whole handshake up front: no transport allocation inside it */
    for (int d = 0; d < 2; d++) {
        if (tb_queue_reserve(&link->q[d], TB_LINK_RESERVE) != 0 ||
            (keep && tb_queue_reserve(&link->transcript[d], TB_LINK_RESERVE) != 0)) {
            tb_set_error("out of memory");
            tb_note_no_room();
            return -1;
        }
    }
    return 0;
}

static void link_close(link_t *link)
{
    for (int d = 0; d < 2; d++) {
        tb_queue_free(&link->q[d]);
        tb_queue_free(&link->transcript[d]);
    }
}

/* A measured connection, preceded by the full handshake it resumes when
 * resumption is asked for. */
static tb_status measured(const pair_t *pr, link_t *link, result_t *r, int check_heap, int with_bulk)
{
    const tb_tls_ops *ops = &tb_library_tls;
    void *session = NULL;
    if (pr->req->cfg.resume != TB_RESUME_NONE) {
        link_t first;
        result_t ignored;
        pair_t plain = *pr;
        plain.stacks[0] = plain.stacks[1] = NULL;
        plain.named = 0;
        /* the session it resumes is made uncapped: a heap cap is the measured connection's */
        tb_heap_cap_pause(1);
        tb_status st = link_open(&first, 0) == 0 ? TB_OK : TB_ERROR;
        if (st == TB_OK) st = connection(&plain, &first, NULL, &session, &ignored, 0, 0);
        link_close(&first);
        tb_heap_cap_pause(0);
        if (st != TB_OK) return st;
    }
    tb_status st = connection(pr, link, session, NULL, r, check_heap, with_bulk);
    if (session != NULL) ops->session_free(session);
    return st;
}

tb_status tb_tls_warm(const tb_tls_request *req, void *server_endpoint, void **client_endpoint)
{
    tb_status st = *client_endpoint != NULL ? TB_OK
                                            : tb_library_tls.endpoint_new(TB_SIDE_CLIENT, &req->cfg, client_endpoint);
    pair_t pr = {.req = req, .endpoints = {*client_endpoint, server_endpoint}};
    link_t link;
    result_t ignored;
    if (st == TB_OK) st = link_open(&link, 0) == 0 ? TB_OK : TB_ERROR;
    if (st != TB_OK) return st;
    st = measured(&pr, &link, &ignored, 0, 0);
    link_close(&link);
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

static void emit(const char *type, uint64_t i, const result_t *r, uint64_t bulk_bytes, uint64_t batch)
{
    const tb_wire *h = &r->hs_wire, *t = &r->total_wire;
    tb_rec_begin(type);
    /* a counter the platform lacks is left out, never sent as a zero */
    uint32_t have = tb_platform_counters();
    tb_rec_u64("i", i);
    /* the timed figures below are sums over this many connections; bytes, records and bulk are one's */
    if (batch > 1) tb_rec_u64("batch", batch);
    if (have & TB_CTR_WALL_NS) tb_rec_u64("wall_ns", r->wall_ns);
    if (have & TB_CTR_CPU_NS) {
        tb_rec_u64("client_cpu_ns", r->hs.cpu_ns[0]);
        tb_rec_u64("server_cpu_ns", r->hs.cpu_ns[1]);
    }
    if (have & TB_CTR_INSTRUCTIONS) {
        tb_rec_u64("client_instructions", r->hs.instructions[0]);
        tb_rec_u64("server_instructions", r->hs.instructions[1]);
    }
    if (have & TB_CTR_MODEL_CYCLES) {
        tb_rec_u64("client_model_cycles", r->hs.model_cycles[0]);
        tb_rec_u64("server_model_cycles", r->hs.model_cycles[1]);
    }
    tb_rec_u64("c2s_bytes", h->dir[0].bytes);
    tb_rec_u64("s2c_bytes", h->dir[1].bytes);
    tb_rec_u64("c2s_records", h->dir[0].records);
    tb_rec_u64("s2c_records", h->dir[1].records);
    tb_rec_u64("flights", h->flights[0] + h->flights[1]);
    /* the client waits once for every server flight before it completes
     * (TLS 1.3 session tickets after that are not waited for) */
    tb_rec_u64("round_trips", r->round_trips);
    tb_rec_u64("resumed", (uint64_t)r->resumed);
    if (have & TB_CTR_CPU_NS) {
        tb_rec_u64("app_client_cpu_ns", r->app.cpu_ns[0]);
        tb_rec_u64("app_server_cpu_ns", r->app.cpu_ns[1]);
    }
    if (have & TB_CTR_INSTRUCTIONS) {
        tb_rec_u64("app_client_instructions", r->app.instructions[0]);
        tb_rec_u64("app_server_instructions", r->app.instructions[1]);
    }
    if (have & TB_CTR_MODEL_CYCLES) {
        tb_rec_u64("app_client_model_cycles", r->app.model_cycles[0]);
        tb_rec_u64("app_server_model_cycles", r->app.model_cycles[1]);
    }
    tb_rec_u64("total_c2s_bytes", t->dir[0].bytes);
    tb_rec_u64("total_s2c_bytes", t->dir[1].bytes);
    if (bulk_bytes > 0) {
        tb_rec_u64("bulk_bytes", bulk_bytes);
        if (have & TB_CTR_WALL_NS) tb_rec_u64("bulk_wall_ns", r->bulk_wall_ns);
        if (have & TB_CTR_CPU_NS) {
            tb_rec_u64("bulk_client_cpu_ns", r->bulk.cpu_ns[0]);
            tb_rec_u64("bulk_server_cpu_ns", r->bulk.cpu_ns[1]);
        }
        if (have & TB_CTR_INSTRUCTIONS) {
            tb_rec_u64("bulk_client_instructions", r->bulk.instructions[0]);
            tb_rec_u64("bulk_server_instructions", r->bulk.instructions[1]);
        }
        if (have & TB_CTR_MODEL_CYCLES) {
            tb_rec_u64("bulk_client_model_cycles", r->bulk.model_cycles[0]);
            tb_rec_u64("bulk_server_model_cycles", r->bulk.model_cycles[1]);
        }
    }
    tb_rec_end();
}

/* Each side's heap over one more (untimed, counted) connection, and what the
 * transcript and heap check need (keep: the first pass only): the timed
 * connections count nothing. */
static tb_status memory_pass(const pair_t *pr, int keep)
{
    link_t link;
    result_t r;
    tb_status st = tb_rng_restart(); /* the same draws as every measured handshake */
    if (st != TB_OK) return st;
    if (link_open(&link, keep) != 0) return TB_ERROR;
    st = measured(pr, &link, &r, keep, 0);
    if (st == TB_OK) {
        tb_rec_begin("tls_memory");
        if (tb_platform_memory() & TB_MEM_HEAP) {
            tb_rec_u64("client_heap_peak", r.heap[0].peak);
            tb_rec_u64("server_heap_peak", r.heap[1].peak);
            tb_rec_u64("client_heap_held", r.heap[0].held > 0 ? (uint64_t)r.heap[0].held : 0);
            tb_rec_u64("server_heap_held", r.heap[1].held > 0 ? (uint64_t)r.heap[1].held : 0);
        }
        /* this connection's own bytes and records (a signature's length
         * varies between connections): what its transcript is checked with */
        tb_rec_u64("c2s_bytes", r.hs_wire.dir[0].bytes);
        tb_rec_u64("s2c_bytes", r.hs_wire.dir[1].bytes);
        tb_rec_u64("c2s_records", r.hs_wire.dir[0].records);
        tb_rec_u64("s2c_records", r.hs_wire.dir[1].records);
        tb_rec_u64("total_c2s_bytes", r.total_wire.dir[0].bytes);
        tb_rec_u64("total_s2c_bytes", r.total_wire.dir[1].bytes);
        if (pr->req->cfg.max_frag != 0) tb_rec_u64("max_frag", r.frag_len);
        tb_rec_end();
    }
    if (st == TB_OK && keep) {
        emit_heap_check(&r);
        for (int side = 0; side < 2; side++) {
            tb_rec_begin("wire");
            tb_rec_str("from", tb_side_name(side));
            tb_rec_hex("data", link.transcript[side].buf, link.transcript[side].len);
            tb_rec_end();
        }
    }
    link_close(&link);
    return st;
}

/* Each side's peak stack over one more (untimed) connection, each side on
 * its own painted stack; *out (if given) receives the connection's result. */
static tb_status stack_pass(pair_t *pr, result_t *out)
{
    link_t link;
    result_t r;
    tb_status st = tb_rng_restart(); /* the same draws as every measured handshake */
    if (st != TB_OK) return st;
    for (int side = 0; side < 2; side++) {
        pr->stacks[side] = tb_stack_new();
        if (pr->stacks[side] == NULL) st = TB_ERROR;
    }
    if (st == TB_OK && link_open(&link, 0) == 0) {
        st = measured(pr, &link, &r, 0, 0);
        link_close(&link);
    } else {
        tb_set_error("out of memory for the painted stacks");
        tb_note_no_room();
        st = TB_ERROR;
    }
    if (st == TB_OK) {
        tb_rec_begin("tls_stack");
        tb_rec_u64("client_stack", tb_stack_peak(pr->stacks[0]));
        tb_rec_u64("server_stack", tb_stack_peak(pr->stacks[1]));
        tb_rec_end();
        if (out != NULL) *out = r;
    }
    for (int side = 0; side < 2; side++) {
        tb_stack_free(pr->stacks[side]);
        pr->stacks[side] = NULL;
    }
    return st;
}

/* The minimum-RAM search's probe: one connection with one side's heap
 * capped, the handshake, then the request and response checked byte for
 * byte; each side on its painted stack where the platform has them (its
 * stack at this cap). Every probe is this same pass, so the allocator's
 * layout, and with it each block's usable size, is the same in all of them.
 * The cap is lifted before any timed connection. */
static tb_status capped_passes(pair_t *pr)
{
    const tb_tls_request *req = pr->req;
    result_t r;
    tb_status st = TB_OK;
    tb_heap_cap(req->limit_side, req->heap_limit);
    if (tb_platform_memory() & TB_MEM_STACK) {
        st = stack_pass(pr, &r);
    } else {
        link_t link;
        st = link_open(&link, 0) == 0 ? measured(pr, &link, &r, 0, 0) : TB_ERROR;
        link_close(&link);
    }
    uint64_t first_need = 0, refusals = tb_heap_cap_refusals(&first_need);
    tb_heap_cap(-1, 0);
    if (tb_platform_memory() & TB_MEM_HEAP) {
        /* A deterministic search narrows with these: a pass at this cap
         * passes at any cap down to its peak (the same blocks are admitted);
         * a failure fails at any cap below the first refused block's need. */
        tb_rec_begin("tls_cap");
        tb_rec_u64("passed", st == TB_OK);
        tb_rec_u64("refusals", refusals);
        if (refusals > 0) tb_rec_u64("first_need", first_need);
        if (st == TB_OK) {
            tb_rec_u64("client_heap_peak", r.conn_peak[0]);
            tb_rec_u64("server_heap_peak", r.conn_peak[1]);
            if (req->cfg.max_frag != 0) tb_rec_u64("max_frag", r.frag_len);
        }
        tb_rec_end();
    }
    return st;
}

/* ---- placement: the timed connections' frame at a chosen page offset ---- */

typedef struct {
    const pair_t *pr;
    link_t *link;
    result_t *r;
    tb_status st;
    uint64_t at;
    int probe; /* only note where the frame lands */
    int with_bulk;
} placed_t;

static __attribute__((noinline)) void placed_body(placed_t *p)
{
    p->at = (uint64_t)(uintptr_t)__builtin_frame_address(0) % TB_STACK_PAGE;
    if (!p->probe) p->st = measured(p->pr, p->link, p->r, 0, p->with_bulk);
}

static __attribute__((noinline)) void placed_shift(placed_t *p, uint64_t shift)
{
    volatile uint8_t *pad = __builtin_alloca((size_t)shift);
    pad[0] = 0; /* the block is used: it cannot be dropped */
    placed_body(p);
    pad[0] = 1;
}

/* The shift (bytes, 16-byte steps) that puts placed_body's frame at stack_at,
 * from where it lands with the smallest one (the stack grows down). */
static uint64_t shift_for(uint64_t stack_at)
{
    placed_t probe = {.probe = 1};
    placed_shift(&probe, 16);
    return 16 + (probe.at + TB_STACK_PAGE - stack_at) % TB_STACK_PAGE / 16 * 16;
}

/* One timed connection, placed if asked: *at receives where its frame was. */
static tb_status timed_connection(const pair_t *pr, link_t *link, result_t *r, uint64_t shift, uint64_t *at,
                                  int with_bulk)
{
    placed_t p = {pr, link, r, TB_OK, 0, 0, with_bulk};
    uint8_t *heap_pad = NULL;
    if (pr->req->heap_shift) {
        heap_pad = malloc((size_t)pr->req->heap_shift);
        if (heap_pad == NULL) {
            tb_set_error("out of memory for a %llu-byte heap shift", (unsigned long long)pr->req->heap_shift);
            tb_note_no_room();
            return TB_ERROR;
        }
        heap_pad[0] = 0;
    }
    tb_timed_begin(0);
    if (shift) placed_shift(&p, shift);
    else p.st = measured(pr, link, r, 0, with_bulk);
    tb_timed_end();
    free(heap_pad);
    *at = p.at;
    return p.st;
}

static void add_cost(side_cost *to, const side_cost *from)
{
    for (int side = 0; side < 2; side++) {
        to->cpu_ns[side] += from->cpu_ns[side];
        to->instructions[side] += from->instructions[side];
        to->model_cycles[side] += from->model_cycles[side];
    }
}

/* One reported sample: n timed connections, each from the same generator
 * state and on a fresh link (both untimed); *sum receives the first one's
 * result with the others' costs and wall time added. */
static tb_status timed_batch(const pair_t *pr, uint64_t n, result_t *sum, uint64_t shift, uint64_t *at)
{
    tb_status st = TB_OK;
    memset(sum, 0, sizeof(*sum));
    for (uint64_t b = 0; st == TB_OK && b < n; b++) {
        link_t link;
        result_t r;
        /* every handshake starts from the same generator state (untimed): a
         * deterministic seed makes every repeat send the same bytes */
        st = tb_rng_restart();
        if (st != TB_OK) break;
        if (link_open(&link, 0) != 0) {
            link_close(&link);
            return TB_ERROR;
        }
        st = timed_connection(pr, &link, &r, shift, at, b == 0);
        link_close(&link);
        if (st != TB_OK) break;
        if (b == 0) {
            *sum = r;
        } else {
            add_cost(&sum->hs, &r.hs);
            add_cost(&sum->app, &r.app);
            sum->wall_ns += r.wall_ns;
        }
    }
    return st;
}

void tb_tls_serve(const tb_field *fields, size_t n)
{
    const tb_tls_ops *ops = &tb_library_tls;
    tb_tls_request req;
    if (tb_tls_request_parse(fields, n, &req) != 0) return;
    if (req.plain || (req.repeats == 0 && req.limit_side < 0 && !req.setup)) {
        tb_end(TB_BAD_INPUT, req.plain ? "plain (TCP) needs the socket transport" : "repeats must be >= 1");
        return;
    }
    if (req.setup && (req.limit_side >= 0 || req.repeats != 0 || req.warmup != 0)) {
        tb_end(TB_BAD_INPUT, "setup=1 makes no connection: repeats=0 warmup=0 and no heap_limit");
        return;
    }
    tb_clear_error();
    pair_t pr = {.req = &req};
    tb_status st = tb_tls_check_features(&req, 1);
    uint64_t endpoint_heap[2] = {0, 0};
    for (int side = 0; side < 2 && st == TB_OK; side++) {
        /* what a device keeps for the whole session (configuration, parsed
         * certificates and keys): outside any connection and its cap */
        tb_heap_usage u;
        tb_heap_begin();
        st = ops->endpoint_new((tb_side)side, &req.cfg, &pr.endpoints[side]);
        tb_heap_end(&u);
        endpoint_heap[side] = u.held;
    }
    if (st == TB_OK && (tb_platform_memory() & TB_MEM_HEAP)) {
        tb_rec_begin("tls_endpoint");
        tb_rec_u64("client_heap_held", endpoint_heap[0]);
        tb_rec_u64("server_heap_held", endpoint_heap[1]);
        tb_rec_end();
    }
    if (st == TB_OK && req.limit_side >= 0) st = capped_passes(&pr);
    uint64_t calls_before = tb_timed_heap_calls();
    uint64_t shift = req.stack_at < TB_STACK_PAGE ? shift_for(req.stack_at) : 0, at = 0;
    for (uint64_t i = 0; st == TB_OK && i < req.warmup + req.repeats; i++) {
        if (i == req.warmup && req.stack && req.limit_side < 0 && (tb_platform_memory() & TB_MEM_STACK)) {
            st = stack_pass(&pr, NULL);
            if (st != TB_OK) break;
        }
        for (uint64_t k = 0; i == req.warmup && req.limit_side < 0 && k < req.memory_passes && st == TB_OK; k++)
            st = memory_pass(&pr, k == 0 && req.transcript);
        if (st != TB_OK) break;
        result_t r;
        /* a warm-up is one connection: it warms the code and the allocator, a batch of them adds nothing */
        uint64_t n_conn = i < req.warmup ? 1 : req.batch;
        pr.named = i >= req.warmup;
        st = timed_batch(&pr, n_conn, &r, shift, &at);
        if (st == TB_OK)
            emit(i < req.warmup ? "tls_warmup" : "tls", i < req.warmup ? i : i - req.warmup, &r, req.bulk, n_conn);
    }
    for (int side = 0; side < 2; side++) {
        if (pr.endpoints[side] != NULL) ops->endpoint_free(pr.endpoints[side]);
    }
    if (st == TB_OK && shift) {
        tb_rec_begin("tls_place");
        tb_rec_u64("stack_at", at); /* where the timed connections' frame landed */
        tb_rec_u64("heap_shift", req.heap_shift);
        tb_rec_end();
    }
    if (st == TB_OK && (tb_platform_memory() & TB_MEM_HEAP)) {
        tb_rec_begin("process_heap");
        tb_rec_u64("peak", tb_heap_process_peak());
        /* the accounting reached inside the timed connections (0: they ran clean) */
        tb_rec_u64("timed_heap_calls", tb_timed_heap_calls() - calls_before);
        tb_rec_end();
    }
    tb_end(st == TB_WANT_READ ? TB_ERROR : st, st == TB_OK ? NULL : tb_last_error());
}
