/* Netduino Plus 2 (STM32F405, Cortex-M4) as QEMU models it, run with
 * -icount shift=7,sleep=off: every instruction advances virtual time by
 * exactly 128 ns.
 *
 * Counter: QEMU's "stm32f2xx-timer" model computes CNT from virtual time as
 * floor(ns * F / 1 GHz) / (PSC + 1) minus its value at the last update
 * event, counting whether or not CEN is set; its update interrupt is
 * scheduled wrongly (it adds an absolute time to "now"), so no interrupt is
 * used. F is the model's "clock-frequency": 1 GHz in QEMU 7.2 (the SoC
 * leaves the default), 48 MHz in later QEMU (the SoC sets it). tb_board_init
 * tells them apart by timing a loop of known length, then converts exactly:
 *   1 GHz:  TIM2 (PSC 0) counts 128 ticks per instruction: j = X / 128.
 *   48 MHz: 6.144 ticks per instruction; since the update event
 *           X = floor(6.144 j + f), f in [0, 1) fixed, so
 *           j = floor((X + 3) * 125 / 768) exactly ((X + 3) / 6.144 lies in
 *           (j + 0.32, j + 0.66)).
 * TIM5 (PSC 65535) gives the high part: X is the one value congruent to
 * TIM2's 32 bits within 2^17 ticks of what TIM5 says, so the count is 64
 * bits with no wrap to catch (TIM2 alone wraps after 33.5 M instructions at
 * 1 GHz). On a real STM32F405 both count the timer clock, not instructions:
 * this conversion holds for QEMU only (the name says qemu:).
 *
 * I/O: USART1 (QEMU connects the first -serial to it), via the STM32 USART
 * code shared with nucleo-f446re. RCC writes are kept (QEMU ignores them;
 * a real F405 needs them), GPIO pin set-up is not (QEMU has no GPIO model). */
#include "board.h"
#include "tb/platform.h"
#include "../stm32/usart_stm32.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define RCC_APB1ENR REG(0x40023840u)
#define RCC_APB2ENR REG(0x40023844u)
#define USART1 0x40011000u

#define TIM2 0x40000000u
#define TIM5 0x40000C00u
#define TIM_CR1(t) REG((t) + 0x00u)
#define TIM_EGR(t) REG((t) + 0x14u)
#define TIM_CNT(t) REG((t) + 0x24u)
#define TIM_PSC(t) REG((t) + 0x28u)
#define TIM_ARR(t) REG((t) + 0x2Cu)
#define COARSE_SHIFT 16u /* TIM5 prescaler 65536 */
#define SLACK 4096u      /* ticks between the two reads, with margin */

static uint32_t fine0, coarse0;

static void timer_start(uint32_t t, uint32_t psc)
{
    TIM_CR1(t) = 0;
    TIM_PSC(t) = psc;
    TIM_ARR(t) = 0xFFFFFFFFu;
    TIM_EGR(t) = 1u; /* update event: load PSC, CNT = 0 */
    TIM_CR1(t) = 1u; /* CEN */
}

static uint64_t ticks(void)
{
    uint32_t coarse = TIM_CNT(TIM5); /* first, so TIM2 is read after it */
    uint32_t fine = TIM_CNT(TIM2);
    int64_t low = ((int64_t)(uint32_t)(coarse - coarse0) << COARSE_SHIFT) + fine0 -
                  (1 << COARSE_SHIFT) - SLACK;
    return (uint64_t)(low + (uint32_t)(fine - (uint32_t)low));
}

static int one_ghz; /* the QEMU 7.2 model: ticks are nanoseconds */

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
    timer_start(TIM5, (1u << COARSE_SHIFT) - 1u);
    timer_start(TIM2, 0);
    coarse0 = TIM_CNT(TIM5);
    fine0 = TIM_CNT(TIM2);
    uint64_t t0 = ticks();
    uint32_t n = 1000; /* 2000 instructions: 12 k ticks at 48 MHz, 256 k at 1 GHz */
    __asm__ volatile("1: subs %0, %0, #1\n"
                     "   bne 1b\n"
                     : "+l"(n)
                     :
                     : "cc");
    one_ghz = ticks() - t0 > 100000u;
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
    uint64_t x = ticks();
    if (one_ghz) return (x + 64u) >> 7;   /* 128 ns per instruction */
    return (x + 3u) * 125u / 768u;        /* 6.144 ticks per instruction */
}

uint32_t tb_board_counter(void)
{
    return TB_CTR_INSTRUCTIONS;
}

const char *tb_board_counter_note(uint32_t counter)
{
    if (counter == TB_CTR_INSTRUCTIONS) return "";
    if (counter == TB_CTR_CYCLES) return "QEMU does not model cycles (DWT CYCCNT reads 0): instructions only";
    return "QEMU -icount: virtual time only; instruction counts are the measure";
}
