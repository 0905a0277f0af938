/* Exact instruction counts from QEMU's STM32 timer model (see
 * qemu_tim_count.h), as netduinoplus2 first used them.
 *
 * Counter: QEMU's "stm32f2xx-timer" model computes CNT from virtual time as
 * floor(ns * F / 1 GHz) / (PSC + 1) minus its value at the last update
 * event, counting whether or not CEN is set; its update interrupt is
 * scheduled wrongly (it adds an absolute time to "now"), so no interrupt is
 * used. F is the model's "clock-frequency": 1 GHz in QEMU 7.2 (the SoC
 * leaves the default), 48 MHz in later QEMU (the SoC sets it). tb_qemu_tim_start
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
 * this conversion holds for QEMU only (the name says qemu:). */
#include "qemu_tim_count.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

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

void tb_qemu_tim_start(void)
{
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

uint64_t tb_qemu_tim_instructions(void)
{
    uint64_t x = ticks();
    if (one_ghz) return (x + 64u) >> 7;   /* 128 ns per instruction */
    return (x + 3u) * 125u / 768u;        /* 6.144 ticks per instruction */
}
