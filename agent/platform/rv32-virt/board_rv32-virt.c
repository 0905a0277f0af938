/* The RV32 class target on QEMU's riscv32 `virt` machine: its NS16550A
 * UART at 0x10000000 (polled), and the core's own instruction counter:
 * minstret/minstreth, which QEMU 7.2 serves under -icount from its virtual
 * clock (1 per ns), so with shift=7 every instruction adds exactly 128 and
 * the count divided by 128 is the number of instructions (no timer, no
 * interrupt, no wrap in 2^64 ns). */
#include "board.h"
#include "tb/platform.h"

#define REG8(addr) (*(volatile uint8_t *)(addr))

#define UART0 0x10000000u
#define UART_RBR REG8(UART0 + 0)
#define UART_THR REG8(UART0 + 0)
#define UART_IER REG8(UART0 + 1)
#define UART_LCR REG8(UART0 + 3)
#define UART_LSR REG8(UART0 + 5)
#define LSR_DATA_READY 0x01u
#define LSR_THR_EMPTY 0x20u
#define ICOUNT_NS_PER_INSN_SHIFT 7u /* -icount shift=7 (targets/target.py ICOUNT) */

static uint64_t start;

static uint64_t read_instret(void)
{
    uint32_t hi, lo, hi2;
    do {
        __asm__ volatile("csrr %0, minstreth" : "=r"(hi));
        __asm__ volatile("csrr %0, minstret" : "=r"(lo));
        __asm__ volatile("csrr %0, minstreth" : "=r"(hi2));
    } while (hi != hi2);
    return ((uint64_t)hi << 32) | lo;
}

void tb_board_init(void)
{
    /* polled, 8N1 (QEMU ignores the divisor); the FIFO control register is
     * left alone: QEMU's 16550 empties its receive FIFO when the FIFO is
     * switched on, which lost the start of a request sent before start-up */
    UART_IER = 0;
    UART_LCR = 0x03;
    start = read_instret();
}

#define TB_STR2(x) #x
#define TB_STR(x) TB_STR2(x)

const char *tb_board_name(void)
{
    return "qemu:" TB_STR(TB_MACHINE_NAME);
}

void tb_board_putc(char c)
{
    while (!(UART_LSR & LSR_THR_EMPTY)) {
    }
    UART_THR = (uint8_t)c;
}

int tb_board_getc(void)
{
    while (!(UART_LSR & LSR_DATA_READY)) {
    }
    return (int)UART_RBR;
}

uint64_t tb_board_count(void)
{
    return (read_instret() - start) >> ICOUNT_NS_PER_INSN_SHIFT;
}

uint32_t tb_board_counter(void)
{
    return TB_CTR_INSTRUCTIONS;
}

const tb_board_notes tb_board_counter_notes = {
    "QEMU does not model cycles (mcycle is virtual time): instructions only",
    TB_NOTE_QEMU_TIME};
