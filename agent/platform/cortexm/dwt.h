/* The Cortex-M3/M4/M7 DWT cycle counter (CYCCNT, ARMv7-M ARM C1.8.8 and
 * the core's TRM), extended to 64 bits: a read that sees a smaller value
 * than the last one counts a wrap, so it is exact as long as it is read at
 * least once per 2^32 cycles (the board's timer interrupt makes sure).
 * Not on ARMv6-M (Cortex-M0/M0+): those boards use SysTick (systick.h). */
#ifndef TB_DWT_H
#define TB_DWT_H

#include <stdint.h>

/* Enables trace (DEMCR.TRCENA), unlocks the DWT where a lock access
 * register exists (Cortex-M7), zeroes and starts CYCCNT. */
void tb_dwt_start(void);
/* The 64-bit count; call with interrupts off. */
uint64_t tb_dwt_count(void);

#endif
