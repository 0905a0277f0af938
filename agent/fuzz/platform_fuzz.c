/* The fuzzing platform layer: input from the fuzzer's bytes, output to
 * nowhere, but every record is checked first (the protocol's promise: one
 * printable line, "tb1 <type> ...", its CRC right). Clocks are fake and
 * fast (no request waits on a real clock), memory instruments are stubs,
 * sockets do not exist. Never part of an agent that measures anything. */
#include "fuzz.h"

#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"
#include "tb/tls_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *in_data;
static size_t in_size, in_pos;

static size_t records, ends;
static int last_was_end;

static void fail(const char *what, const char *rec, size_t len)
{
    fprintf(stderr, "fuzz: %s: %.*s\n", what, (int)(len > 300 ? 300 : len), rec);
    abort();
}

void tb_fuzz_set_input(const uint8_t *data, size_t size)
{
    in_data = data;
    in_size = size;
    in_pos = 0;
}

void tb_fuzz_request_begin(void)
{
    records = ends = 0;
    last_was_end = 0;
}

size_t tb_fuzz_records(void)
{
    return records;
}

void tb_fuzz_request_check(const char *line)
{
    if (ends != 1 || !last_was_end) {
        fprintf(stderr, "fuzz: request wrote %zu records, %zu of them 'end' (the last: %s): %.300s\n", records,
                ends, last_was_end ? "end" : "not end", line);
        abort();
    }
}

/* ---- clocks: each reading one fake second later, so a batch always
 * outlasts min_ns (up to 1 s) after one operation ---- */

void tb_platform_init(void)
{
}

uint32_t tb_platform_counters(void)
{
    return TB_CTR_WALL_NS | TB_CTR_CPU_NS | TB_CTR_INSTRUCTIONS;
}

const char *tb_platform_counter_note(uint32_t counter)
{
    return (tb_platform_counters() & counter) ? "" : "not in the fuzzing platform";
}

const char *tb_platform_name(void)
{
    return "fuzz";
}

void tb_read_counters(tb_reading *r)
{
    static uint64_t t;
    t += 1000000000u;
    r->wall_ns = t;
    r->cpu_ns = t;
    r->tsc = 0;
    r->cycles = 0;
    r->instructions = t / 1000u;
}

/* ---- memory: no heap accounting (the sanitizer owns malloc); "stack"
 * calls run on the caller's stack, so the core's stack paths run too ---- */

uint32_t tb_platform_memory(void)
{
    return TB_MEM_STACK;
}

uint64_t tb_heap_system_in_use(void)
{
    return 0;
}

int tb_stack_run(void (*fn)(void *), void *arg, uint64_t *used)
{
    fn(arg);
    *used = 0;
    return 0;
}

struct tb_stack {
    int unused;
};

tb_stack *tb_stack_new(void)
{
    return calloc(1, sizeof(tb_stack));
}

int tb_stack_call(tb_stack *s, void (*fn)(void *), void *arg)
{
    (void)s;
    fn(arg);
    return 0;
}

uint64_t tb_stack_peak(const tb_stack *s)
{
    (void)s;
    return 0;
}

void tb_stack_free(tb_stack *s)
{
    free(s);
}

/* ---- the socket verbs: their fields parsed as on the host, then ended
 * (no sockets here) ---- */

int tb_platform_verb(const char *verb, const void *fields, size_t n)
{
    if (strcmp(verb, "tls-server") != 0 && strcmp(verb, "tls-client") != 0) return 0;
    tb_tls_request req;
    if (tb_tls_request_parse(fields, n, &req) != 0) return 1;
    tb_end(TB_UNSUPPORTED, "no sockets in the fuzzing platform");
    return 1;
}

int tb_platform_seed(uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(i * 131u + 7u);
    return 0;
}

int tb_platform_seed_restart(void)
{
    return 0; /* every call already starts the same stream */
}

const char *tb_platform_seed_note(void)
{
    return "a fixed stream (fuzzing)";
}

/* ---- line I/O: the host's tb_read_line over the fuzzer's bytes ---- */

long tb_read_line(char *buf, size_t cap)
{
    size_t n = 0;
    int c = -1;
    int too_long = 0;
    while (in_pos < in_size && (c = in_data[in_pos++]) != '\n') {
        if (n + 1 < cap) {
            buf[n++] = (char)c;
        } else {
            too_long = 1;
        }
    }
    int eof = c != '\n';
    if (eof && n == 0 && !too_long) return -1;
    if (n > 0 && buf[n - 1] == '\r') n--;
    buf[n] = '\0';
    return too_long ? -2 : (long)n;
}

static int hex_digit(char c, uint32_t *v)
{
    if (c >= '0' && c <= '9') *v = *v << 4 | (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f') *v = *v << 4 | (uint32_t)(c - 'a' + 10);
    else return -1;
    return 0;
}

/* protocol.c writes each record with one call, then flushes. */
void tb_write(const char *s, size_t len)
{
    static const char trailer[] = " crc=";
    const size_t tail = sizeof(trailer) - 1 + 8 + 1;
    if (len < 4 + tail || memcmp(s, "tb1 ", 4) != 0) fail("record without 'tb1 '", s, len);
    if (s[len - 1] != '\n') fail("record without its newline", s, len);
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] < 0x20 || s[i] > 0x7e) fail("unprintable byte in a record", s, len);
    }
    const char *crc_at = s + len - tail;
    uint32_t crc = 0;
    if (memcmp(crc_at, trailer, sizeof(trailer) - 1) != 0) fail("record without its crc", s, len);
    for (size_t i = 0; i < 8; i++) {
        if (hex_digit(crc_at[sizeof(trailer) - 1 + i], &crc) != 0) fail("crc not in hex", s, len);
    }
    if (crc != tb_crc32(0, s, (size_t)(crc_at - s))) fail("crc does not match the record", s, len);
    records++;
    last_was_end = len >= 8 && memcmp(s, "tb1 end ", 8) == 0;
    ends += (size_t)last_was_end;
}

void tb_flush(void)
{
}
