/* Cortex-M start-up shared by every board: the vector table, reset (thread
 * mode on PSP, copy .data, clear .bss, run the agent), fault reporting, semihosting exit and
 * the few newlib system calls a library can reach (_sbrk for malloc, from
 * heap_sbrk.c). */
#include "cortexm.h"
#include "tb/protocol.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _stack_top;
/* From the board's linker script: its RAM, and a small stack of its own for
 * exception handlers (MSP; the agent runs on PSP from _stack_top), so that
 * a fault raised by a stack overflow can still be reported. */
extern uint32_t _ram_start, _ram_end, _handler_stack_top;
int main(void);
void tb_timer_irq(void);

/* Semihosting exit on an emulated board, spinning on a real one. */
#include "exit_semihost.c"

/* A board whose UART drops input until it is enabled (QEMU's STM32 USART)
 * enables it here, before the thousands of instructions that set up RAM.
 * It runs before .data and .bss exist: registers only. */
__attribute__((weak)) void tb_board_early_init(void)
{
}

static void __attribute__((noreturn, used)) reset_c(void)
{
    tb_board_early_init();
    uint32_t *src = &_sidata, *dst = &_sdata;
    if (src != dst) {
        while (dst < &_edata) *dst++ = *src++;
    }
    for (dst = &_sbss; dst < &_ebss; dst++) *dst = 0;
    tb_cortexm_exit(main() != 0);
    for (;;) {
    }
}

/* Thread mode on PSP (from _stack_top), handlers on MSP (from the vector
 * table's _handler_stack_top). Thumb-1 only, for Cortex-M0 too. */
__attribute__((naked, noreturn)) void Reset_Handler(void)
{
    __asm__ volatile("ldr r0, =_stack_top\n"
                     "msr psp, r0\n"
                     "movs r0, #2\n" /* CONTROL.SPSEL: thread mode uses PSP */
                     "msr control, r0\n"
                     "isb\n"
                     "bl reset_c\n"
                     ".ltorg\n");
}

/* A fault ends the firmware with a "fault" record naming it, so the host
 * reports a crash with its cause instead of a silent hang. Called from
 * Fault_Handler's assembly only: "used" keeps it under -flto. */
__attribute__((used)) void tb_fault_report(const uint32_t *frame, uint32_t exc)
{
    static const char *const names[] = {"", "", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault"};
    /* A frame outside RAM: the stack overflowed off the bottom of RAM and
     * the core could not push the frame, so pc and lr are unknown (0). */
    int lost = (uintptr_t)frame < (uintptr_t)&_ram_start || (uintptr_t)(frame + 8) > (uintptr_t)&_ram_end;
    tb_cortexm_flush_line();
    tb_rec_begin("fault");
    if (lost) {
        tb_rec_str("what", "stack overflow (frame not in RAM: pc, lr unknown)");
        tb_rec_u64("no_room", 1);
    } else {
        tb_rec_str("what", exc < 7 ? names[exc] : "unexpected interrupt");
    }
    tb_rec_u64("exception", exc);
    tb_rec_u64("pc", lost ? 0 : frame[6]);
    tb_rec_u64("lr", lost ? 0 : frame[5]);
#if TB_HAVE_FAULT_STATUS
    tb_rec_u64("cfsr", *(volatile uint32_t *)0xE000ED28u);
    tb_rec_u64("hfsr", *(volatile uint32_t *)0xE000ED2Cu);
    tb_rec_u64("bfar", *(volatile uint32_t *)0xE000ED38u);
#endif
    tb_rec_end();
    tb_cortexm_exit(1);
}

/* Every fault and unexpected interrupt lands here; EXC_RETURN (lr) says
 * which stack holds the frame, IPSR names the exception. Thumb-1 only. */
__attribute__((naked)) void Fault_Handler(void)
{
    __asm__ volatile("mov r0, lr\n"
                     "movs r1, #4\n"
                     "tst r0, r1\n"
                     "beq 1f\n"
                     "mrs r0, psp\n"
                     "b 2f\n"
                     "1: mrs r0, msp\n"
                     "2: mrs r1, ipsr\n"
                     "bl tb_fault_report\n");
}

void Timer_Handler(void)
{
    tb_timer_irq();
}

/* A board that counts cycles with SysTick (cortexm/systick.c) defines it. */
void SysTick_Handler(void) __attribute__((weak, alias("Fault_Handler")));

typedef void (*vector)(void);
#define TB_TIMER_IRQ_SLOT (16 + TB_TIMER_IRQ)

__attribute__((section(".isr_vector"), used)) static const vector vectors[16 + 32] = {
    [0] = (vector)(uintptr_t)&_handler_stack_top,
    [1] = Reset_Handler,
    [2 ... 14] = Fault_Handler,
    [15] = SysTick_Handler,
    [16 ... TB_TIMER_IRQ_SLOT - 1] = Fault_Handler,
    [TB_TIMER_IRQ_SLOT] = Timer_Handler,
    [TB_TIMER_IRQ_SLOT + 1 ... 47] = Fault_Handler,
};

/* ---- newlib system calls ---- */

/* The heap (_sbrk), shared with the RV32 start-up. Included here, where it
 * stood: the same code at the same addresses, so everything after it (the
 * counter reads, the core's loops) keeps its place. */
#include "heap_sbrk.c"

int _write(int fd, const char *buf, int len)
{
    (void)fd; /* library diagnostics never reach the protocol channel */
    (void)buf;
    return len;
}

int _gettimeofday(void *tv, void *tz);
int _gettimeofday(void *tv, void *tz)
{
    (void)tz;
    tb_cortexm_time(tv);
    return 0;
}
