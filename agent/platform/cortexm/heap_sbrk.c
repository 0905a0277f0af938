/* The heap arena between the linker script's _heap_start and _heap_limit,
 * shared by the Cortex-M and RV32 start-ups: the C library's malloc grows
 * into it through sbrk. Not compiled on its own: each start-up file
 * includes it where this code stood, so the image keeps its layout. */
#include "cortexm.h"
#include "tb/adapter.h"
#include "tb/protocol.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__riscv)
/* picolibc's malloc grows its arena through sbrk (this replaces picolibc's
 * own, which reads other linker symbols) */
#define TB_SBRK sbrk
#else
#define TB_SBRK _sbrk /* newlib's */
#endif

extern uint32_t _heap_start, _heap_limit;

static char *heap_end;
static uint32_t heap_failures;

static char *put_u32(char *p, uint32_t v)
{
    char d[10];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n) *p++ = d[--n];
    return p;
}

/* Names the failure for the "end" record of a request whose library only
 * says it failed (a library that sets its own error replaces this). Built
 * by hand: no printf inside malloc. */
static void heap_failure(ptrdiff_t incr)
{
    static char msg[96];
    char *p = msg;
    for (const char *t = "heap arena full: "; *t;) *p++ = *t++;
    p = put_u32(p, (uint32_t)incr);
    for (const char *t = " B more asked, "; *t;) *p++ = *t++;
    p = put_u32(p, (uint32_t)((char *)&_heap_limit - heap_end));
    for (const char *t = " B of "; *t;) *p++ = *t++;
    p = put_u32(p, (uint32_t)tb_cortexm_heap_arena());
    for (const char *t = " B left"; *t;) *p++ = *t++;
    *p = '\0';
    tb_set_error_text(msg);
    tb_note_no_room();
}

void *TB_SBRK(ptrdiff_t incr)
{
    if (heap_end == NULL) heap_end = (char *)&_heap_start;
    if (incr > (char *)&_heap_limit - heap_end) {
        heap_failures++;
        heap_failure(incr);
        errno = ENOMEM;
        return (void *)-1;
    }
    char *old = heap_end;
    heap_end += incr;
    return old;
}

uint32_t tb_cortexm_heap_failures(void)
{
    return heap_failures;
}

size_t tb_cortexm_heap_arena(void)
{
    return (size_t)((char *)&_heap_limit - (char *)&_heap_start);
}
