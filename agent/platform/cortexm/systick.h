/* SysTick (ARMv6-M ARM B3.3 / ARMv7-M ARM B3.3) as a 64-bit cycle counter
 * for cores without DWT CYCCNT (Cortex-M0/M0+): the 24-bit down counter
 * runs from the core clock with its largest reload, and its interrupt
 * counts the wraps (every 2^24 cycles: 0.52 s at 32 MHz).
 *
 * Reading it races the wrap; tb_systick_extend says how to read it right:
 * read VAL (v1), then ICSR.PENDSTSET (a wrap not yet counted by the
 * interrupt), then VAL again (v2), with interrupts off. A wrap is pending
 * if PENDSTSET was set, or if it came after that read: then v2 > v1 (the
 * counter reloaded upwards). Either way v2 belongs to wraps + 1. */
#ifndef TB_SYSTICK_H
#define TB_SYSTICK_H

#include <stdint.h>

#define TB_SYSTICK_BITS 24u
#define TB_SYSTICK_MAX ((1u << TB_SYSTICK_BITS) - 1u)

/* The count from the interrupt's wraps and the three reads above. Pure, so
 * the host test suite checks it on every interleaving. */
static inline uint64_t tb_systick_extend(uint32_t wraps, uint32_t v1, int pending, uint32_t v2)
{
    uint64_t w = wraps;
    if (pending || v2 > v1) w++;
    return (w << TB_SYSTICK_BITS) + (TB_SYSTICK_MAX - (v2 & TB_SYSTICK_MAX));
}

/* Starts SysTick on the core clock with its interrupt on. */
void tb_systick_start(void);
/* The 64-bit count of core cycles since tb_systick_start; call with
 * interrupts off. */
uint64_t tb_systick_count(void);

#endif
