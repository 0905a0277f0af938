/* A test double with hand-known costs, to check the instruments themselves:
 *   md5     allocates 100000 bytes, touches them, frees them   (heap peak)
 *   sha1    allocates 5000 bytes and keeps them                (heap held)
 *   sha224  uses a 30000-byte array on the stack               (stack)
 *   sha256  host only: the same array, its deepest byte the host's stack
 *           paint (0xA5): the stack must read as sha224's          (stack)
 *   sha512  firmware only: reads an address nothing answers    (fault record)
 * Its "digest" is 32 zero bytes. Never a library under test. */
#include "tb/adapter.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int which;
    uint8_t out[32];
} state_t;

static tb_status adapter_init(void)
{
    return TB_OK;
}

/* No generator. */
static tb_status adapter_reseed(void)
{
    return TB_OK;
}

static const char *adapter_version(void)
{
    return "selftest 1";
}

static const char *adapter_config(void)
{
    return TB_LIBRARY_CONFIG;
}

static int which_of(const char *alg)
{
    if (strcmp(alg, "md5") == 0) return 0;
    if (strcmp(alg, "sha1") == 0) return 1;
    if (strcmp(alg, "sha224") == 0) return 2;
#if TB_BARE_METAL
    if (strcmp(alg, "sha512") == 0) return 3;
#else
    if (strcmp(alg, "sha256") == 0) return 4;
#endif
    return -1;
}

static int adapter_supports(tb_kind kind, const char *alg, const char *op)
{
    (void)op;
    return kind == TB_KIND_HASH && which_of(alg) >= 0;
}

static tb_status adapter_prepare(const tb_job *job, void **out)
{
    state_t *s = calloc(1, sizeof(*s));
    if (s == NULL) return TB_ERROR;
    s->which = which_of(job->alg);
    *out = s;
    return TB_OK;
}

static __attribute__((noinline)) void use_stack(uint8_t *out)
{
    volatile uint8_t big[30000];
    for (size_t i = 0; i < sizeof(big); i += 64) big[i] = (uint8_t)i;
    big[sizeof(big) - 1] = 1;
    out[0] = big[0];
}

#if !TB_BARE_METAL
/* use_stack's array and frame, its deepest byte the host's stack paint (a
 * function of its own: the firmware's use_stack and its figures stay as they
 * were) */
static __attribute__((noinline)) void use_stack_painted(uint8_t *out)
{
    volatile uint8_t big[30000];
    for (size_t i = 0; i < sizeof(big); i += 64) big[i] = (uint8_t)i;
    big[0] = 0xA5u;
    big[sizeof(big) - 1] = 1;
    out[0] = big[0];
}
#endif

static tb_status adapter_run(void *p)
{
    state_t *s = p;
    if (s->which == 0) {
        volatile uint8_t *b = malloc(100000);
        if (b == NULL) return TB_ERROR;
        for (size_t i = 0; i < 100000; i += 4096) b[i] = 1;
        free((void *)b);
    } else if (s->which == 1) {
        if (malloc(5000) == NULL) return TB_ERROR; /* kept on purpose: "held" */
    } else if (s->which == 2) {
        use_stack(s->out);
        s->out[0] = 0;
#if !TB_BARE_METAL
    } else if (s->which == 4) {
        use_stack_painted(s->out);
        s->out[0] = 0;
#endif
    } else { /* a bus fault: the firmware must end with a "fault" record */
        s->out[0] = *(volatile const uint8_t *)(uintptr_t)0xDEAD0000u;
    }
    return TB_OK;
}

static tb_status adapter_result(void *p, tb_bytes *out)
{
    state_t *s = p;
    out->data = s->out;
    out->len = sizeof(s->out);
    return TB_OK;
}

static void adapter_release(void *p)
{
    free(p);
}

TB_DEFINE_ADAPTER("selftest");
