/* Cortex-M memory instruments.
 *
 * Heap: the firmware links with --wrap=malloc/calloc/realloc/free, so every
 * library call to them lands here, is counted with newlib's usable block
 * size and forwarded to newlib's allocator (its arena: _sbrk in startup.c).
 *
 * Stack: calls run on painted stacks of our own (a few instructions switch
 * the stack pointer), scanned afterwards for the deepest byte touched.
 */
#include "cortexm.h"
#include "tb/heap_account.h"
#include "tb/platform.h"
#include "../common/capped_move.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void __wrap_free(void *p);

/* picolibc's calloc and realloc call malloc and free by those names, which
 * --wrap sends back here: while they run, the inner calls are not counted
 * (else a calloc counts twice, its free once, and the heap seems to grow).
 * newlib's call internal names (_malloc_r): nothing is nested there, and
 * its images keep exactly the code they had. */
#if defined(__PICOLIBC__)
static int nested;
#define TB_OUTER (nested == 0)
#define TB_NEST_BEGIN() (nested++)
#define TB_NEST_END() (nested--)
#else
#define TB_OUTER 1
#define TB_NEST_BEGIN() ((void)0)
#define TB_NEST_END() ((void)0)
#endif

static void counted(void *p)
{
    if (p != NULL && tb_heap_counting && TB_OUTER) tb_heap_account_alloc(malloc_usable_size(p));
}

/* A new block, unless the heap cap refuses it (then it is freed at once). */
static void *admitted(void *p)
{
    if (p != NULL && tb_heap_counting && TB_OUTER && !tb_heap_account_admit(malloc_usable_size(p))) {
        __real_free(p);
        return NULL;
    }
    counted(p);
    return p;
}

static void uncounted(void *p)
{
    if (p != NULL && tb_heap_counting && TB_OUTER) tb_heap_account_free(malloc_usable_size(p));
}

void *__wrap_malloc(size_t n)
{
    return admitted(__real_malloc(n));
}

void *__wrap_calloc(size_t n, size_t size)
{
    TB_NEST_BEGIN();
    void *p = __real_calloc(n, size);
    TB_NEST_END();
    return admitted(p);
}

void *__wrap_realloc(void *old, size_t n)
{
    if (old == NULL) return __wrap_malloc(n);
    if (n > 0 && tb_heap_counting && tb_heap_capped()) return tb_capped_move(old, n, __wrap_malloc, __wrap_free);
    uncounted(old);
    TB_NEST_BEGIN();
    void *p = __real_realloc(old, n);
    TB_NEST_END();
    counted(p != NULL ? p : (n ? old : NULL));
    return p;
}

void __wrap_free(void *p)
{
    uncounted(p);
    __real_free(p);
}

uint32_t tb_platform_memory(void)
{
    return TB_MEM_HEAP | TB_MEM_STACK;
}

uint64_t tb_heap_system_in_use(void)
{
    return (uint64_t)mallinfo().uordblks;
}

/* ---- stacks ---- */

#define PAINT 0xA5u
#define GUARD 64u /* bytes at the bottom that must stay painted */

struct tb_stack {
    uint8_t mem[TB_STACK_BYTES] __attribute__((aligned(8)));
};

/* One per handshake side, and the last, at the highest address, for
 * primitives. Nothing in them needs initialising (each is painted before
 * use), so a linker script may place them (section .bss.stacks) outside the
 * zeroed .bss: the boards put them at the bottom of RAM, below the main
 * stack, so that overflow runs into idle stack space and then off RAM (a
 * fault), never into live data. */
static struct tb_stack stacks[TB_PAINTED_STACKS];
static int in_use[TB_PAINTED_STACKS];
#define PRIMITIVE (TB_PAINTED_STACKS - 1u)

/* Calls fn(arg) with the stack pointer at top (8-byte aligned), then
 * restores it. Thumb-1 instructions only, so it also runs on Cortex-M0. */
__attribute__((naked, noinline)) static void call_on(void *top, void (*fn)(void *), void *arg)
{
    (void)top;
    (void)fn;
    (void)arg;
#if defined(__riscv)
    /* RV32 (also the RV32 class target): s0 keeps the caller's sp across
     * the call; the old ra and s0 go on the new stack's top 16 bytes
     * (16-byte aligned: the ABI's stack alignment) */
    __asm__ volatile("addi a0, a0, -16\n"
                     "sw ra, 12(a0)\n"
                     "sw s0, 8(a0)\n"
                     "mv s0, sp\n"
                     "mv sp, a0\n"
                     "mv a0, a2\n"
                     "jalr a1\n"
                     "mv a0, sp\n"
                     "mv sp, s0\n"
                     "lw s0, 8(a0)\n"
                     "lw ra, 12(a0)\n"
                     "ret\n");
#else
    __asm__ volatile("push {r4, lr}\n"
                     "mov r4, sp\n"
                     "mov sp, r0\n"
                     "mov r0, r2\n"
                     "blx r1\n"
                     "mov sp, r4\n"
                     "pop {r4, pc}\n");
#endif
}

static uint64_t deepest(const struct tb_stack *s)
{
    size_t i = 0;
    while (i < TB_STACK_BYTES && s->mem[i] == PAINT) i++;
    return TB_STACK_BYTES - i;
}

static int overflowed(const struct tb_stack *s)
{
    for (size_t i = 0; i < GUARD; i++) {
        if (s->mem[i] != PAINT) return 1;
    }
    return 0;
}

/* A primitive runs on the top stack; when no handshake side holds the ones
 * below, they are room it may run on into, so a call deeper than one stack
 * still runs and is measured (its depth then exceeds TB_STACK_BYTES: on a
 * small board the host compares it with the "limits" record). */
int tb_stack_run(void (*fn)(void *), void *arg, uint64_t *used)
{
    uint8_t *top = stacks[PRIMITIVE].mem + TB_STACK_BYTES;
    uint8_t *low = stacks[PRIMITIVE].mem;
    for (size_t i = PRIMITIVE; i > 0 && !in_use[i - 1]; i--) low = stacks[i - 1].mem;
    size_t span = (size_t)(top - low), i = 0;
    call_on(top, fn, arg); /* state a library makes on first use */
    memset(low, PAINT, span);
    call_on(top, fn, arg);
    while (i < span && low[i] == PAINT) i++;
    *used = span - i;
    return i < GUARD ? -1 : 0;
}

/* The deepest call tb_stack_run can take (the "limits" record). */
size_t tb_cortexm_primitive_stack(void)
{
    return TB_PAINTED_STACKS * TB_STACK_BYTES - GUARD;
}

tb_stack *tb_stack_new(void)
{
    /* with one stack only (a one-side image), the side takes it: a primitive
     * never runs while a handshake side does */
    size_t sides = TB_PAINTED_STACKS > 1u ? PRIMITIVE : 1u;
    for (size_t i = 0; i < sides; i++) {
        if (!in_use[i]) {
            in_use[i] = 1;
            memset(stacks[i].mem, PAINT, TB_STACK_BYTES);
            return &stacks[i];
        }
    }
    return NULL;
}

int tb_stack_call(tb_stack *s, void (*fn)(void *), void *arg)
{
    call_on(s->mem + TB_STACK_BYTES, fn, arg);
    return overflowed(s) ? -1 : 0;
}

uint64_t tb_stack_peak(const tb_stack *s)
{
    return deepest(s);
}

void tb_stack_free(tb_stack *s)
{
    if (s != NULL) in_use[s - stacks] = 0;
}
