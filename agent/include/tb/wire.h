/* What crosses the wire between the two endpoints, counted from the bytes
 * themselves: TLS records are found by parsing their 5-byte headers across
 * arbitrary write boundaries; a flight is a run of writes by one side. */
#ifndef TB_WIRE_H
#define TB_WIRE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t bytes;
    uint64_t records;
    uint8_t header[5];
    unsigned header_have;
    uint32_t body_left;
} tb_record_count;

typedef struct {
    tb_record_count dir[2]; /* by sending side: 0 client, 1 server */
    uint64_t flights[2];
    int last_sender; /* -1 before the first write */
} tb_wire;

void tb_wire_init(tb_wire *w);
/* Notes n bytes written by side `from` (0 client, 1 server). */
void tb_wire_note(tb_wire *w, int from, const uint8_t *p, size_t n);

/* A growable byte queue: one direction of the in-memory transport. */
typedef struct {
    uint8_t *buf;
    size_t len, cap, off;
} tb_queue;

int tb_queue_push(tb_queue *q, const uint8_t *p, size_t n);
int tb_queue_reserve(tb_queue *q, size_t cap);
size_t tb_queue_pop(tb_queue *q, uint8_t *p, size_t n);
void tb_queue_free(tb_queue *q);

#endif
