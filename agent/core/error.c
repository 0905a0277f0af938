#include "tb/adapter.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* One object, the size the message alone had: the firmware's RAM layout
 * (and with it every heap address a measured operation sees) stays as it was. */
static struct {
    char text[511];
    unsigned char no_room;
} state;

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
    vsnprintf(state.text, sizeof(state.text), fmt, ap);
    va_end(ap);
}

void tb_set_error_text(const char *text)
{
    strncpy(state.text, text, sizeof(state.text) - 1);
    state.text[sizeof(state.text) - 1] = '\0';
}

const char *tb_last_error(void)
{
    return state.text;
}

void tb_clear_error(void)
{
    state.text[0] = '\0';
}

void tb_note_no_room(void)
{
    state.no_room = 1;
}

int tb_ran_out_of_room(void)
{
    return state.no_room;
}

void tb_clear_no_room(void)
{
    state.no_room = 0;
}
