/* Exact instruction counts from QEMU's STM32 timer model ("stm32f2xx-timer",
 * TIM2 and TIM5, on netduinoplus2 and netduino2) under -icount shift=7: how
 * and why is in qemu_tim_count.c. For emulated machines only: on a real
 * STM32 these timers count the timer clock, not instructions. */
#ifndef TB_QEMU_TIM_COUNT_H
#define TB_QEMU_TIM_COUNT_H

#include <stdint.h>

/* Starts TIM5 (high part) and TIM2 (low part) and tells QEMU 7.2's 1 GHz
 * timer model from later QEMU's 48 MHz one by timing a loop. */
void tb_qemu_tim_start(void);
uint64_t tb_qemu_tim_instructions(void);

#endif
