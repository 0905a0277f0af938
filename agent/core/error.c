#include "tb/adapter.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char message[512];

#if defined(TB_BARE_METAL) && TB_BARE_METAL
/* Debian's newlib is built without C99 printf formats: "%zu" would print
 * "zu". size_t is unsigned long's width on 32-bit Arm, so %z -> %l is exact. */
static const char *portable(const char *fmt, char *buf, size_t cap)
{
    size_t n = strlen(fmt);
    if (n >= cap || strstr(fmt, "%z") == NULL) return fmt;
    memcpy(buf, fmt, n + 1);
    for (char *p = strstr(buf, "%z"); p != NULL; p = strstr(p + 2, "%z")) p[1] = 'l';
    return buf;
}
#endif

void tb_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
#if defined(TB_BARE_METAL) && TB_BARE_METAL
    char buf[256];
    fmt = portable(fmt, buf, sizeof(buf));
#endif
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
}

void tb_set_error_text(const char *text)
{
    strncpy(message, text, sizeof(message) - 1);
    message[sizeof(message) - 1] = '\0';
}

const char *tb_last_error(void)
{
    return message;
}

void tb_clear_error(void)
{
    message[0] = '\0';
}
