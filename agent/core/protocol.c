#include "tb/protocol.h"

#include "tb/platform.h"

#include <string.h>

/* Records are built in one buffer so the CRC covers exactly what is sent.
 * A board with little RAM sets a smaller one (its board.cmake). */
#ifndef TB_MAX_RECORD
#define TB_MAX_RECORD (1u << 17)
#endif
static const char hexdig[] = "0123456789abcdef";
static char line[TB_MAX_RECORD];
static size_t line_len;
static int overflow;

uint32_t tb_crc32(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int b = 0; b < 8; b++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

/* " crc=" + 8 hex digits + "\n": always has room after the body. */
#define TRAILER 14u

static void put(const char *s, size_t n)
{
    if (n > sizeof(line) - TRAILER - line_len) {
        overflow = 1;
        return;
    }
    memcpy(line + line_len, s, n);
    line_len += n;
}

/* The trailer goes into the room put() keeps free for it. */
static void put_trailer(uint32_t crc)
{
    static const char tag[] = " crc=";
    memcpy(line + line_len, tag, sizeof(tag) - 1);
    line_len += sizeof(tag) - 1;
    for (int shift = 28; shift >= 0; shift -= 4) line[line_len++] = hexdig[(crc >> shift) & 15];
    line[line_len++] = '\n';
}

static void put_str(const char *s)
{
    put(s, strlen(s));
}

void tb_rec_begin(const char *type)
{
    line_len = 0;
    overflow = 0;
    put_str("tb1 ");
    put_str(type);
}

static void put_key(const char *key)
{
    put(" ", 1);
    put_str(key);
    put("=", 1);
}

void tb_rec_str(const char *key, const char *value)
{
    put_key(key);
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (*p > 0x20 && *p < 0x7f && *p != '%' && *p != '=') {
            put((const char *)p, 1);
        } else {
            char esc[3] = {'%', hexdig[*p >> 4], hexdig[*p & 15]};
            put(esc, 3);
        }
    }
}

void tb_rec_u64(const char *key, uint64_t value)
{
    char digits[21];
    size_t n = 0;
    do {
        digits[sizeof(digits) - 1 - n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    put_key(key);
    put(digits + sizeof(digits) - n, n);
}

void tb_rec_hex(const char *key, const uint8_t *data, size_t len)
{
    put_key(key);
    for (size_t i = 0; i < len; i++) {
        char h[2] = {hexdig[data[i] >> 4], hexdig[data[i] & 15]};
        put(h, 2);
    }
}

void tb_rec_end(void)
{
    if (overflow) {
        /* Never send a silently cut record: say what happened instead. */
        line_len = 0;
        overflow = 0;
        put_str("tb1 end status=error msg=record%20too%20long");
    }
    put_trailer(tb_crc32(0, line, line_len));
    tb_write(line, line_len);
    tb_flush();
}
