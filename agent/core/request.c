/* A request's decoded fields and its "end" record (tb/request.h). */
#include "tb/request.h"
#include "tb/protocol.h"
#include "tb/adapter.h"

#include <string.h>

/* A board with little RAM sets a smaller request line (its board.cmake). */
#ifndef TB_MAX_LINE
#define TB_MAX_LINE (1u << 16)
#endif
#ifndef TB_BYTES_POOL
#define TB_BYTES_POOL (TB_MAX_LINE / 2)
#endif

static uint8_t bytes_pool[TB_BYTES_POOL];
static size_t bytes_used;

void tb_request_reset(void)
{
    bytes_used = 0;
}

void tb_end(tb_status s, const char *msg)
{
    static const char *const names[] = {"ok", "unsupported", "error", "bad_input", "reject"};
    const char *name = (unsigned)s < 5 ? names[s] : "error";
    /* an error or a refused request that ran out of memory says so by its status (protocol version 2) */
    if ((s == TB_ERROR || s == TB_BAD_INPUT || (unsigned)s >= 5) && tb_ran_out_of_room()) name = "no_room";
    tb_rec_begin("end");
    tb_rec_str("status", name);
    if (msg != NULL && msg[0] != '\0') tb_rec_str("msg", msg);
    tb_rec_end();
    tb_clear_no_room();
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes hex into the request's byte pool. */
int tb_field_bytes(const char *hex, tb_bytes *out)
{
    size_t n = strlen(hex);
    if (n % 2 != 0 || bytes_used + n / 2 > sizeof(bytes_pool)) return -1;
    uint8_t *dst = bytes_pool + bytes_used;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        dst[i] = (uint8_t)(hi << 4 | lo);
    }
    out->data = dst;
    out->len = n / 2;
    bytes_used += n / 2;
    return 0;
}

int tb_field_u64(const char *s, uint64_t *out)
{
    if (*s == '\0') return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}
