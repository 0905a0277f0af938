/* Cortex-M start-up shared by every board: the vector table, reset (copy
 * .data, clear .bss, run the agent), fault reporting, semihosting exit and
 * the few newlib system calls a library can reach (_sbrk for malloc). */
#include "cortexm.h"
#include "tb/protocol.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _stack_top, _heap_start, _heap_limit;
int main(void);
void tb_timer_irq(void);

/* ARM semihosting (QEMU -semihosting): only used to end the emulator. On a
 * board without a debugger attached it would fault, so boards that are not
 * emulated never call it (tb_cortexm_exit spins there). */
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUNTIME_ERROR 0x20023

static void semihost_exit(uint32_t reason)
{
    register uint32_t r0 __asm__("r0") = SYS_EXIT;
    register uint32_t r1 __asm__("r1") = reason;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

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

/* A board whose UART drops input until it is enabled (QEMU's STM32 USART)
 * enables it here, before the thousands of instructions that set up RAM.
 * It runs before .data and .bss exist: registers only. */
__attribute__((weak)) void tb_board_early_init(void)
{
}

void Reset_Handler(void)
{
    tb_board_early_init();
    uint32_t *src = &_sidata, *dst = &_sdata;
    if (src != dst) {
        while (dst < &_edata) *dst++ = *src++;
    }
    for (dst = &_sbss; dst < &_ebss; dst++) *dst = 0;
    tb_cortexm_exit(main() != 0);
}

/* A fault ends the firmware with a "fault" record naming it, so the host
 * reports a crash with its cause instead of a silent hang. */
void tb_fault_report(const uint32_t *frame, uint32_t exc)
{
    static const char *const names[] = {"", "", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault"};
    tb_cortexm_flush_line();
    tb_rec_begin("fault");
    tb_rec_str("what", exc < 7 ? names[exc] : "unexpected interrupt");
    tb_rec_u64("exception", exc);
    tb_rec_u64("pc", frame[6]);
    tb_rec_u64("lr", frame[5]);
#if TB_HAVE_FAULT_STATUS
    tb_rec_u64("cfsr", *(volatile uint32_t *)0xE000ED28u);
    tb_rec_u64("hfsr", *(volatile uint32_t *)0xE000ED2Cu);
    tb_rec_u64("bfar", *(volatile uint32_t *)0xE000ED38u);
#endif
    tb_rec_end();
    tb_cortexm_exit(1);
}

/* Every fault and unexpected interrupt lands here; IPSR names it. */
__attribute__((naked)) void Fault_Handler(void)
{
    __asm__ volatile("mrs r0, msp\n"
                     "mrs r1, ipsr\n"
                     "bl tb_fault_report\n");
}

void Timer_Handler(void)
{
    tb_timer_irq();
}

typedef void (*vector)(void);
#define TB_TIMER_IRQ_SLOT (16 + TB_TIMER_IRQ)

__attribute__((section(".isr_vector"), used)) static const vector vectors[16 + 32] = {
    [0] = (vector)(uintptr_t)&_stack_top,
    [1] = Reset_Handler,
    [2 ... 15] = Fault_Handler,
    [16 ... TB_TIMER_IRQ_SLOT - 1] = Fault_Handler,
    [TB_TIMER_IRQ_SLOT] = Timer_Handler,
    [TB_TIMER_IRQ_SLOT + 1 ... 47] = Fault_Handler,
};

/* ---- newlib system calls ---- */

static char *heap_end;
static uint32_t heap_failures;

void *_sbrk(ptrdiff_t incr)
{
    if (heap_end == NULL) heap_end = (char *)&_heap_start;
    if (incr > (char *)&_heap_limit - heap_end) {
        heap_failures++;
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
