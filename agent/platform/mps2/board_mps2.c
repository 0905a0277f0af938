/* Arm MPS2 (AN385 Cortex-M3, AN386 Cortex-M4, AN500 Cortex-M7) as QEMU
 * models it, run with -icount shift=7,sleep=off: every instruction advances
 * virtual time by exactly 128 ns, so the CMSDK APB timer 0 (32-bit down
 * counter at the 25 MHz APB clock) counts 3.2 ticks per instruction and
 * round(ticks * 40 / 128) is the number of instructions. Its wrap (every
 * 2^32 ticks, about 1.34 G instructions) is counted by an interrupt, so a
 * window can be as long as the run. Output and input: CMSDK UART 0.
 *
 * Waiting for input sleeps (WFI, woken by the UART's receive interrupt with
 * PRIMASK set, so no handler runs) with timer 0 stopped: with sleep=off QEMU
 * then has no deadline to jump to and uses no host CPU until a byte comes,
 * where a polling loop keeps a core busy for as long as the host takes. The
 * wait is never inside a measured window; the count goes on after it from
 * where it stopped, and the timer starts from zero again so that its ticks
 * still convert exactly (a timer resumed mid-tick would shift the rounding
 * of every later reading by up to one instruction). */
#include "board.h"
#include "cortexm.h" /* TB_TIMER_IRQ */
#include "tb/platform.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

/* A board that shares this code (mps2-an505) sets its own addresses, timer
 * IRQ and tick conversion before including it. */
#ifndef UART0
#define UART0 0x40004000u
#endif
#define UART_DATA REG(UART0 + 0x00)
#define UART_STATE REG(UART0 + 0x04)
#define UART_CTRL REG(UART0 + 0x08)
#define UART_INTCLEAR REG(UART0 + 0x0C)
#define UART_BAUDDIV REG(UART0 + 0x10)
#define UART_TX_FULL 1u
#define UART_RX_FULL 2u
#define UART_ENABLE 3u       /* TX and RX */
#define UART_RX_INT_ENABLE 8u
#define UART_RX_INT 2u
/* UART 0's receive interrupt as NVIC register word and bits: IRQ 0 on the
 * AN385/AN386/AN500 (QEMU's mps2.c) */
#ifndef TB_UART_IRQ_WORD
#define TB_UART_IRQ_WORD 0u
#define TB_UART_IRQ_BITS 1u
#endif

#ifndef TIMER0
#define TIMER0 0x40000000u
#endif
#define TIMER_CTRL REG(TIMER0 + 0x00)
#define TIMER_VALUE REG(TIMER0 + 0x04)
#define TIMER_RELOAD REG(TIMER0 + 0x08)
#define TIMER_INT REG(TIMER0 + 0x0C)
#define NVIC_ISER(word) REG(0xE000E100u + 4u * (word))
#define NVIC_ICER(word) REG(0xE000E180u + 4u * (word))
#define NVIC_ICPR(word) REG(0xE000E280u + 4u * (word))
#ifndef TB_MPS2_TICKS_TO_INSTRUCTIONS
#define TB_MPS2_TICKS_TO_INSTRUCTIONS(t) (((t) * 5u + 8u) >> 4) /* round(ticks * 40 / 128) */
#endif

static volatile uint32_t wraps;
static uint64_t before_wait; /* the count when timer 0 last started again */

/* Counts from zero, as at power-on: the tick that follows an instruction
 * boundary by a whole period, so ticks convert to instructions exactly. */
static void timer_start(void)
{
    TIMER_CTRL = 0;
    TIMER_RELOAD = 0xFFFFFFFFu;
    TIMER_VALUE = 0xFFFFFFFFu;
    TIMER_INT = 1;
    NVIC_ICPR(TB_TIMER_IRQ / 32u) = 1u << (TB_TIMER_IRQ % 32u); /* a wrap of before: counted */
    wraps = 0;
    TIMER_CTRL = 1u | 8u; /* enable, interrupt on wrap */
}

void tb_board_init(void)
{
    UART_BAUDDIV = 16;       /* QEMU ignores a divisor below 16 */
    UART_CTRL = UART_ENABLE; /* no interrupts but while waiting for input */
    NVIC_ISER(TB_TIMER_IRQ / 32u) = 1u << (TB_TIMER_IRQ % 32u);
    timer_start();
}

void tb_timer_irq(void)
{
    TIMER_INT = 1;
    wraps++;
}

#define TB_STR2(x) #x
#define TB_STR(x) TB_STR2(x)

const char *tb_board_name(void)
{
    return "qemu:" TB_STR(TB_MACHINE_NAME);
}

/* With interrupts masked. */
static uint64_t count_now(void)
{
    uint32_t v = TIMER_VALUE;
    if (TIMER_INT & 1u) { /* wrapped, interrupt not yet taken */
        TIMER_INT = 1;
        wraps++;
        v = TIMER_VALUE;
    }
    uint64_t ticks = ((uint64_t)wraps << 32) | (0xFFFFFFFFu - v);
    return before_wait + TB_MPS2_TICKS_TO_INSTRUCTIONS(ticks);
}

uint64_t tb_board_count(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
    uint64_t n = count_now();
    __asm__ volatile("cpsie i" ::: "memory");
    return n;
}

void tb_board_putc(char c)
{
    while (UART_STATE & UART_TX_FULL) {
    }
    UART_DATA = (uint8_t)c;
}

/* Run for every byte, whether or not it has come: the same instructions
 * whatever the host's timing, so a cycle model's caches hold the same lines
 * when the next window starts. */
static void sleep_until_input(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
    before_wait = count_now();
    TIMER_CTRL = 0;
    UART_CTRL = UART_ENABLE | UART_RX_INT_ENABLE; /* before the check: a byte from now on wakes the WFI */
    NVIC_ISER(TB_UART_IRQ_WORD) = TB_UART_IRQ_BITS;
    while (!(UART_STATE & UART_RX_FULL)) {
        __asm__ volatile("wfi" ::: "memory");
    }
    UART_CTRL = UART_ENABLE;
    UART_INTCLEAR = UART_RX_INT;
    NVIC_ICER(TB_UART_IRQ_WORD) = TB_UART_IRQ_BITS;
    NVIC_ICPR(TB_UART_IRQ_WORD) = TB_UART_IRQ_BITS;
    timer_start();
    __asm__ volatile("cpsie i" ::: "memory");
}

int tb_board_getc(void)
{
    sleep_until_input();
    return (int)(UART_DATA & 0xFFu);
}

uint32_t tb_board_counter(void)
{
    return TB_CTR_INSTRUCTIONS;
}

const tb_board_notes tb_board_counter_notes = {
    "QEMU does not model cycles (DWT CYCCNT reads 0): instructions only",
    TB_NOTE_QEMU_TIME};
