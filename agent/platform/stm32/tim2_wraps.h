/* DWT CYCCNT's wraps kept by TIM2 on the real STM32 boards whose TIM2 sits
 * at 0x40000000 with IRQ 28 (F1, F4, F7; TB_TIMER_IRQ=28 in their
 * board.cmake): its update interrupt reads the cycle counter
 * (cortexm/dwt.c) at least twice per 2^32-cycle wrap, so the 64-bit count
 * sees every wrap. A window spanning that interrupt includes it. */
#ifndef TB_TIM2_WRAPS_H
#define TB_TIM2_WRAPS_H

#include <stdint.h>

/* Starts CYCCNT, then TIM2's update interrupt every (psc + 1) x (arr + 1)
 * TIM2 clocks. The board has enabled TIM2's bus clock (RCC) first. */
void tb_stm32_tim2_wraps_start(uint32_t psc, uint32_t arr);

#endif
