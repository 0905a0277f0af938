/* Host memory instruments.
 *
 * Heap: the agent defines malloc and friends itself, so the dynamic linker
 * binds every library's calls (libcrypto.so, libgnutls.so and the static
 * Mbed TLS / wolfSSL alike) to these, which count and forward to glibc's
 * allocator. Sizes are glibc's usable sizes (what a block really occupies,
 * rounded up from the request).
 *
 * A sanitized build (TB_SANITIZED, -DTB_SANITIZE=...) leaves malloc to the
 * sanitizer, which replaces it too: no heap figures there ("not measured").
 *
 * Stack: a worker thread on a stack we own; below the worker's own frame it
 * is painted with a pattern before the call and scanned after it.
 */
#define _GNU_SOURCE
#include "tb/heap_account.h"
#include "tb/platform.h"
#include "../common/capped_move.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#if !TB_SANITIZED
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static void counted(void *p)
{
    if (p != NULL && tb_heap_counting) tb_heap_account_alloc(malloc_usable_size(p));
}

/* A new block, unless the heap cap refuses it (then it is freed at once). */
static void *admitted(void *p)
{
    if (p != NULL && tb_heap_counting && !tb_heap_account_admit(malloc_usable_size(p))) {
        __libc_free(p);
        return NULL;
    }
    counted(p);
    return p;
}

static void uncounted(void *p)
{
    if (p != NULL && tb_heap_counting) tb_heap_account_free(malloc_usable_size(p));
}

void *malloc(size_t n)
{
    return admitted(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
    return admitted(__libc_calloc(n, size));
}

void *realloc(void *old, size_t n)
{
    if (old == NULL) return malloc(n);
    if (n > 0 && tb_heap_counting && tb_heap_capped()) return tb_capped_move(old, n, malloc, free);
    uncounted(old);
    void *p = __libc_realloc(old, n);
    /* on failure the old block lives on */
    counted(p != NULL ? p : (n ? old : NULL));
    return p;
}

void free(void *p)
{
    uncounted(p);
    __libc_free(p);
}

void *memalign(size_t align, size_t n)
{
    return admitted(__libc_memalign(align, n));
}

void *aligned_alloc(size_t align, size_t n)
{
    return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
    void *p = memalign(align, n);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

uint32_t tb_platform_memory(void)
{
    return TB_MEM_HEAP | TB_MEM_STACK;
}

uint64_t tb_heap_system_in_use(void)
{
    return (uint64_t)mallinfo2().uordblks;
}
#else
uint32_t tb_platform_memory(void)
{
    return TB_MEM_STACK;
}

uint64_t tb_heap_system_in_use(void)
{
    return 0;
}
#endif

/* ---- stack ---- */

#define STACK_SIZE (4u << 20)
#define PAINT 0xA5u
/* A call's deepest written byte can equal one paint and read one byte short; it equals at most one of two,
 * so the thread stack is measured with both and the deeper reading kept. */
#define PAINT_OTHER 0x5Au

typedef struct {
    void (*fn)(void *);
    void *arg;
    uint8_t *base; /* lowest address of the thread's stack */
    uint8_t paint;
    uint64_t used;
    uint64_t first; /* the reading under the first paint */
} stack_job;

/* Not inlined: its frame marks where the measured call starts. It and the
 * worker keep the shape they had with one paint (the paint and the first
 * reading live in the job, not in locals kept across a call), so neither
 * frame grew: the figure includes this frame, and a library that aligns its
 * buffers reads deeper or shallower when the frame above it moves. */
static __attribute__((noinline)) void paint_and_call(stack_job *job, int measure)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t top = here - 128; /* keep clear of this frame and memset's (a leaf) */
    uintptr_t base = (uintptr_t)job->base;
    if (measure) memset(job->base, job->paint, top - base);
    job->fn(job->arg);
    if (measure) {
        uintptr_t p = base;
        while (p < top && *(const uint8_t *)p == job->paint) p++;
        job->used = here - p;
    }
}

static void *worker(void *arg)
{
    stack_job *job = arg;
    paint_and_call(job, 0); /* thread-local state a library makes on first use */
    job->paint = PAINT;
    paint_and_call(job, 1);
    job->first = job->used;
    job->paint = PAINT_OTHER;
    paint_and_call(job, 1);
    if (job->first > job->used) job->used = job->first;
    return NULL;
}

int tb_stack_run(void (*fn)(void *), void *arg, uint64_t *used)
{
    stack_job job = {fn, arg, NULL, PAINT, 0, 0};
    pthread_attr_t attr;
    pthread_t t;
    void *stack = NULL;
    if (posix_memalign(&stack, 4096, STACK_SIZE) != 0) return -1;
    job.base = stack;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) rc = pthread_attr_setstack(&attr, stack, STACK_SIZE);
    if (rc == 0) rc = pthread_create(&t, &attr, worker, &job);
    if (rc == 0) rc = pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    free(stack);
    *used = job.used;
    return rc;
}

/* ---- side stacks: ucontext coroutines on painted memory ---- */

#define SIDE_STACK_SIZE (1u << 20)

struct tb_stack {
    uint8_t *mem;
    ucontext_t caller, callee;
    void (*fn)(void *);
    void *arg;
};

static tb_stack *running; /* makecontext passes no pointers portably */

static void side_trampoline(void)
{
    running->fn(running->arg);
}

tb_stack *tb_stack_new(void)
{
    tb_stack *s = calloc(1, sizeof(*s));
    void *mem = NULL;
    if (s == NULL || posix_memalign(&mem, 4096, SIDE_STACK_SIZE) != 0) {
        free(s);
        return NULL;
    }
    s->mem = mem;
    memset(s->mem, PAINT, SIDE_STACK_SIZE);
    return s;
}

int tb_stack_call(tb_stack *s, void (*fn)(void *), void *arg)
{
    if (getcontext(&s->callee) != 0) return -1;
    s->callee.uc_stack.ss_sp = s->mem;
    s->callee.uc_stack.ss_size = SIDE_STACK_SIZE;
    s->callee.uc_link = &s->caller;
    s->fn = fn;
    s->arg = arg;
    makecontext(&s->callee, side_trampoline, 0);
    running = s;
    return swapcontext(&s->caller, &s->callee);
}

uint64_t tb_stack_peak(const tb_stack *s)
{
    size_t i = 0;
    while (i < SIDE_STACK_SIZE && s->mem[i] == PAINT) i++;
    return SIDE_STACK_SIZE - i;
}

void tb_stack_free(tb_stack *s)
{
    if (s == NULL) return;
    free(s->mem);
    free(s);
}

