#include "tb/wire.h"

#include <stdlib.h>
#include <string.h>

void tb_wire_init(tb_wire *w)
{
    memset(w, 0, sizeof(*w));
    w->last_sender = -1;
}

static void count_records(tb_record_count *c, const uint8_t *p, size_t n)
{
    c->bytes += n;
    while (n > 0) {
        if (c->body_left > 0) {
            size_t take = n < c->body_left ? n : c->body_left;
            c->body_left -= (uint32_t)take;
            p += take;
            n -= take;
            continue;
        }
        c->header[c->header_have++] = *p++;
        n--;
        if (c->header_have == 5) {
            /* type(1) version(2) length(2): a record is complete once its body is */
            c->records++;
            c->body_left = (uint32_t)c->header[3] << 8 | c->header[4];
            c->header_have = 0;
        }
    }
}

void tb_wire_note(tb_wire *w, int from, const uint8_t *p, size_t n)
{
    if (n == 0) return;
    /* A write that is only a ChangeCipherSpec record, which TLS 1.3 peers
     * send for middleboxes and ignore (RFC 8446 D.4), starts no flight: over
     * a socket a client may write it while the server's flight is still
     * arriving, and that is not a round trip. */
    int ccs_only = n == 6 && p[0] == 20;
    if (w->last_sender != from && !ccs_only) {
        w->flights[from]++;
        w->last_sender = from;
    }
    count_records(&w->dir[from], p, n);
}

int tb_queue_reserve(tb_queue *q, size_t cap)
{
    if (cap <= q->cap) return 0;
    uint8_t *b = realloc(q->buf, cap);
    if (b == NULL) return -1;
    q->buf = b;
    q->cap = cap;
    return 0;
}

int tb_queue_push(tb_queue *q, const uint8_t *p, size_t n)
{
    if (q->off > 0 && q->off == q->len) q->off = q->len = 0;
    if (q->len + n > q->cap) {
        size_t cap = q->cap ? q->cap : 4096;
        while (cap < q->len + n) cap *= 2;
        if (tb_queue_reserve(q, cap) != 0) return -1;
    }
    memcpy(q->buf + q->len, p, n);
    q->len += n;
    return 0;
}

size_t tb_queue_pop(tb_queue *q, uint8_t *p, size_t n)
{
    size_t have = q->len - q->off;
    size_t take = n < have ? n : have;
    memcpy(p, q->buf + q->off, take);
    q->off += take;
    return take;
}

void tb_queue_free(tb_queue *q)
{
    free(q->buf);
    memset(q, 0, sizeof(*q));
}
