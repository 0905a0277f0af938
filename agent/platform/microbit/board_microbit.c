/* BBC micro:bit (nRF51822, Cortex-M0) as QEMU models it, run with
 * -icount shift=7,sleep=off: every instruction advances virtual time by
 * exactly 128 ns.
 *
 * Counter: TIMER0, 32-bit, PRESCALER 1 (8 MHz, 125 ns per tick). QEMU's
 * "nrf51_soc.timer" has no readable counter: a CAPTURE task copies it to
 * CC[0]. The model advances the counter in whole ticks of exactly 125 ns
 * from the START task (at PRESCALER 0 a tick is 62.5 ns, rounded down to
 * 62 on every update, so the count drifts: not used), so j instructions
 * after START the counter is t = floor(128 j / 125) and j = ceil(t * 125 /
 * 128) exactly (t / 1.024 lies in [j - 0.98, j]). The counter wraps every
 * 2^32 ticks (4.19 G instructions); a read after a wrap sees a smaller
 * value and counts it, and a COMPARE[1] interrupt at the counter's half
 * way point reads it at least once per wrap (the model can raise that
 * event twice; an extra read is harmless). A window that spans that
 * interrupt includes its ~22 instructions (calibrate n=3e9: 2n + 47 instead
 * of 2n + 3). SysTick (24-bit) is not used.
 *
 * I/O: the nRF51 UART (QEMU connects the first -serial to it), polled. The
 * model holds input until STARTRX, so nothing sent early is lost. The HFCLK
 * crystal is not started (QEMU has no CLOCK model: waiting for its event
 * would hang); a real nRF51 would need it for an accurate baud rate. */
#include "board.h"
#include "tb/platform.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define UART0 0x40002000u
#define UART_STARTRX REG(UART0 + 0x000u)
#define UART_STARTTX REG(UART0 + 0x008u)
#define UART_RXDRDY REG(UART0 + 0x108u)
#define UART_TXDRDY REG(UART0 + 0x11Cu)
#define UART_ENABLE REG(UART0 + 0x500u)
#define UART_PSELTXD REG(UART0 + 0x50Cu)
#define UART_PSELRXD REG(UART0 + 0x514u)
#define UART_RXD REG(UART0 + 0x518u)
#define UART_TXD REG(UART0 + 0x51Cu)
#define UART_BAUDRATE REG(UART0 + 0x524u)

#define TIMER0 0x40008000u
#define TIMER_START REG(TIMER0 + 0x000u)
#define TIMER_STOP REG(TIMER0 + 0x004u)
#define TIMER_CLEAR REG(TIMER0 + 0x00Cu)
#define TIMER_CAPTURE0 REG(TIMER0 + 0x040u)
#define TIMER_COMPARE1 REG(TIMER0 + 0x144u)
#define TIMER_INTENSET REG(TIMER0 + 0x304u)
#define TIMER_MODE REG(TIMER0 + 0x504u)
#define TIMER_BITMODE REG(TIMER0 + 0x508u)
#define TIMER_PRESCALER REG(TIMER0 + 0x510u)
#define TIMER_CC0 REG(TIMER0 + 0x540u)
#define TIMER_CC1 REG(TIMER0 + 0x544u)
#define NVIC_ISER0 REG(0xE000E100u)
#define TIMER0_IRQ 8u /* TB_TIMER_IRQ's default */

static uint32_t last, wraps;

void tb_board_init(void)
{
    UART_ENABLE = 4;
    UART_PSELTXD = 24; /* micro:bit edge connector / interface MCU pins */
    UART_PSELRXD = 25;
    UART_BAUDRATE = 0x01D7E000u; /* 115200 */
    UART_STARTTX = 1;
    UART_STARTRX = 1;

    TIMER_STOP = 1;
    TIMER_MODE = 0;      /* timer */
    TIMER_BITMODE = 3;   /* 32-bit */
    TIMER_PRESCALER = 1; /* 16 MHz / 2 */
    TIMER_CLEAR = 1;
    TIMER_CC1 = 0x80000000u;
    TIMER_COMPARE1 = 0;
    TIMER_INTENSET = 1u << 17; /* COMPARE[1] */
    NVIC_ISER0 = 1u << TIMER0_IRQ;
    TIMER_START = 1;
}

/* The counter's 64-bit tick count; call with interrupts off. */
static uint64_t ticks(void)
{
    TIMER_CAPTURE0 = 1;
    uint32_t v = TIMER_CC0;
    if (v < last) wraps++;
    last = v;
    return ((uint64_t)wraps << 32) | v;
}

void tb_timer_irq(void)
{
    TIMER_COMPARE1 = 0;
    (void)ticks();
}

#define TB_STR2(x) #x
#define TB_STR(x) TB_STR2(x)

const char *tb_board_name(void)
{
    return "qemu:" TB_STR(TB_MACHINE_NAME);
}

void tb_board_putc(char c)
{
    UART_TXDRDY = 0;
    UART_TXD = (uint8_t)c;
    while (!UART_TXDRDY) {
    }
}

int tb_board_getc(void)
{
    while (!UART_RXDRDY) {
    }
    UART_RXDRDY = 0; /* before RXD: reading it raises RXDRDY again if more is queued */
    return (int)(UART_RXD & 0xFFu);
}

uint64_t tb_board_count(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
    uint64_t t = ticks();
    __asm__ volatile("cpsie i" ::: "memory");
    return (t * 125u + 127u) >> 7; /* ceil(t * 125 / 128) */
}

uint32_t tb_board_counter(void)
{
    return TB_CTR_INSTRUCTIONS;
}

const tb_board_notes tb_board_counter_notes = {
    "QEMU does not model cycles (Cortex-M0 has no DWT CYCCNT): instructions only",
    TB_NOTE_QEMU_TIME};
