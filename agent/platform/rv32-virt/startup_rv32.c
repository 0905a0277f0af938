/* RV32 start-up for the bare-metal layer (what platform/cortexm/startup.c
 * is to a Cortex-M): the entry at the start of code, the agent's stack,
 * the trap report, semihosting exit and the few picolibc system calls a
 * library can reach (sbrk for malloc, gettimeofday for the frozen clock).
 *
 * QEMU's DRAM is writable everywhere, so a runaway store (a stack run off
 * the bottom of RAM lands in the code region just below it) would rewrite
 * code silently. A locked PMP entry makes the code region read and execute
 * only, for machine mode too: such a store traps and is reported. */
#include "cortexm.h"
#include "tb/adapter.h"
#include "tb/protocol.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _heap_start, _heap_limit;
extern uint32_t _ram_start, _ram_end;
int main(void);
void tb_rv32_trap_report(uint32_t cause, uint32_t epc, uint32_t tval, uint32_t sp, uint32_t ra);

/* RISC-V semihosting (QEMU -semihosting): the Arm operation numbers, entered
 * by the slli/ebreak/srai sequence, uncompressed and in one page. */
#if TB_SEMIHOSTING
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUNTIME_ERROR 0x20023

static void semihost_exit(uint32_t reason)
{
    register uint32_t a0 __asm__("a0") = SYS_EXIT;
    register uint32_t a1 __asm__("a1") = reason;
    __asm__ volatile(".option push\n.option norvc\n.balign 16\n"
                     "slli x0, x0, 0x1f\nebreak\nsrai x0, x0, 7\n"
                     ".option pop\n"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
}
#endif

void tb_cortexm_exit(int failed)
{
    tb_cortexm_flush_line();
#if TB_SEMIHOSTING
    semihost_exit(failed ? ADP_STOPPED_RUNTIME_ERROR : ADP_STOPPED_APPLICATION_EXIT);
#else
    (void)failed;
#endif
    for (;;) __asm__ volatile("wfi");
}

static void protect_code(void)
{
    extern char _code_start[], _code_pmp_napot[];
    /* NAPOT: base >> 2 with (size / 8 - 1) in the low bits; L | NAPOT | X | R */
    uint32_t addr = ((uint32_t)(uintptr_t)_code_start >> 2) | (uint32_t)(uintptr_t)_code_pmp_napot;
    __asm__ volatile("csrw pmpaddr0, %0" ::"r"(addr));
    __asm__ volatile("csrw pmpcfg0, %0" ::"r"(0x9Du));
}

void __attribute__((noreturn, used)) tb_rv32_reset(void)
{
    uint32_t *src = &_sidata, *dst = &_sdata;
    if (src != dst) {
        while (dst < &_edata) *dst++ = *src++;
    }
    for (dst = &_sbss; dst < &_ebss; dst++) *dst = 0;
    protect_code();
    tb_cortexm_exit(main() != 0);
    for (;;) {
    }
}

/* The entry, at the start of DRAM: the agent's stack, the trap vector
 * (direct mode: every trap lands in Trap_Entry), then C. */
__attribute__((naked, noreturn, section(".isr_vector"))) void Reset_Handler(void)
{
    __asm__ volatile(".option push\n.option norelax\n"
                     "la sp, _stack_top\n"
                     "la tp, __tls_base\n" /* picolibc's errno (thread-local) */
                     "la t0, Trap_Entry\n"
                     "csrw mtvec, t0\n"
                     "j tb_rv32_reset\n"
                     ".option pop\n");
}

/* Every trap (we enable no interrupt) ends the firmware with a "fault"
 * record; the report runs on the handler stack at the top of RAM, the
 * trapping sp goes along in mscratch. */
__attribute__((naked, aligned(4))) void Trap_Entry(void)
{
    __asm__ volatile("csrw mscratch, sp\n"
                     "la sp, _handler_stack_top\n"
                     "csrr a0, mcause\n"
                     "csrr a1, mepc\n"
                     "csrr a2, mtval\n"
                     "csrr a3, mscratch\n"
                     "mv a4, ra\n"
                     "call tb_rv32_trap_report\n"
                     "1: j 1b\n");
}

void tb_rv32_trap_report(uint32_t cause, uint32_t epc, uint32_t tval, uint32_t sp, uint32_t ra)
{
    static const char *const names[] = {
        "instruction address misaligned", "instruction access fault", "illegal instruction", "breakpoint",
        "load address misaligned", "load access fault", "store address misaligned", "store access fault",
    };
    int below = sp < (uint32_t)(uintptr_t)&_ram_start || sp > (uint32_t)(uintptr_t)&_ram_end;
    tb_cortexm_flush_line();
    tb_rec_begin("fault");
    if (below) {
        tb_rec_str("what", "stack overflow (sp below RAM, into the protected code region)");
        tb_rec_u64("no_room", 1);
    } else {
        tb_rec_str("what", (cause & 0x80000000u) ? "unexpected interrupt" : cause < 8 ? names[cause] : "trap");
    }
    tb_rec_u64("exception", cause);
    tb_rec_u64("pc", epc);
    tb_rec_u64("lr", ra); /* the return address register, as lr on Arm */
    tb_rec_u64("mtval", tval);
    tb_rec_end();
    tb_cortexm_exit(1);
}

/* ---- picolibc system calls ---- */

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

/* As on Cortex-M: names the failure for the "end" record (no printf inside
 * malloc). */
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

/* picolibc's malloc grows its arena through sbrk (this replaces picolibc's
 * own, which reads other linker symbols). */
void *sbrk(ptrdiff_t incr)
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

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz;
    tb_cortexm_time(tv);
    return 0;
}
