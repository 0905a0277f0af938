/* Host memory instruments.
 *
 * Heap: the agent defines malloc and friends itself, so the dynamic linker
 * binds every library's calls (libcrypto.so, libgnutls.so and the static
 * Mbed TLS / wolfSSL alike) to these, which count and forward to glibc's
 * allocator. Sizes are glibc's usable sizes (what a block really occupies,
 * rounded up from the request).
 *
 * Stack: a worker thread on a stack we own; below the worker's own frame it
 * is painted with a pattern before the call and scanned after it.
 */
#define _GNU_SOURCE
#include "tb/platform.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static _Atomic uint64_t level, peak, allocs;

static void counted(void *p)
{
    if (p == NULL) return;
    uint64_t now = atomic_fetch_add(&level, malloc_usable_size(p)) + malloc_usable_size(p);
    uint64_t seen = atomic_load(&peak);
    while (now > seen && !atomic_compare_exchange_weak(&peak, &seen, now)) {
    }
    atomic_fetch_add(&allocs, 1);
}

static void uncounted(void *p)
{
    if (p != NULL) atomic_fetch_sub(&level, malloc_usable_size(p));
}

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    counted(p);
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    counted(p);
    return p;
}

void *realloc(void *old, size_t n)
{
    uint64_t before = old ? malloc_usable_size(old) : 0;
    void *p = __libc_realloc(old, n);
    if (p != NULL || n == 0) atomic_fetch_sub(&level, before);
    counted(p);
    return p;
}

void free(void *p)
{
    uncounted(p);
    __libc_free(p);
}

void *memalign(size_t align, size_t n)
{
    void *p = __libc_memalign(align, n);
    counted(p);
    return p;
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

static uint64_t window_start, window_allocs;

void tb_heap_begin(void)
{
    window_start = atomic_load(&level);
    window_allocs = atomic_load(&allocs);
    atomic_store(&peak, window_start);
}

void tb_heap_end(tb_heap_usage *u)
{
    uint64_t now = atomic_load(&level);
    u->peak = atomic_load(&peak) - window_start;
    u->held = now > window_start ? now - window_start : 0;
    u->allocs = atomic_load(&allocs) - window_allocs;
}

/* ---- stack ---- */

#define STACK_SIZE (4u << 20)
#define PAINT 0xA5u

typedef struct {
    void (*fn)(void *);
    void *arg;
    uint8_t *base; /* lowest address of the thread's stack */
    uint64_t used;
} stack_job;

/* Not inlined: its frame marks where the measured call starts. */
static __attribute__((noinline)) void paint_and_call(stack_job *job, int measure)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t top = here - 128; /* keep clear of this frame and memset's (a leaf) */
    uintptr_t base = (uintptr_t)job->base;
    if (measure) memset(job->base, PAINT, top - base);
    job->fn(job->arg);
    if (measure) {
        uintptr_t p = base;
        while (p < top && *(const uint8_t *)p == PAINT) p++;
        job->used = here - p;
    }
}

static void *worker(void *arg)
{
    stack_job *job = arg;
    paint_and_call(job, 0); /* thread-local state a library makes on first use */
    paint_and_call(job, 1);
    return NULL;
}

int tb_stack_run(void (*fn)(void *), void *arg, uint64_t *used)
{
    stack_job job = {fn, arg, NULL, 0};
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
