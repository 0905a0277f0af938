/* One side of a handshake on the device: the "tls-device" request.
 *
 * The device runs only its role (client by default, side=server on
 * request); its peer runs elsewhere (on the host) and the TLS records
 * travel over the request/record line channel itself, so the device needs
 * no network. What the side sends leaves as records
 *
 *   tb1 tx data=<hex> crc=...          (at most TB_DEVICE_CHUNK bytes each)
 *
 * written after the side's call returned (the side's count never includes
 * the UART). When the side waits for its peer the device asks
 *
 *   tb1 want max=<bytes> crc=...
 *
 * and reads one line: "rx data=<hex> crc=<crc32 of the bytes, 8 hex>" or
 * "rx eof=1" (the peer closed). Each connection starts with "tb1 open" and
 * ends with "tb1 close", so the host opens and closes its peer's connection
 * in step. Figures are the device side's only, named as in the in-memory
 * handshake (client_instructions, c2s_bytes, ..., client_heap_peak, and
 * client_model_cycles under a board profile's cycle model);
 * bytes, records and flights are counted from the bytes themselves, as
 * there. One more untimed connection on a painted stack gives the side's
 * stack ("tls_stack").
 *
 * The minimum-RAM search's probe (heap_limit, repeats 0): that stack pass
 * alone, with the side's heap capped as in the in-memory probe (core/tls.c,
 * capped_passes), then one "tls_cap" record; the full handshake a resumed
 * one starts from is made uncapped. The transport's buffers (the rx line,
 * the tx and rx queues) are never the side's, so they are never capped.
 *
 * A server's chain and key are longer than a one-side image's request line:
 * they come before the request in "upload" lines (core/upload.c) and the
 * request names them "@". What the harness holds on the heap for the whole
 * request (the rx line, the uploads) is reported in one "tls_harness"
 * record, so a user can add it to the side's figures for a board. */
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"
#include "tb/tls.h"
#include "tb/tls_call.h"
#include "tb/tls_device.h"
#include "tb/tls_request.h"
#include "tb/upload.h"
#include "tb/wire.h"

#include <stdlib.h>
#include <string.h>

/* Bytes per tx record and per rx line: 1 KiB, or less where the hex of a
 * chunk would not fit the board's record line; the rx line is sized from it. */
#ifndef TB_MAX_RECORD
#define TB_MAX_RECORD (1u << 17) /* as core/protocol.c */
#endif
#ifndef TB_DEVICE_CHUNK
#define TB_DEVICE_CHUNK ((TB_MAX_RECORD - 96u) / 2u < 1024u ? (TB_MAX_RECORD - 96u) / 2u : 1024u)
#endif
#define RX_LINE (2u * TB_DEVICE_CHUNK + 48u)
#define MAX_WAITS 256 /* peer lines a connection may wait for before it has failed */

/* Taken from the heap for the request's duration (not the side's: it is
 * the transport's), so images that never serve tls-device pay no RAM. */
static char *rx_line;

typedef struct {
    int side; /* ours */
    tb_wire wire;
    tb_queue tx, rx;
    uint64_t consumed; /* bytes the side has taken from rx */
    int eof;
} dev_link;

static long dev_send(void *t, const uint8_t *p, size_t n)
{
    dev_link *l = t;
    tb_wire_note(&l->wire, l->side, p, n);
    tb_heap_side(-1); /* the transport's memory is the core's, not the side's */
    int bad = tb_queue_push(&l->tx, p, n) != 0;
    tb_heap_side(l->side);
    return bad ? -1 : (long)n;
}

static long dev_recv(void *t, uint8_t *p, size_t n)
{
    dev_link *l = t;
    size_t got = tb_queue_pop(&l->rx, p, n);
    l->consumed += got;
    if (l->rx.off == l->rx.len) l->rx.off = l->rx.len = 0;
    return (long)got;
}

/* Writes what the side sent as tx records. */
static void flush_tx(dev_link *l)
{
    for (size_t off = l->tx.off; off < l->tx.len; off += TB_DEVICE_CHUNK) {
        size_t n = l->tx.len - off < TB_DEVICE_CHUNK ? l->tx.len - off : TB_DEVICE_CHUNK;
        tb_rec_begin("tx");
        tb_rec_hex("data", l->tx.buf + off, n);
        tb_rec_end();
    }
    l->tx.off = l->tx.len = 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* After a call that wants input: 1 when the side must wait for its peer,
 * 0 when it should simply be called again (bytes it has not taken yet, or it
 * took some: a library may stop after one message, e.g. a TLS 1.3 ticket). */
static int must_wait(const dev_link *l, uint64_t consumed_before)
{
    return l->rx.len == l->rx.off && l->consumed == consumed_before;
}

/* Asks the host for the peer's next bytes; 0 when some arrived. */
static int wait_peer(dev_link *l)
{
    if (l->eof) {
        tb_set_error("the peer closed the connection while the %s waited", tb_side_name(l->side));
        return -1;
    }
    tb_rec_begin("want");
    tb_rec_u64("max", TB_DEVICE_CHUNK);
    tb_rec_end();
    long len = tb_read_line(rx_line, RX_LINE);
    if (len < 0) {
        tb_set_error(len == -1 ? "input ended while waiting for the peer" : "rx line longer than %u bytes",
                     (unsigned)RX_LINE - 1u);
        return -1;
    }
    if (strcmp(rx_line, "rx eof=1") == 0) {
        l->eof = 1;
        tb_set_error("the peer closed the connection while the %s waited", tb_side_name(l->side));
        return -1;
    }
    /* "rx data=<hex> crc=<8 hex>": the bytes, checked against their CRC-32 */
    const char *hex = strncmp(rx_line, "rx data=", 8) == 0 ? rx_line + 8 : NULL;
    const char *crc = hex != NULL ? strstr(hex, " crc=") : NULL;
    size_t digits = crc != NULL ? (size_t)(crc - hex) : 0;
    if (crc == NULL || digits == 0 || digits % 2 != 0 || strlen(crc + 5) != 8) {
        tb_set_error("expected 'rx data=<hex> crc=<8 hex>' or 'rx eof=1' from the host");
        return -1;
    }
    uint8_t chunk[64];
    uint32_t sum = 0;
    tb_heap_side(-1);
    for (size_t i = 0; i < digits / 2;) {
        size_t k = 0;
        for (; k < sizeof(chunk) && i < digits / 2; k++, i++) {
            int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                tb_set_error("rx data is not lower-case hex");
                return -1;
            }
            chunk[k] = (uint8_t)(hi << 4 | lo);
        }
        sum = tb_crc32(sum, chunk, k);
        tb_wire_note(&l->wire, 1 - l->side, chunk, k);
        if (tb_queue_push(&l->rx, chunk, k) != 0) {
            tb_set_error("out of memory");
            tb_note_no_room();
            return -1;
        }
    }
    uint32_t want = 0;
    for (int i = 0; i < 8; i++) {
        int v = hexval(crc[5 + i]);
        if (v < 0) {
            tb_set_error("rx crc is not 8 hex digits");
            return -1;
        }
        want = want << 4 | (uint32_t)v;
    }
    if (want != sum) {
        tb_set_error("rx line damaged (crc %08lx, expected %08lx)", (unsigned long)sum, (unsigned long)want);
        return -1;
    }
    return 0;
}

/* ---- the side's calls: timed, its heap charged to it, on its stack if given ---- */

typedef struct {
    uint64_t cpu_ns, instructions, model_cycles; /* model_cycles: under a board profile's cycle model */
} cost_t;

typedef struct {
    const tb_tls_request *req;
    void *endpoint;
    int side;
    tb_stack *stack; /* the stack pass only */
} dev_side;

static tb_status charged(const dev_side *d, dev_link *l, cost_t *cost, tb_tls_call *c)
{
    tb_reading a, b;
    tb_heap_side(d->side);
    tb_read_counters(&a);
    if (d->stack != NULL) {
        if (tb_stack_call(d->stack, tb_tls_call_run, c) != 0) {
            tb_set_error("the %s overflowed its painted stack", tb_side_name(d->side));
            c->st = TB_ERROR;
        }
    } else {
        tb_tls_call_run(c);
    }
    tb_read_counters(&b);
    tb_heap_side(-1);
    cost->cpu_ns += b.cpu_ns - a.cpu_ns;
    cost->instructions += b.instructions - a.instructions;
    cost->model_cycles += b.model_cycles - a.model_cycles;
    flush_tx(l); /* after the count: the UART is not the side's work */
    return c->st;
}

typedef struct {
    cost_t hs, app;
    tb_wire hs_wire, total_wire;
    uint64_t round_trips;
    tb_heap_side_usage heap;
    int resumed;
    size_t frag_len; /* the client's largest record plaintext (max_frag asked; 0 otherwise) */
} dev_result;

/* Receives exactly n bytes of application data, waiting for the peer as needed. */
static tb_status receive(const dev_side *d, dev_link *l, void *conn, cost_t *cost, uint8_t *p, size_t n)
{
    size_t have = 0;
    for (int waits = 0; have < n;) {
        size_t got = 0;
        uint64_t before = l->consumed;
        tb_tls_call c = {.op = TB_CALL_RECV, .conn = conn, .out = p + have, .n = n - have, .got = &got};
        tb_status st = charged(d, l, cost, &c);
        have += got;
        if (st == TB_WANT_READ || (st == TB_OK && got == 0)) {
            if (++waits > MAX_WAITS) {
                tb_set_error("application data did not arrive");
                return TB_ERROR;
            }
            if (must_wait(l, before) && wait_peer(l) != 0) return TB_ERROR;
        } else if (st != TB_OK) {
            return st;
        }
    }
    return TB_OK;
}

/* One connection of our side: handshake (a client resuming `session` if
 * given; a server resuming what its peer offers), the request and response;
 * *session_out (client, if given) gets the session. resumes: the handshake
 * must have resumed. */
static tb_status connection(const dev_side *d, void *session, void **session_out, int resumes, dev_result *r)
{
    const tb_tls_ops *ops = &tb_library_tls;
    dev_link l;
    memset(&l, 0, sizeof(l));
    memset(r, 0, sizeof(*r));
    l.side = d->side;
    tb_wire_init(&l.wire);
    tb_transport tr = {dev_send, dev_recv, &l};
    void *conn = NULL;
    tb_rec_begin("open");
    tb_rec_end();
    tb_heap_sides_reset();
    tb_tls_call c = {.op = TB_CALL_NEW, .endpoint = d->endpoint, .tr = &tr, .session = session, .conn_out = &conn};
    tb_status st = charged(d, &l, &r->hs, &c);
    for (int waits = 0; st == TB_OK;) {
        uint64_t before = l.consumed;
        tb_tls_call s = {.op = TB_CALL_STEP, .conn = conn};
        st = charged(d, &l, &r->hs, &s);
        if (st != TB_WANT_READ) break;
        if (++waits > MAX_WAITS) {
            tb_set_error("handshake did not complete after %d calls waiting for the peer", MAX_WAITS);
            st = TB_ERROR;
        } else {
            st = !must_wait(&l, before) || wait_peer(&l) == 0 ? TB_OK : TB_ERROR;
        }
    }
    /* the client waited once for every server flight before it completed */
    if (st == TB_OK && d->side == 0) r->round_trips = l.wire.flights[1];
    r->hs_wire = l.wire;
    tb_heap_side_read(d->side, &r->heap);
    if (st == TB_OK && d->side == 0 && d->req->cfg.max_frag != 0) r->frag_len = ops->frag_len(conn);
    if (st == TB_OK && ops->resumed != NULL) {
        r->resumed = ops->resumed(conn);
        if (resumes && !r->resumed) {
            tb_set_error("the handshake was not resumed (a full handshake instead)");
            st = TB_ERROR;
        }
    }
    uint8_t request[TB_APP_BYTES], response[TB_APP_BYTES], got[TB_APP_BYTES];
    memset(request, 'q', sizeof(request));
    memset(response, 'r', sizeof(response));
    const uint8_t *mine = d->side == 0 ? request : response, *theirs = d->side == 0 ? response : request;
    for (int turn = 0; turn < 2 && st == TB_OK; turn++) {
        if ((turn == 0) == (d->side == 0)) { /* the client speaks first */
            tb_tls_call s = {.op = TB_CALL_SEND, .conn = conn, .in = mine, .n = TB_APP_BYTES};
            st = charged(d, &l, &r->app, &s);
        } else {
            st = receive(d, &l, conn, &r->app, got, sizeof(got));
            if (st == TB_OK && memcmp(got, theirs, sizeof(got)) != 0) {
                tb_set_error("the %s arrived altered", d->side == 0 ? "response" : "request");
                st = TB_ERROR;
            }
        }
    }
    r->total_wire = l.wire;
    if (st == TB_OK && session_out != NULL) st = ops->session_get(conn, session_out);
    if (conn != NULL) ops->conn_free(conn);
    /* what conn_free sent (a close_notify) is not part of the exchange */
    tb_queue_free(&l.tx);
    tb_queue_free(&l.rx);
    tb_rec_begin("close");
    tb_rec_end();
    return st;
}

/* A measured connection, after the full handshake it resumes if asked (a
 * client keeps that session to offer; a server keeps its ticket key or
 * session cache in its endpoint). */
static tb_status measured(const dev_side *d, dev_result *r)
{
    const tb_tls_ops *ops = &tb_library_tls;
    void *session = NULL;
    int resumes = d->req->cfg.resume != TB_RESUME_NONE;
    if (resumes) {
        dev_side plain = *d;
        dev_result ignored;
        plain.stack = NULL;
        tb_heap_cap_pause(1); /* a heap cap is the measured connection's */
        tb_status st = connection(&plain, NULL, d->side == 0 ? &session : NULL, 0, &ignored);
        tb_heap_cap_pause(0);
        if (st != TB_OK) return st;
    }
    tb_status st = connection(d, session, NULL, resumes, r);
    if (session != NULL) ops->session_free(session);
    return st;
}

static void emit(const char *type, uint64_t i, int side, const dev_result *r)
{
    const tb_wire *h = &r->hs_wire, *t = &r->total_wire;
    const char *me = tb_side_name(side);
    char key[32];
    uint32_t have = tb_platform_counters();
    tb_rec_begin(type);
    tb_rec_u64("i", i);
    tb_rec_str("side", me);
    if (have & TB_CTR_CPU_NS) {
        tb_rec_u64(strcat(strcpy(key, me), "_cpu_ns"), r->hs.cpu_ns);
        tb_rec_u64(strcat(strcat(strcpy(key, "app_"), me), "_cpu_ns"), r->app.cpu_ns);
    }
    if (have & TB_CTR_INSTRUCTIONS) {
        tb_rec_u64(strcat(strcpy(key, me), "_instructions"), r->hs.instructions);
        tb_rec_u64(strcat(strcat(strcpy(key, "app_"), me), "_instructions"), r->app.instructions);
    }
    /* only under a cycle model: without one the figure is absent, never a zero */
    if (have & TB_CTR_MODEL_CYCLES) {
        tb_rec_u64(strcat(strcpy(key, me), "_model_cycles"), r->hs.model_cycles);
        tb_rec_u64(strcat(strcat(strcpy(key, "app_"), me), "_model_cycles"), r->app.model_cycles);
    }
    tb_rec_u64("c2s_bytes", h->dir[0].bytes);
    tb_rec_u64("s2c_bytes", h->dir[1].bytes);
    tb_rec_u64("c2s_records", h->dir[0].records);
    tb_rec_u64("s2c_records", h->dir[1].records);
    tb_rec_u64("flights", h->flights[0] + h->flights[1]);
    if (side == 0) tb_rec_u64("round_trips", r->round_trips);
    tb_rec_u64("resumed", (uint64_t)r->resumed);
    if (tb_platform_memory() & TB_MEM_HEAP) {
        tb_rec_u64(strcat(strcpy(key, me), "_heap_peak"), r->heap.peak);
        tb_rec_u64(strcat(strcpy(key, me), "_heap_held"), r->heap.held > 0 ? (uint64_t)r->heap.held : 0);
    }
    tb_rec_u64("total_c2s_bytes", t->dir[0].bytes);
    tb_rec_u64("total_s2c_bytes", t->dir[1].bytes);
    tb_rec_end();
}

/* The side's peak stack over one more (untimed) connection (*out, if
 * given, gets that connection's result). */
static tb_status stack_pass(dev_side *d, dev_result *out)
{
    dev_result r;
    d->stack = tb_stack_new();
    if (d->stack == NULL) {
        tb_set_error("no painted stack free for the %s", tb_side_name(d->side));
        return TB_ERROR;
    }
    tb_status st = measured(d, &r);
    if (st == TB_OK) {
        char key[24];
        tb_rec_begin("tls_stack");
        tb_rec_u64(strcat(strcpy(key, tb_side_name(d->side)), "_stack"), tb_stack_peak(d->stack));
        tb_rec_end();
        if (out != NULL) *out = r;
    }
    tb_stack_free(d->stack);
    d->stack = NULL;
    return st;
}

/* The minimum-RAM probe: one connection of the side with its heap capped
 * (on its painted stack where the platform has them), then what the search
 * narrows with, as core/tls.c's capped_passes says. */
static tb_status capped_pass(dev_side *d)
{
    const tb_tls_request *req = d->req;
    dev_result r;
    memset(&r, 0, sizeof(r));
    tb_heap_cap(d->side, req->heap_limit);
    tb_status st = tb_rng_restart();
    if (st == TB_OK) st = (tb_platform_memory() & TB_MEM_STACK) ? stack_pass(d, &r) : measured(d, &r);
    uint64_t first_need = 0, refusals = tb_heap_cap_refusals(&first_need);
    tb_heap_cap(-1, 0);
    if (tb_platform_memory() & TB_MEM_HEAP) {
        char key[24];
        tb_rec_begin("tls_cap");
        tb_rec_u64("passed", st == TB_OK);
        tb_rec_u64("refusals", refusals);
        if (refusals > 0) tb_rec_u64("first_need", first_need);
        if (st == TB_OK) {
            tb_rec_u64(strcat(strcpy(key, tb_side_name(d->side)), "_heap_peak"), r.heap.peak);
            if (req->cfg.max_frag != 0 && d->side == 0) tb_rec_u64("max_frag", r.frag_len);
        }
        tb_rec_end();
    }
    return st;
}

void tb_tls_device_serve(const tb_field *fields, size_t n)
{
    const tb_tls_ops *ops = &tb_library_tls;
    tb_tls_request req;
    if (tb_tls_request_parse(fields, n, &req) != 0) return;
    const char *why = NULL;
    if (req.side < 0) req.side = 0; /* the device is a client unless asked */
    if (req.plain) why = "plain (TCP) needs the socket transport";
    else if (req.repeats == 0 && req.limit_side < 0) why = "repeats must be >= 1";
    else if (req.limit_side >= 0 && (req.repeats != 0 || req.warmup != 0))
        why = "a heap_limit probe runs no other connection: repeats and warmup must be 0";
    else if (req.bulk > 0) why = "bulk transfer is not measured with one side on the device";
    if (why != NULL) {
        tb_end(TB_BAD_INPUT, why);
        return;
    }
    tb_clear_error();
    dev_side d = {.req = &req, .side = req.side};
    tb_status st = TB_OK;
    if (ops->endpoint_new == NULL) {
        tb_set_error("no TLS in this library build");
        st = TB_UNSUPPORTED;
    } else if (req.cfg.resume != TB_RESUME_NONE && (ops->session_get == NULL || ops->resumed == NULL)) {
        tb_set_error("resumption is not supported by this adapter");
        st = TB_UNSUPPORTED;
    } else if (req.cfg.max_frag != 0 && ops->frag_len == NULL) {
        tb_set_error("this adapter does not ask for a maximum fragment length");
        st = TB_UNSUPPORTED;
    } else if (req.early) {
        tb_set_error("0-RTT early data is not measured with one side on the device");
        st = TB_UNSUPPORTED;
    }
    tb_heap_usage line_heap = {0};
    if (st == TB_OK) {
        tb_heap_begin();
        rx_line = malloc(RX_LINE);
        tb_heap_end(&line_heap);
        if (rx_line == NULL) {
            tb_set_error("out of memory for the %u-byte rx line", (unsigned)RX_LINE);
            tb_note_no_room();
            st = TB_ERROR;
        }
    }
    if (st == TB_OK && (tb_platform_memory() & TB_MEM_HEAP)) {
        /* the harness's heap beside the side for the whole request: a board needs it too */
        tb_rec_begin("tls_harness");
        tb_rec_u64("rx_line", line_heap.held);
        tb_rec_u64("upload", tb_upload_heap_held());
        tb_rec_end();
    }
    if (st == TB_OK) {
        /* what the device keeps for the whole session, outside any connection and its cap */
        tb_heap_usage u;
        tb_heap_begin();
        st = ops->endpoint_new((tb_side)req.side, &req.cfg, &d.endpoint);
        tb_heap_end(&u);
        if (st == TB_OK && (tb_platform_memory() & TB_MEM_HEAP)) {
            char key[24];
            tb_rec_begin("tls_endpoint");
            tb_rec_u64(strcat(strcpy(key, tb_side_name(req.side)), "_heap_held"), u.held);
            tb_rec_end();
        }
    }
    if (st == TB_OK && req.limit_side >= 0) st = capped_pass(&d);
    for (uint64_t i = 0; st == TB_OK && i < req.warmup + req.repeats; i++) {
        if (i == req.warmup && req.stack && (tb_platform_memory() & TB_MEM_STACK)) {
            st = tb_rng_restart(); /* the device's side draws the same numbers each time */
            if (st == TB_OK) st = stack_pass(&d, NULL);
            if (st != TB_OK) break;
        }
        dev_result r;
        st = tb_rng_restart();
        if (st == TB_OK) st = measured(&d, &r);
        if (st == TB_OK) {
            emit(i < req.warmup ? "tls_warmup" : "tls", i < req.warmup ? i : i - req.warmup, req.side, &r);
        }
    }
    if (d.endpoint != NULL) ops->endpoint_free(d.endpoint);
    free(rx_line);
    rx_line = NULL;
    tb_end(st == TB_WANT_READ ? TB_ERROR : st, st == TB_OK ? NULL : tb_last_error());
}
