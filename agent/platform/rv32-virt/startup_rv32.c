/* RV32 start-up for the bare-metal layer (what platform/cortexm/startup.c
 * is to a Cortex-M): the entry at the start of code, the agent's stack,
 * the trap report, semihosting exit and the few picolibc system calls a
 * library can reach (sbrk for malloc, from cortexm/heap_sbrk.c; gettimeofday for
 * the frozen clock).
 *
 * QEMU's DRAM is writable everywhere, so a runaway store (a stack run off
 * the bottom of RAM lands in the code region just below it) would rewrite
 * code silently. A locked PMP entry makes the code region read and execute
 * only, for machine mode too: such a store traps and is reported. */
#include "cortexm.h"
#include "tb/protocol.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss;
extern uint32_t _ram_start, _ram_end;
int main(void);
void tb_rv32_trap_report(uint32_t cause, uint32_t epc, uint32_t tval, uint32_t sp, uint32_t ra);

/* RISC-V semihosting exit (QEMU -semihosting), as on Cortex-M. */
#include "../cortexm/exit_semihost.c"

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

/* The heap (sbrk), shared with the Cortex-M start-up, included where it stood. */
#include "../cortexm/heap_sbrk.c"

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz;
    tb_cortexm_time(tv);
    return 0;
}
