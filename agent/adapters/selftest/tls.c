/* A TLS double with hand-known per-side costs, to check the handshake
 * instruments (per-side stack, per-side heap, bytes, records, round trips):
 *   client: first step  20000-byte stack array, keeps 3000 bytes, sends a
 *           100-byte record (5-byte header + 95)
 *   server: on that record, 40000-byte stack array, allocates 9000 bytes
 *           and frees 2000 of them, sends a 300-byte record, done
 *   client: on the server's record, done (one round trip).
 * Application data: one record per send (type 23). Never a real protocol. */
#include "tb/tls.h"

#include <stdlib.h>
#include <string.h>

enum { CLIENT_STACK = 20000, SERVER_STACK = 40000, CLIENT_KEEP = 3000, SERVER_KEEP = 7000, SERVER_TEMP = 2000 };
enum { CLIENT_RECORD = 100, SERVER_RECORD = 300 };

typedef struct {
    tb_side side;
} endpoint_t;

typedef struct {
    tb_side side;
    tb_transport tr;
    int stage;
    uint8_t *kept, *more;
    uint8_t in[1024];
    size_t have;
} conn_t;

static tb_status endpoint_new(tb_side side, const tb_tls_config *cfg, void **out)
{
    if (cfg->resume != TB_RESUME_NONE || cfg->client_share != NULL || cfg->psk.len > 0) {
        tb_set_error("the selftest double only does its one full handshake");
        return TB_UNSUPPORTED;
    }
    endpoint_t *e = malloc(sizeof(*e));
    if (e == NULL) return TB_ERROR;
    e->side = side;
    *out = e;
    return TB_OK;
}

static void endpoint_free(void *e)
{
    free(e);
}

static tb_status conn_new(void *ep, const tb_transport *tr, void *session, void **out)
{
    (void)session;
    conn_t *c = calloc(1, sizeof(*c));
    if (c == NULL) return TB_ERROR;
    c->side = ((endpoint_t *)ep)->side;
    c->tr = *tr;
    *out = c;
    return TB_OK;
}

static int send_record(conn_t *c, uint8_t type, const uint8_t *body, size_t n)
{
    uint8_t hdr[5] = {type, 3, 3, (uint8_t)(n >> 8), (uint8_t)n};
    return c->tr.send(c->tr.t, hdr, 5) == 5 && c->tr.send(c->tr.t, body, n) == (long)n ? 0 : -1;
}

/* Reads until a whole record of `want` bytes (header included) is in. */
static int record_in(conn_t *c, size_t want)
{
    while (c->have < want) {
        long got = c->tr.recv(c->tr.t, c->in + c->have, want - c->have);
        if (got <= 0) return 0;
        c->have += (size_t)got;
    }
    c->have = 0;
    return 1;
}

/* The whole array is below the caller's frame, so each depth needs its own. */
static __attribute__((noinline)) uint8_t client_deep(void)
{
    volatile uint8_t big[CLIENT_STACK];
    for (size_t i = 0; i < sizeof(big); i += 64) big[i] = (uint8_t)i;
    return big[0];
}

static __attribute__((noinline)) uint8_t server_deep(void)
{
    volatile uint8_t big[SERVER_STACK];
    for (size_t i = 0; i < sizeof(big); i += 64) big[i] = (uint8_t)i;
    return big[0];
}

static tb_status step(void *p)
{
    conn_t *c = p;
    uint8_t body[SERVER_RECORD];
    memset(body, 0x5a, sizeof(body));
    if (c->side == TB_SIDE_CLIENT && c->stage == 0) {
        client_deep();
        c->kept = malloc(CLIENT_KEEP);
        if (c->kept == NULL || send_record(c, 22, body, CLIENT_RECORD - 5) != 0) return TB_ERROR;
        c->stage = 1;
        return TB_WANT_READ;
    }
    if (c->side == TB_SIDE_CLIENT) return record_in(c, SERVER_RECORD) ? TB_OK : TB_WANT_READ;
    if (!record_in(c, CLIENT_RECORD)) return TB_WANT_READ;
    server_deep();
    c->kept = malloc(SERVER_KEEP);
    c->more = malloc(SERVER_TEMP);
    if (c->kept == NULL || c->more == NULL) return TB_ERROR;
    free(c->more);
    c->more = NULL;
    return send_record(c, 22, body, SERVER_RECORD - 5) == 0 ? TB_OK : TB_ERROR;
}

static tb_status tls_send(void *p, const uint8_t *data, size_t n)
{
    return send_record(p, 23, data, n) == 0 ? TB_OK : TB_ERROR;
}

static tb_status tls_recv(void *p, uint8_t *buf, size_t cap, size_t *got)
{
    conn_t *c = p;
    uint8_t hdr[5];
    *got = 0;
    if (c->tr.recv(c->tr.t, hdr, 5) != 5) return TB_WANT_READ; /* the double's records arrive whole */
    size_t n = (size_t)hdr[3] << 8 | hdr[4];
    if (n > cap || c->tr.recv(c->tr.t, buf, n) != (long)n) return TB_ERROR;
    *got = n;
    return TB_OK;
}

static void conn_free(void *p)
{
    conn_t *c = p;
    free(c->kept);
    free(c);
}

const tb_tls_ops tb_library_tls = {
    .endpoint_new = endpoint_new,
    .endpoint_free = endpoint_free,
    .conn_new = conn_new,
    .step = step,
    .send = tls_send,
    .recv = tls_recv,
    .conn_free = conn_free,
};
