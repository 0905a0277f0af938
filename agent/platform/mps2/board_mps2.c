/* Arm MPS2 (AN385 Cortex-M3, AN386 Cortex-M4, AN500 Cortex-M7) as QEMU
 * models it, run with -icount shift=7,sleep=off: every instruction advances
 * virtual time by exactly 128 ns, so the CMSDK APB timer 0 (32-bit down
 * counter at the 25 MHz APB clock) counts 3.2 ticks per instruction and
 * round(ticks * 40 / 128) is the number of instructions. Its wrap (every
 * 2^32 ticks, about 1.34 G instructions) is counted by an interrupt, so a
 * window can be as long as the run. Output and input: CMSDK UART 0. */
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
#define UART_BAUDDIV REG(UART0 + 0x10)
#define UART_TX_FULL 1u
#define UART_RX_FULL 2u

#ifndef TIMER0
#define TIMER0 0x40000000u
#endif
#define TIMER_CTRL REG(TIMER0 + 0x00)
#define TIMER_VALUE REG(TIMER0 + 0x04)
#define TIMER_RELOAD REG(TIMER0 + 0x08)
#define TIMER_INT REG(TIMER0 + 0x0C)
#define NVIC_ISER0 REG(0xE000E100u)
#ifndef TB_MPS2_TICKS_TO_INSTRUCTIONS
#define TB_MPS2_TICKS_TO_INSTRUCTIONS(t) (((t) * 5u + 8u) >> 4) /* round(ticks * 40 / 128) */
#endif

static volatile uint32_t wraps;

void tb_board_init(void)
{
    UART_BAUDDIV = 16; /* QEMU ignores a divisor below 16 */
    UART_CTRL = 3;     /* TX and RX enabled, no interrupts: polled */
    TIMER_CTRL = 0;
    TIMER_RELOAD = 0xFFFFFFFFu;
    TIMER_VALUE = 0xFFFFFFFFu;
    TIMER_INT = 1;
    NVIC_ISER0 = 1u << TB_TIMER_IRQ;
    TIMER_CTRL = 1u | 8u; /* enable, interrupt on wrap */
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

void tb_board_putc(char c)
{
    while (UART_STATE & UART_TX_FULL) {
    }
    UART_DATA = (uint8_t)c;
}

int tb_board_getc(void)
{
    while (!(UART_STATE & UART_RX_FULL)) {
    }
    return (int)(UART_DATA & 0xFFu);
}

uint64_t tb_board_count(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
    uint32_t v = TIMER_VALUE;
    if (TIMER_INT & 1u) { /* wrapped, interrupt not yet taken */
        TIMER_INT = 1;
        wraps++;
        v = TIMER_VALUE;
    }
    uint64_t ticks = ((uint64_t)wraps << 32) | (0xFFFFFFFFu - v);
    __asm__ volatile("cpsie i" ::: "memory");
    return TB_MPS2_TICKS_TO_INSTRUCTIONS(ticks);
}

uint32_t tb_board_counter(void)
{
    return TB_CTR_INSTRUCTIONS;
}

const tb_board_notes tb_board_counter_notes = {
    "QEMU does not model cycles (DWT CYCCNT reads 0): instructions only",
    TB_NOTE_QEMU_TIME};
