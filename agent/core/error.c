#include "tb/adapter.h"

#include <stdarg.h>
#include <stdio.h>

static char message[512];

void tb_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
}

const char *tb_last_error(void)
{
    return message;
}

void tb_clear_error(void)
{
    message[0] = '\0';
}
