/* Netduino Plus 2 (STM32F405, Cortex-M4) as QEMU models it, run with
 * -icount shift=7,sleep=off: every instruction advances virtual time by
 * exactly 128 ns.
 *
 * Counter: TIM2 and TIM5 as exact instruction counts (stm32/qemu_tim_count.c).
 *
 * I/O: USART1 (QEMU connects the first -serial to it), via the STM32 USART
 * code shared with nucleo-f446re. RCC writes are kept (QEMU ignores them;
 * a real F405 needs them), GPIO pin set-up is not (QEMU has no GPIO model). */
#include "board.h"
#include "tb/platform.h"
#include "../stm32/qemu_tim_count.h"
#include "../stm32/usart_stm32.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define RCC_APB1ENR REG(0x40023840u)
#define RCC_APB2ENR REG(0x40023844u)
#define USART1 0x40011000u

/* QEMU's USART model takes input while disabled and drops it, so the
 * earlier it is enabled, the less of what the host sent first is lost (the
 * host's first request still races the first instructions: see the
 * report on ready handshakes). */
void tb_board_early_init(void)
{
    RCC_APB2ENR |= 1u << 4;                    /* USART1 */
    tb_usart_init(USART1, 84000000u, 115200u); /* QEMU ignores the rate */
}

void tb_board_init(void)
{
    RCC_APB1ENR |= (1u << 0) | (1u << 3); /* TIM2, TIM5 */
    tb_qemu_tim_start();
}

void tb_timer_irq(void)
{
}

#define TB_STR2(x) #x
#define TB_STR(x) TB_STR2(x)

const char *tb_board_name(void)
{
    return "qemu:" TB_STR(TB_MACHINE_NAME);
}

void tb_board_putc(char c)
{
    tb_usart_putc(USART1, c);
}

int tb_board_getc(void)
{
    return tb_usart_getc(USART1);
}

uint64_t tb_board_count(void)
{
    return tb_qemu_tim_instructions();
}

uint32_t tb_board_counter(void)
{
    return TB_CTR_INSTRUCTIONS;
}

const tb_board_notes tb_board_counter_notes = {
    "QEMU does not model cycles (DWT CYCCNT reads 0): instructions only",
    TB_NOTE_QEMU_TIME};
